/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libdoca_common, private to the files of common/: the progress engine's layout and its event queue, shared by
 * pe.c (engines, delivery), ctx.c (the state machine) and task.c (submission, completion).
 *
 * The queue holds two kinds of events (struct urom_event of urom_core.h): task completions, embedded
 * in their task (ev->task != NULL), and state transitions, allocated here as struct urom_transition
 * (ev->task == NULL). A transition is "applied" when the core has already set the context's state
 * itself (a synchronous start or stop, or the STARTING / STOPPING the core sets when an operation is
 * in progress): delivering it then only calls the callback. A transition the implementation reported
 * is not applied: delivering it sets the state, then calls the callback.
 *
 * A task's embedded event is queued exactly when its ev.ctx is non-NULL.
 */
#ifndef UROM_CORE_INTERNAL_H_
#define UROM_CORE_INTERNAL_H_

#include <stdbool.h>

#include "urom_core.h"

struct urom_transition {
	struct urom_event ev;
	bool applied;
};

struct doca_pe {
	/* Connected contexts (linked by pe_next) and the one whose ops->progress runs next. */
	struct doca_ctx *ctxs;
	struct doca_ctx *cursor;
	/* Events in delivery order. */
	struct urom_event *head;
	struct urom_event *tail;
	/* The notification handle (epoll) and the eventfd in it that stands for "events are queued". */
	int epoll_fd;
	int event_fd;
	/* Between doca_pe_request_notification() and doca_pe_clear_notification(): only then does a
	 * queued event write the eventfd (a program that polls pays no system call for it). */
	bool armed;
	bool signalled;
	/* Inside doca_pe_progress(): callbacks must not progress again, nor destroy the engine. */
	bool in_progress;
};

static inline struct urom_transition *urom_event_transition(struct urom_event *ev)
{
	return (struct urom_transition *)((char *)ev - offsetof(struct urom_transition, ev));
}

/* Appends an event and signals the notification handle. */
void urom_pe_enqueue(struct doca_pe *pe, struct urom_event *ev);
/* Puts an event right after `after` (at the head when NULL). */
void urom_pe_insert_after(struct doca_pe *pe, struct urom_event *after, struct urom_event *ev);
/* Unlinks an event; prev is the event before it (NULL for the head). */
void urom_pe_unlink(struct doca_pe *pe, struct urom_event *prev, struct urom_event *ev);
/* Takes the context off the engine: out of its list and, with its queued events, out of its queue. */
void urom_pe_detach_ctx(struct doca_pe *pe, struct doca_ctx *ctx);
/* Drops a queued event (frees a transition, marks a task as no longer in flight). */
void urom_event_drop(struct urom_event *ev);

#endif /* UROM_CORE_INTERNAL_H_ */
