/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom-java: DOCA Core progress engines and tasks.
 *
 * A progress engine (PE) drives the contexts connected to it. doca_pe_progress() handles at most one
 * event (a task completion or a context state change), calls its callback, and returns 1 if it did,
 * 0 otherwise; it never blocks. Callbacks run only inside it and must not call it. A PE and its
 * contexts are used from one thread at a time.
 *
 * Event mode: doca_pe_get_notification_handle() gives a file descriptor to poll or epoll;
 * doca_pe_request_notification() arms it (it becomes readable when progress has work, at once if
 * it has some already), doca_pe_clear_notification() disarms it before the program progresses.
 */
#ifndef DOCA_PE_H_
#define DOCA_PE_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_pe;
struct doca_ctx;
struct doca_task;

typedef void (*doca_task_completion_cb_t)(struct doca_task *task, union doca_data task_user_data,
					  union doca_data ctx_user_data);

DOCA_EXPERIMENTAL doca_error_t doca_pe_create(struct doca_pe **pe);
/* IN_USE while a context is still connected to it. */
DOCA_EXPERIMENTAL doca_error_t doca_pe_destroy(struct doca_pe *pe);
/* The context must be IDLE and connected to no engine (else BAD_STATE / ALREADY_EXIST). */
DOCA_EXPERIMENTAL doca_error_t doca_pe_connect_ctx(struct doca_pe *pe, struct doca_ctx *ctx);
DOCA_EXPERIMENTAL uint8_t doca_pe_progress(struct doca_pe *pe);
DOCA_EXPERIMENTAL doca_error_t doca_pe_get_num_inflight_tasks(const struct doca_pe *pe, size_t *num_inflight_tasks);

DOCA_EXPERIMENTAL doca_error_t doca_pe_get_notification_handle(const struct doca_pe *pe,
							       doca_notification_handle_t *handle);
DOCA_EXPERIMENTAL doca_error_t doca_pe_request_notification(struct doca_pe *pe);
DOCA_EXPERIMENTAL doca_error_t doca_pe_clear_notification(struct doca_pe *pe, doca_notification_handle_t handle);

/* BAD_STATE unless the task's context is RUNNING; AGAIN when it takes no more tasks now. */
DOCA_EXPERIMENTAL doca_error_t doca_task_submit(struct doca_task *task);
DOCA_EXPERIMENTAL doca_error_t doca_task_try_submit(struct doca_task *task);
/* Releases a task that is not in flight, whatever its type. */
DOCA_EXPERIMENTAL void doca_task_free(struct doca_task *task);
DOCA_EXPERIMENTAL doca_error_t doca_task_get_status(const struct doca_task *task);
DOCA_EXPERIMENTAL void doca_task_set_user_data(struct doca_task *task, union doca_data user_data);
DOCA_EXPERIMENTAL union doca_data doca_task_get_user_data(const struct doca_task *task);
DOCA_EXPERIMENTAL struct doca_ctx *doca_task_get_ctx(const struct doca_task *task);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_PE_H_ */
