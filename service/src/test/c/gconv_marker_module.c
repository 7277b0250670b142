/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A gconv module as a hostile client would ship one: its constructor, which
 * runs as soon as the C library loads it, appends one line ("loaded uid U pid
 * P") to the file named by UROM_MARKER_PATH, a string the test compiles in, so
 * that whichever process loads it leaves a trace. Its conversion entry points
 * exist (the C library insists on them) and refuse every conversion, so
 * iconv_open fails after loading it. Built with -DUROM_MARKER_PATH='"..."';
 * the gconv-modules file of its directory names it for the charset the tests
 * ask iconv_open for.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <gconv.h>
#include <stdio.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

#ifndef UROM_MARKER_PATH
#error "compile with -DUROM_MARKER_PATH='\"/path/of/the/marker\"'"
#endif

__attribute__((constructor)) static void announce_loaded(void)
{
	char line[96];
	int len, fd;

	len = snprintf(line, sizeof(line), "loaded uid %u pid %d\n", (unsigned)getuid(), (int)getpid());
	if (len < 0 || (size_t)len >= sizeof(line))
		return;
	/* A constructor has nobody to report to: when the marker cannot be written, the test sees none. */
	fd = open(UROM_MARKER_PATH, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
	if (fd < 0)
		return;
	if (write(fd, line, (size_t)len) != len) {
		close(fd);
		return;
	}
	close(fd);
}

EXPORT int gconv_init(struct __gconv_step *step)
{
	(void)step;
	return __GCONV_NOCONV;
}

EXPORT int gconv(struct __gconv_step *step, struct __gconv_step_data *data, const unsigned char **in,
		 const unsigned char *in_end, unsigned char **out, size_t *irreversible, int do_flush,
		 int consume_incomplete)
{
	(void)step;
	(void)data;
	(void)in;
	(void)in_end;
	(void)out;
	(void)irreversible;
	(void)do_flush;
	(void)consume_incomplete;
	return __GCONV_NOCONV;
}
