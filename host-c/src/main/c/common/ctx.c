/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libdoca_common: the context state machine.
 *
 * Two states matter: the one a program reads (ctx->state, changed when an event is delivered or when
 * the core changes it itself) and the one the implementation reported last (the last transition of
 * the context still queued, else ctx->state). The program's calls are judged on both: a start needs
 * the context IDLE in both senses; a stop is refused in IDLE, and only reaches ops->stop while the
 * implementation is STARTING or RUNNING (if it has already moved on to STOPPING or IDLE, the stop is
 * IN_PROGRESS: progress delivers the rest).
 *
 * When the core sets a state itself (start/stop SUCCESS: RUNNING/IDLE; IN_PROGRESS: STARTING/STOPPING)
 * it queues an applied transition, so that the callback still runs inside doca_pe_progress() and the
 * callbacks of a context always describe a chain prev -> next in order. Transitions the
 * implementation queued before that point become history (applied: their delivery no longer sets the
 * state); those it queued during the operation come after the core's own.
 */
#include <stdlib.h>
#include <string.h>

#include <doca_log.h>

#include "core_internal.h"

static struct urom_transition *transition_alloc(void)
{
	return calloc(1, sizeof(struct urom_transition));
}

/* The last transition of ctx queued after `from` (from the head when NULL), or NULL. */
static struct urom_event *last_transition(struct doca_pe *pe, struct doca_ctx *ctx, struct urom_event *from)
{
	struct urom_event *ev, *last = NULL;

	for (ev = from != NULL ? from->next : pe->head; ev != NULL; ev = ev->next)
		if (ev->ctx == ctx && ev->task == NULL)
			last = ev;
	return last;
}

UROM_INTERNAL enum doca_ctx_states urom_ctx_pending_state(const struct doca_ctx *ctx)
{
	struct urom_event *last;

	if (ctx == NULL)
		return DOCA_CTX_STATE_IDLE;
	if (ctx->pe == NULL)
		return ctx->state;
	last = last_transition(ctx->pe, (struct doca_ctx *)ctx, NULL);
	return last != NULL ? last->next_state : ctx->state;
}

UROM_INTERNAL void urom_ctx_init(struct doca_ctx *ctx, const struct urom_ctx_ops *ops)
{
	if (ctx == NULL)
		return;
	memset(ctx, 0, sizeof(*ctx));
	ctx->ops = ops;
	ctx->state = DOCA_CTX_STATE_IDLE;
}

UROM_INTERNAL void urom_ctx_fini(struct doca_ctx *ctx)
{
	if (ctx == NULL)
		return;
	if (ctx->pe != NULL)
		urom_pe_detach_ctx(ctx->pe, ctx);
	ctx->pe = NULL;
}

UROM_INTERNAL doca_error_t urom_ctx_transition(struct doca_ctx *ctx, enum doca_ctx_states next)
{
	struct urom_transition *t;
	enum doca_ctx_states prev;

	if (ctx == NULL || next > DOCA_CTX_STATE_STOPPING)
		return DOCA_ERROR_INVALID_VALUE;
	prev = urom_ctx_pending_state(ctx);
	if (prev == next)
		return DOCA_SUCCESS;
	if (ctx->pe == NULL) {
		/* Not connected: nobody can be told, the state simply is. */
		ctx->state = next;
		return DOCA_SUCCESS;
	}
	t = transition_alloc();
	if (t == NULL)
		return DOCA_ERROR_NO_MEMORY;
	t->ev.ctx = ctx;
	t->ev.prev_state = prev;
	t->ev.next_state = next;
	urom_pe_enqueue(ctx->pe, &t->ev);
	return DOCA_SUCCESS;
}

/* Transitions of ctx queued up to and including `until` are history now (none when until is NULL, all
 * when it is the tail). */
static void make_history(struct doca_pe *pe, struct doca_ctx *ctx, struct urom_event *until)
{
	struct urom_event *ev;

	if (until == NULL)
		return;
	for (ev = pe->head; ev != NULL; ev = ev->next) {
		if (ev->ctx == ctx && ev->task == NULL)
			urom_event_transition(ev)->applied = true;
		if (ev == until)
			break;
	}
}

/* Drops the transitions of ctx queued after `mark` (an operation that failed). */
static void drop_transitions_after(struct doca_pe *pe, struct doca_ctx *ctx, struct urom_event *mark)
{
	struct urom_event *prev = mark, *ev = mark != NULL ? mark->next : pe->head;

	while (ev != NULL) {
		struct urom_event *next = ev->next;

		if (ev->ctx == ctx && ev->task == NULL) {
			urom_pe_unlink(pe, prev, ev);
			urom_event_drop(ev);
		} else {
			prev = ev;
		}
		ev = next;
	}
}

/* ops->start / ops->stop finished synchronously: the state is `final` now. */
static void settle_now(struct doca_ctx *ctx, struct urom_transition *t, enum doca_ctx_states before,
		       enum doca_ctx_states final)
{
	struct doca_pe *pe = ctx->pe;
	enum doca_ctx_states reported = urom_ctx_pending_state(ctx);

	make_history(pe, ctx, pe->tail);
	ctx->state = final;
	if (reported == final && last_transition(pe, ctx, NULL) != NULL) {
		/* The implementation reported it already (during the operation): its event says it. */
		free(t);
		return;
	}
	t->ev.ctx = ctx;
	t->ev.prev_state = reported != final ? reported : before;
	t->ev.next_state = final;
	t->applied = true;
	urom_pe_enqueue(pe, &t->ev);
}

/* ops->start / ops->stop is in progress: the state is `interim` now, and what the implementation
 * reported during the operation (after `mark`) follows it. */
static void settle_interim(struct doca_ctx *ctx, struct urom_transition *t, struct urom_event *mark,
			   enum doca_ctx_states before, enum doca_ctx_states interim)
{
	struct doca_pe *pe = ctx->pe;
	struct urom_event *ev, *first = NULL;

	make_history(pe, ctx, mark);
	for (ev = mark != NULL ? mark->next : pe->head; ev != NULL; ev = ev->next) {
		if (ev->ctx == ctx && ev->task == NULL) {
			first = ev;
			break;
		}
	}
	ctx->state = interim;
	if (first != NULL && first->next_state == interim) {
		/* The implementation reported the interim state itself. */
		urom_event_transition(first)->applied = true;
		first->prev_state = before;
		free(t);
		return;
	}
	if (first != NULL)
		first->prev_state = interim;
	t->ev.ctx = ctx;
	t->ev.prev_state = before;
	t->ev.next_state = interim;
	t->applied = true;
	urom_pe_insert_after(pe, mark, &t->ev);
}

DOCA_EXPERIMENTAL doca_error_t doca_ctx_start(struct doca_ctx *ctx)
{
	struct urom_transition *t;
	struct urom_event *mark;
	doca_error_t result;

	if (ctx == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (ctx->pe == NULL)
		return DOCA_ERROR_NOT_CONNECTED;
	if (ctx->state != DOCA_CTX_STATE_IDLE || urom_ctx_pending_state(ctx) != DOCA_CTX_STATE_IDLE)
		return DOCA_ERROR_BAD_STATE;
	if (ctx->ops == NULL || ctx->ops->start == NULL)
		return DOCA_ERROR_NOT_SUPPORTED;
	t = transition_alloc();
	if (t == NULL)
		return DOCA_ERROR_NO_MEMORY;
	mark = ctx->pe->tail;
	result = ctx->ops->start(ctx);
	if (result == DOCA_SUCCESS) {
		settle_now(ctx, t, DOCA_CTX_STATE_IDLE, DOCA_CTX_STATE_RUNNING);
	} else if (result == DOCA_ERROR_IN_PROGRESS) {
		settle_interim(ctx, t, mark, DOCA_CTX_STATE_IDLE, DOCA_CTX_STATE_STARTING);
	} else {
		drop_transitions_after(ctx->pe, ctx, mark);
		free(t);
	}
	return result;
}

DOCA_EXPERIMENTAL doca_error_t doca_ctx_stop(struct doca_ctx *ctx)
{
	enum doca_ctx_states reported;
	struct urom_transition *t;
	struct urom_event *mark;
	doca_error_t result;

	if (ctx == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (ctx->state == DOCA_CTX_STATE_IDLE || ctx->pe == NULL)
		return DOCA_ERROR_BAD_STATE;
	reported = urom_ctx_pending_state(ctx);
	if (ctx->state == DOCA_CTX_STATE_STOPPING || reported == DOCA_CTX_STATE_STOPPING ||
	    reported == DOCA_CTX_STATE_IDLE)
		return DOCA_ERROR_IN_PROGRESS;
	if (ctx->ops == NULL || ctx->ops->stop == NULL)
		return DOCA_ERROR_NOT_SUPPORTED;
	t = transition_alloc();
	if (t == NULL)
		return DOCA_ERROR_NO_MEMORY;
	mark = ctx->pe->tail;
	result = ctx->ops->stop(ctx);
	if (result == DOCA_SUCCESS) {
		settle_now(ctx, t, reported, DOCA_CTX_STATE_IDLE);
	} else if (result == DOCA_ERROR_IN_PROGRESS) {
		settle_interim(ctx, t, mark, reported, DOCA_CTX_STATE_STOPPING);
	} else {
		drop_transitions_after(ctx->pe, ctx, mark);
		free(t);
	}
	return result;
}

DOCA_EXPERIMENTAL doca_error_t doca_ctx_get_state(const struct doca_ctx *ctx, enum doca_ctx_states *state)
{
	if (ctx == NULL || state == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*state = ctx->state;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t doca_ctx_set_user_data(struct doca_ctx *ctx, union doca_data user_data)
{
	if (ctx == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	ctx->user_data = user_data;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t doca_ctx_get_user_data(const struct doca_ctx *ctx, union doca_data *user_data)
{
	if (ctx == NULL || user_data == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*user_data = ctx->user_data;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t doca_ctx_set_state_changed_cb(struct doca_ctx *ctx, doca_ctx_state_changed_callback_t cb)
{
	if (ctx == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	ctx->state_changed_cb = cb;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t doca_ctx_get_num_inflight_tasks(const struct doca_ctx *ctx, size_t *num_inflight_tasks)
{
	if (ctx == NULL || num_inflight_tasks == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*num_inflight_tasks = ctx->inflight;
	return DOCA_SUCCESS;
}
