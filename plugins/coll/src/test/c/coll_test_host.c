/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Test only: urom_worker_host_process for a test JVM whose worker does not provide it yet (the
 * framework's version comes with the host-process change). The tests load this library
 * RTLD_GLOBAL before any plugin, and only when the process lacks the symbol. The test process is
 * the host of every connection; coll_test_host_mode() makes it answer as a worker could:
 *   0: this process; 1: NOT_SUPPORTED (a TCP host); 2: this pid with the pidfd of a process that
 *   has exited (a host gone); 3: NOT_FOUND.
 * Not thread-safe: the tests drive their workers from one thread.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <urom_plugin.h>

#include "../../main/c/coll_host_process.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

static int mode;

__attribute__((visibility("default"))) void coll_test_host_mode(int value)
{
	mode = value;
}

static int exited_pidfd(void)
{
	pid_t child = fork();
	int fd;

	if (child == 0)
		_exit(0);
	if (child < 0)
		return -1;
	fd = (int)syscall(SYS_pidfd_open, child, 0);
	waitpid(child, NULL, 0);
	return fd;
}

urom_status_t urom_worker_host_process(struct urom_worker_ctx *ctx, uint64_t dest_id, struct urom_host_process *host)
{
	(void)ctx;
	(void)dest_id;
	if (host == NULL)
		return UROM_ERR_INVALID_VALUE;
	switch (mode) {
	case 1:
		return UROM_ERR_NOT_SUPPORTED;
	case 3:
		return UROM_ERR_NOT_FOUND;
	default:
		host->pid = (int32_t)getpid();
		host->pidfd = mode == 2 ? exited_pidfd() : (int)syscall(SYS_pidfd_open, getpid(), 0);
		return host->pidfd < 0 ? UROM_ERR_OPERATING_SYSTEM : UROM_SUCCESS;
	}
}
