/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom-java: the sandbox plugin's C host helper, for programs built on DOCA UROM's host API
 * (doca_urom.h). It speaks the command and notification bytes of urom-java's sandbox plugins
 * (docs/sandbox-protocol.md): MEM_MAP of a shared-memory file, TAG_SEND and TAG_RECV between the
 * workers of one domain, with the data inline (memh_id 0) or in a mapped region.
 *
 * The calls are shaped like those of DOCA's sample helper, with two differences that follow from
 * the plugin's bytes: MEM_MAP takes a file's path and length instead of UCX memory-map parameters,
 * and every status handed to a callback is a doca_error_t (the plugin answers DOCA codes).
 *
 * Each call allocates a command task on the worker, submits it and returns; its callback runs once,
 * inside doca_pe_progress() of the worker's engine, with:
 *   result  the task's outcome: DOCA_SUCCESS, the status of a command the plugin refused or failed,
 *           or DOCA_ERROR_UNEXPECTED for an answer that is not what the protocol says (wrong length,
 *           type or context);
 *   context the value given to the call (the command's context, echoed by the plugin);
 *   status  (send, receive) the status inside the plugin's answer; the same as result when the
 *           plugin answered without one (a refused command) or the answer was malformed.
 * A call that does not return DOCA_SUCCESS never calls its callback.
 */
#ifndef UROM_SANDBOX_HOST_H_
#define UROM_SANDBOX_HOST_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_error.h>
#include <doca_types.h>
#include <doca_urom.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The device-side plugin version this helper speaks to. */
#define UROM_SANDBOX_VERSION 1

/* Command and notification types (u64, first in every command and answer). */
#define UROM_SANDBOX_MEM_MAP 0
#define UROM_SANDBOX_TAG_SEND 1
#define UROM_SANDBOX_TAG_RECV 2

/* Sizes of the fixed parts. */
#define UROM_SANDBOX_MEM_MAP_CMD_BYTES 32
#define UROM_SANDBOX_TAG_CMD_BYTES 56
#define UROM_SANDBOX_MEM_MAP_NOTIF_BYTES 24
#define UROM_SANDBOX_TAG_SEND_NOTIF_BYTES 24
#define UROM_SANDBOX_TAG_RECV_NOTIF_BYTES 48

typedef void (*urom_sandbox_send_finished)(doca_error_t result, union doca_data cookie, union doca_data context,
					   doca_error_t status);

/*
 * buffer: for an inline receive that succeeded, the program's buffer, now holding the count bytes
 * received; NULL otherwise (a region receive: the bytes are in the region). sender_tag: the
 * matched message's tag (also on TOO_BIG).
 */
typedef void (*urom_sandbox_recv_finished)(doca_error_t result, union doca_data cookie, union doca_data context,
					   void *buffer, uint64_t count, uint64_t sender_tag, doca_error_t status);

/* memh_id: the region's id for later sends and receives (never 0 on success, 0 on failure). */
typedef void (*urom_sandbox_mem_map_finished)(doca_error_t result, union doca_data cookie, union doca_data context,
					      uint64_t memh_id);

/*
 * Remembers the sandbox plugin's id (from the service's plugin list). DOCA_ERROR_UNSUPPORTED_VERSION
 * when the device-side version is not UROM_SANDBOX_VERSION (the id is then left as it was);
 * DOCA_ERROR_INVALID_VALUE for id 0. The id is process-wide.
 */
doca_error_t urom_sandbox_init(uint64_t plugin_id, uint64_t version);

/*
 * Sends count bytes to the worker of domain id dest with tag. memh_id 0: the bytes are those at the
 * host pointer buffer (cast to uint64_t), copied into the command now; otherwise buffer is the
 * offset of the bytes in region memh_id. DOCA_ERROR_TOO_BIG when the command (56 bytes plus the
 * inline bytes) does not fit the task's payload.
 */
doca_error_t urom_sandbox_tag_task_send(struct doca_urom_worker *worker_ctx, union doca_data cookie,
					union doca_data context, uint64_t dest, uint64_t buffer, uint64_t count,
					uint64_t tag, uint64_t memh_id, urom_sandbox_send_finished cb);

/*
 * Receives one message whose tag t matches (t & tag_mask) == (tag & tag_mask), of at most count
 * bytes (a longer one is consumed and answered DOCA_ERROR_TOO_BIG). memh_id 0: the bytes are copied
 * into the host pointer buffer (count bytes of room) before cb runs; otherwise buffer is the offset
 * in region memh_id where the worker writes them.
 */
doca_error_t urom_sandbox_tag_task_recv(struct doca_urom_worker *worker_ctx, union doca_data cookie,
					union doca_data context, uint64_t buffer, uint64_t count, uint64_t tag,
					uint64_t tag_mask, uint64_t memh_id, urom_sandbox_recv_finished cb);

/*
 * Has the worker map length bytes of the file at path (a regular file under /dev/shm or a hugetlbfs
 * mount that the worker may read and write: docs/sandbox-protocol.md, MEM_MAP). DOCA_ERROR_TOO_BIG
 * when the command (32 bytes plus the path) does not fit the task's payload.
 */
doca_error_t urom_sandbox_task_mem_map(struct doca_urom_worker *worker_ctx, union doca_data cookie,
				       union doca_data context, const char *path, uint64_t length,
				       urom_sandbox_mem_map_finished cb);

#ifdef __cplusplus
}
#endif

#endif /* UROM_SANDBOX_HOST_H_ */
