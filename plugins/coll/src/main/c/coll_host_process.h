/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Until the worker's urom_plugin.h declares it: the framework's look-up of a host connection's process.
 * The same declaration as the framework's; remove this file when urom_plugin.h has it.
 */
#ifndef COLL_HOST_PROCESS_H_
#define COLL_HOST_PROCESS_H_

#include <stdint.h>

#include <urom_plugin.h>

struct urom_host_process {
	int32_t pid;
	int32_t pidfd;
};

UROM_PLUGIN_EXPORT urom_status_t urom_worker_host_process(struct urom_worker_ctx *ctx, uint64_t dest_id,
							   struct urom_host_process *host) __attribute__((weak));

#endif /* COLL_HOST_PROCESS_H_ */
