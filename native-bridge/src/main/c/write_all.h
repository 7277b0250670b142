/* SPDX-License-Identifier: Apache-2.0 */
/*
 * write_all: writes len bytes of buf to fd, resuming after short writes and
 * EINTR; gives up on any other error. Shared by urom-probe and urom-launch,
 * which use it for their one result line.
 */
#ifndef UROM_WRITE_ALL_H
#define UROM_WRITE_ALL_H

#include <errno.h>
#include <stddef.h>
#include <unistd.h>

static inline void write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		buf += n;
		len -= (size_t)n;
	}
}

#endif
