/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libdoca_common: progress engines.
 *
 * An engine owns a FIFO of events (core_internal.h) and delivers at most one per doca_pe_progress().
 * When the queue is empty it asks its contexts, round robin from where it stopped last, to move their
 * I/O (ops->progress) until one of them queues an event.
 *
 * Event mode: the notification handle is an epoll descriptor holding an eventfd, which the engine
 * signals while events are queued and the handle is armed, and the descriptors the contexts registered with
 * urom_pe_watch_fd() (level-triggered). doca_pe_request_notification() arms it and signals at once
 * if events are already queued (and drops a stale signal if none are); doca_pe_clear_notification()
 * disarms it and drains the eventfd. Unarmed, queuing an event costs no system call.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <doca_log.h>

#include "core_internal.h"

static void pe_signal(struct doca_pe *pe)
{
	uint64_t one = 1;

	if (pe->signalled || !pe->armed)
		return;
	/* Cannot fail short of a counter overflow, which clear_notification() keeps far away. */
	if (write(pe->event_fd, &one, sizeof(one)) == (ssize_t)sizeof(one))
		pe->signalled = true;
}

void urom_pe_enqueue(struct doca_pe *pe, struct urom_event *ev)
{
	ev->next = NULL;
	if (pe->tail != NULL)
		pe->tail->next = ev;
	else
		pe->head = ev;
	pe->tail = ev;
	pe_signal(pe);
}

void urom_pe_insert_after(struct doca_pe *pe, struct urom_event *after, struct urom_event *ev)
{
	if (after == NULL) {
		ev->next = pe->head;
		pe->head = ev;
	} else {
		ev->next = after->next;
		after->next = ev;
	}
	if (ev->next == NULL)
		pe->tail = ev;
	pe_signal(pe);
}

void urom_pe_unlink(struct doca_pe *pe, struct urom_event *prev, struct urom_event *ev)
{
	if (prev == NULL)
		pe->head = ev->next;
	else
		prev->next = ev->next;
	if (pe->tail == ev)
		pe->tail = prev;
	ev->next = NULL;
}

void urom_event_drop(struct urom_event *ev)
{
	if (ev->task != NULL) {
		struct doca_task *task = ev->task;

		ev->ctx = NULL;
		task->in_flight = false;
		if (task->ctx != NULL && task->ctx->inflight > 0)
			task->ctx->inflight--;
		return;
	}
	free(urom_event_transition(ev));
}

void urom_pe_detach_ctx(struct doca_pe *pe, struct doca_ctx *ctx)
{
	struct doca_ctx **link;
	struct urom_event *prev = NULL, *ev = pe->head;

	for (link = &pe->ctxs; *link != NULL; link = &(*link)->pe_next) {
		if (*link == ctx) {
			*link = ctx->pe_next;
			break;
		}
	}
	if (pe->cursor == ctx)
		pe->cursor = ctx->pe_next;
	ctx->pe_next = NULL;

	while (ev != NULL) {
		struct urom_event *next = ev->next;

		if (ev->ctx == ctx) {
			urom_pe_unlink(pe, prev, ev);
			urom_event_drop(ev);
		} else {
			prev = ev;
		}
		ev = next;
	}
}

DOCA_EXPERIMENTAL doca_error_t doca_pe_create(struct doca_pe **pe)
{
	struct epoll_event watch = {.events = EPOLLIN};
	struct doca_pe *p;

	if (pe == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*pe = NULL;
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return DOCA_ERROR_NO_MEMORY;
	p->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	p->event_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (p->epoll_fd < 0 || p->event_fd < 0) {
		urom_sdk_log(DOCA_LOG_LEVEL_ERROR, "DOCA::PE", "cannot create a progress engine's descriptors: %s",
			     strerror(errno));
		goto fail;
	}
	watch.data.fd = p->event_fd;
	if (epoll_ctl(p->epoll_fd, EPOLL_CTL_ADD, p->event_fd, &watch) != 0) {
		urom_sdk_log(DOCA_LOG_LEVEL_ERROR, "DOCA::PE", "cannot set up a progress engine's notification: %s",
			     strerror(errno));
		goto fail;
	}
	*pe = p;
	return DOCA_SUCCESS;

fail:
	if (p->epoll_fd >= 0)
		close(p->epoll_fd);
	if (p->event_fd >= 0)
		close(p->event_fd);
	free(p);
	return DOCA_ERROR_OPERATING_SYSTEM;
}

DOCA_EXPERIMENTAL doca_error_t doca_pe_destroy(struct doca_pe *pe)
{
	if (pe == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (pe->ctxs != NULL || pe->in_progress)
		return DOCA_ERROR_IN_USE;
	/* Only connected contexts queue events, and detaching one drops its events: nothing is left. */
	close(pe->epoll_fd);
	close(pe->event_fd);
	free(pe);
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t doca_pe_connect_ctx(struct doca_pe *pe, struct doca_ctx *ctx)
{
	struct doca_ctx **link;

	if (pe == NULL || ctx == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (ctx->pe != NULL)
		return DOCA_ERROR_ALREADY_EXIST;
	if (ctx->state != DOCA_CTX_STATE_IDLE)
		return DOCA_ERROR_BAD_STATE;
	for (link = &pe->ctxs; *link != NULL; link = &(*link)->pe_next)
		;
	*link = ctx;
	ctx->pe_next = NULL;
	ctx->pe = pe;
	return DOCA_SUCCESS;
}

/* Round robin over the contexts, one turn at most, until one queues an event. */
static void pe_poll_contexts(struct doca_pe *pe)
{
	struct doca_ctx *ctx;
	size_t count = 0, i;

	for (ctx = pe->ctxs; ctx != NULL; ctx = ctx->pe_next)
		count++;
	ctx = pe->cursor != NULL ? pe->cursor : pe->ctxs;
	for (i = 0; i < count && ctx != NULL && pe->head == NULL; i++) {
		struct doca_ctx *next = ctx->pe_next != NULL ? ctx->pe_next : pe->ctxs;

		pe->cursor = next;
		if (ctx->ops != NULL && ctx->ops->progress != NULL)
			(void)ctx->ops->progress(ctx);
		ctx = next;
	}
}

static void pe_deliver(struct urom_event *ev)
{
	if (ev->task != NULL) {
		struct doca_task *task = ev->task;

		ev->ctx = NULL;
		task->in_flight = false;
		if (task->ctx->inflight > 0)
			task->ctx->inflight--;
		/* May free or resubmit the task: nothing touches it afterwards. */
		if (task->complete != NULL)
			task->complete(task);
	} else {
		struct urom_transition *t = urom_event_transition(ev);
		struct doca_ctx *ctx = ev->ctx;
		enum doca_ctx_states prev = ev->prev_state, next = ev->next_state;
		doca_ctx_state_changed_callback_t cb;

		if (!t->applied)
			ctx->state = next;
		free(t);
		/* Read after the state is set: the callback may destroy the context. */
		cb = ctx->state_changed_cb;
		if (cb != NULL)
			cb(ctx->user_data, ctx, prev, next);
	}
}

DOCA_EXPERIMENTAL uint8_t doca_pe_progress(struct doca_pe *pe)
{
	struct urom_event *ev;

	if (pe == NULL)
		return 0;
	if (pe->in_progress) {
		urom_sdk_log(DOCA_LOG_LEVEL_ERROR, "DOCA::PE",
			     "doca_pe_progress() called from a callback of the same engine; ignored");
		return 0;
	}
	pe->in_progress = true;
	if (pe->head == NULL)
		pe_poll_contexts(pe);
	ev = pe->head;
	if (ev != NULL) {
		urom_pe_unlink(pe, NULL, ev);
		pe_deliver(ev);
	}
	pe->in_progress = false;
	return ev != NULL;
}

DOCA_EXPERIMENTAL doca_error_t doca_pe_get_num_inflight_tasks(const struct doca_pe *pe, size_t *num_inflight_tasks)
{
	const struct doca_ctx *ctx;
	size_t sum = 0;

	if (pe == NULL || num_inflight_tasks == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	for (ctx = pe->ctxs; ctx != NULL; ctx = ctx->pe_next)
		sum += ctx->inflight;
	*num_inflight_tasks = sum;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t doca_pe_get_notification_handle(const struct doca_pe *pe,
							       doca_notification_handle_t *handle)
{
	if (pe == NULL || handle == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*handle = pe->epoll_fd;
	return DOCA_SUCCESS;
}

static doca_error_t pe_drain(struct doca_pe *pe)
{
	uint64_t count;

	if (read(pe->event_fd, &count, sizeof(count)) < 0 && errno != EAGAIN && errno != EINTR)
		return DOCA_ERROR_OPERATING_SYSTEM;
	pe->signalled = false;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t doca_pe_request_notification(struct doca_pe *pe)
{
	if (pe == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	pe->armed = true;
	if (pe->head != NULL) {
		pe_signal(pe);
		return DOCA_SUCCESS;
	}
	/* Nothing queued: a signal left from events queued (and delivered) since the last clear would
	 * only wake the program for nothing. */
	return pe->signalled ? pe_drain(pe) : DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t doca_pe_clear_notification(struct doca_pe *pe, doca_notification_handle_t handle)
{
	if (pe == NULL || handle != pe->epoll_fd)
		return DOCA_ERROR_INVALID_VALUE;
	pe->armed = false;
	return pe->signalled ? pe_drain(pe) : DOCA_SUCCESS;
}

UROM_INTERNAL doca_error_t urom_pe_watch_fd(struct doca_pe *pe, int fd)
{
	struct epoll_event watch = {.events = EPOLLIN};

	if (pe == NULL || fd < 0 || fd == pe->event_fd || fd == pe->epoll_fd)
		return DOCA_ERROR_INVALID_VALUE;
	watch.data.fd = fd;
	if (epoll_ctl(pe->epoll_fd, EPOLL_CTL_ADD, fd, &watch) == 0)
		return DOCA_SUCCESS;
	if (errno == EEXIST)
		return DOCA_ERROR_ALREADY_EXIST;
	if (errno == EBADF || errno == EPERM)
		return DOCA_ERROR_INVALID_VALUE;
	if (errno == ENOMEM || errno == ENOSPC)
		return DOCA_ERROR_NO_MEMORY;
	return DOCA_ERROR_OPERATING_SYSTEM;
}

UROM_INTERNAL void urom_pe_unwatch_fd(struct doca_pe *pe, int fd)
{
	if (pe == NULL || fd < 0 || fd == pe->event_fd || fd == pe->epoll_fd)
		return;
	(void)epoll_ctl(pe->epoll_fd, EPOLL_CTL_DEL, fd, NULL);
}
