/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom-java: the graph plugin's C host helper, for programs built on DOCA UROM's host API
 * (doca_urom.h). It speaks the graph plugin's one command, LOOPBACK: the worker answers with the
 * 64-bit value it was sent.
 *
 * Use: find the plugin "worker_graph" in doca_urom_service_get_plugins_list(), hand its id and
 * version to urom_graph_init(), start a worker whose plugin mask holds that id, then call
 * urom_graph_task_loopback(); the callback runs inside doca_pe_progress() of the worker's engine.
 */
#ifndef UROM_GRAPH_HOST_H_
#define UROM_GRAPH_HOST_H_

#include <stdint.h>

#include <doca_error.h>
#include <doca_types.h>
#include <doca_urom.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The device-side plugin version this helper speaks to. */
#define UROM_GRAPH_VERSION 1

/* Command and notification types. */
#define UROM_GRAPH_CMD_LOOPBACK 0
/* Both the command and its answer are { u64 type; u64 data; }, little-endian. */
#define UROM_GRAPH_LOOPBACK_BYTES 16

/*
 * Called once per loopback: result is DOCA_SUCCESS and data the value the worker sent back, or the
 * failure (the task's status, or DOCA_ERROR_UNEXPECTED for an answer of the wrong length or type)
 * and data 0.
 */
typedef void (*urom_graph_loopback_finished)(doca_error_t result, union doca_data cookie, uint64_t data);

/*
 * Remembers the graph plugin's id (from the service's plugin list). DOCA_ERROR_UNSUPPORTED_VERSION
 * when the device-side version is not UROM_GRAPH_VERSION (the id is then left as it was);
 * DOCA_ERROR_INVALID_VALUE for id 0. The id is process-wide.
 */
doca_error_t urom_graph_init(uint64_t plugin_id, uint64_t version);

/*
 * Sends data to the worker's graph plugin and has cb called with its answer. DOCA_SUCCESS: cb will
 * be called exactly once. Otherwise cb is never called: DOCA_ERROR_INVALID_VALUE (NULL worker or cb),
 * DOCA_ERROR_BAD_STATE (urom_graph_init() not called, or the worker not RUNNING), or what allocating
 * or submitting the command task answered (DOCA_ERROR_AGAIN past the worker's in-flight limit).
 */
doca_error_t urom_graph_task_loopback(struct doca_urom_worker *worker_ctx, union doca_data cookie, uint64_t data,
				      urom_graph_loopback_finished cb);

#ifdef __cplusplus
}
#endif

#endif /* UROM_GRAPH_HOST_H_ */
