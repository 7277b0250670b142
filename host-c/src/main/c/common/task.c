/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libdoca_common: tasks. A task is submitted to its context (ops->submit, only while RUNNING) and, once
 * the implementation completes it (urom_task_complete), handed back to its owner by doca_pe_progress()
 * in completion order. A task is "in flight" from its accepted submission until that delivery; only
 * then may it be freed or submitted again.
 */
#include <string.h>

#include <doca_log.h>

#include "core_internal.h"

UROM_INTERNAL void urom_task_init(struct doca_task *task, struct doca_ctx *ctx, void (*complete)(struct doca_task *))
{
	if (task == NULL)
		return;
	memset(task, 0, sizeof(*task));
	task->ctx = ctx;
	task->complete = complete;
	task->status = DOCA_SUCCESS;
}

UROM_INTERNAL void urom_task_complete(struct doca_task *task, doca_error_t status)
{
	struct doca_ctx *ctx;

	if (task == NULL)
		return;
	ctx = task->ctx;
	if (!task->in_flight || task->event.ctx != NULL || ctx == NULL || ctx->pe == NULL) {
		urom_sdk_log(DOCA_LOG_LEVEL_ERROR, "DOCA::TASK",
			     "a %s task was completed while not in flight (or twice); ignored",
			     ctx != NULL && ctx->ops != NULL && ctx->ops->name != NULL ? ctx->ops->name : "context's");
		return;
	}
	task->status = status;
	task->event.ctx = ctx;
	task->event.task = task;
	urom_pe_enqueue(ctx->pe, &task->event);
}

static doca_error_t task_submit(struct doca_task *task)
{
	struct doca_ctx *ctx;
	doca_error_t result;

	if (task == NULL || task->ctx == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	ctx = task->ctx;
	if (ctx->state != DOCA_CTX_STATE_RUNNING || urom_ctx_pending_state(ctx) != DOCA_CTX_STATE_RUNNING)
		return DOCA_ERROR_BAD_STATE;
	if (task->in_flight)
		return DOCA_ERROR_BAD_STATE;
	if (ctx->ops == NULL || ctx->ops->submit == NULL)
		return DOCA_ERROR_NOT_SUPPORTED;
	/* In flight before ops->submit, so that an implementation may complete it from there. */
	task->in_flight = true;
	task->status = DOCA_SUCCESS;
	ctx->inflight++;
	result = ctx->ops->submit(task);
	if (result != DOCA_SUCCESS && task->event.ctx == NULL) {
		task->in_flight = false;
		ctx->inflight--;
	}
	return result;
}

DOCA_EXPERIMENTAL doca_error_t doca_task_submit(struct doca_task *task)
{
	return task_submit(task);
}

DOCA_EXPERIMENTAL doca_error_t doca_task_try_submit(struct doca_task *task)
{
	return task_submit(task);
}

DOCA_EXPERIMENTAL void doca_task_free(struct doca_task *task)
{
	if (task == NULL)
		return;
	if (task->in_flight) {
		urom_sdk_log(DOCA_LOG_LEVEL_ERROR, "DOCA::TASK", "doca_task_free() of a task in flight; ignored");
		return;
	}
	if (task->ctx != NULL && task->ctx->ops != NULL && task->ctx->ops->task_free != NULL)
		task->ctx->ops->task_free(task);
}

DOCA_EXPERIMENTAL doca_error_t doca_task_get_status(const struct doca_task *task)
{
	if (task == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	return task->status;
}

DOCA_EXPERIMENTAL void doca_task_set_user_data(struct doca_task *task, union doca_data user_data)
{
	if (task != NULL)
		task->user_data = user_data;
}

DOCA_EXPERIMENTAL union doca_data doca_task_get_user_data(const struct doca_task *task)
{
	union doca_data none = {.u64 = 0};

	return task != NULL ? task->user_data : none;
}

DOCA_EXPERIMENTAL struct doca_ctx *doca_task_get_ctx(const struct doca_task *task)
{
	return task != NULL ? task->ctx : NULL;
}
