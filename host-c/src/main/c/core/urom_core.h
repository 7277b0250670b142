/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom-java host library, internal: the contract between DOCA Core (libdoca_common: progress
 * engines, contexts, tasks, buffers) and the objects built on it (libdoca_urom: service, worker,
 * domain). Not installed; programs see only the opaque types of the public headers.
 *
 * A context implementation embeds struct doca_ctx, fills its ops and reports to the core:
 *  - urom_ctx_transition() for every state change it makes inside ops->progress (or inside
 *    ops->start / ops->stop when they complete synchronously): the state a program reads with
 *    doca_ctx_get_state() changes when doca_pe_progress() delivers the transition, which then calls
 *    the state-changed callback and counts as the one event of that call. A synchronous start or
 *    stop (ops returns SUCCESS) changes the state at once instead; its callback is still delivered
 *    by the next doca_pe_progress().
 *  - urom_task_complete() when a task it accepted is done: the completion is delivered, in order,
 *    by doca_pe_progress(), which then calls task->complete (the owner's typed callback wrapper).
 * doca_pe_progress() first delivers a queued event if there is one; otherwise it calls
 * ops->progress of each connected context (round robin) until one queues an event, and delivers it.
 *
 * Nothing here is thread-safe: a PE, its contexts and their tasks are used from one thread at a
 * time. An implementation that shares state between engines (the service's control connection,
 * used by workers on other threads) locks it itself and queues events only on its own engine from
 * its own ops->progress.
 */
#ifndef UROM_CORE_H_
#define UROM_CORE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_buf.h>
#include <doca_ctx.h>
#include <doca_error.h>
#include <doca_pe.h>
#include <doca_types.h>

/* Shared by libdoca_common and libdoca_urom, so exported; no program may rely on them. */
#define UROM_INTERNAL __attribute__((visibility("default")))

struct urom_event;

struct urom_ctx_ops {
	/* For log lines: "service", "worker", "domain". */
	const char *name;
	/* Called in IDLE on a connected context. SUCCESS: now RUNNING (set by the core);
	 * IN_PROGRESS: STARTING (set by the core), the implementation later reports RUNNING or IDLE. */
	doca_error_t (*start)(struct doca_ctx *ctx);
	/* Called in STARTING or RUNNING. SUCCESS: now IDLE (set by the core); IN_PROGRESS: STOPPING (set
	 * by the core), the implementation later reports IDLE. Tasks in flight must have been completed
	 * (with an error status) by the time it reports IDLE. */
	doca_error_t (*stop)(struct doca_ctx *ctx);
	/* Moves I/O without blocking for long; may queue events. Returns non-zero if it did anything. */
	int (*progress)(struct doca_ctx *ctx);
	/* Called only in RUNNING. SUCCESS: accepted, urom_task_complete() follows; anything else:
	 * refused, nothing follows. */
	doca_error_t (*submit)(struct doca_task *task);
	/* Releases a task of this context that is not in flight (doca_task_free). */
	void (*task_free)(struct doca_task *task);
};

/* A queued event; owned by the core once queued. */
struct urom_event {
	struct urom_event *next;
	struct doca_ctx *ctx;
	/* Task completion when non-NULL; a state transition otherwise. */
	struct doca_task *task;
	enum doca_ctx_states prev_state;
	enum doca_ctx_states next_state;
};

struct doca_ctx {
	const struct urom_ctx_ops *ops;
	enum doca_ctx_states state;
	struct doca_pe *pe;
	union doca_data user_data;
	doca_ctx_state_changed_callback_t state_changed_cb;
	/* Tasks accepted and not yet delivered; maintained by the core. */
	size_t inflight;
	/* The engine's list of connected contexts. */
	struct doca_ctx *pe_next;
};

struct doca_task {
	struct doca_ctx *ctx;
	doca_error_t status;
	union doca_data user_data;
	/* Called by doca_pe_progress() on delivery; it may release the task. */
	void (*complete)(struct doca_task *task);
	/* Between submit and delivery. */
	bool in_flight;
	/* The completion event, embedded so that completing a task never allocates. */
	struct urom_event event;
};

struct doca_buf {
	uint8_t *head;
	size_t len;
	uint8_t *data;
	size_t data_len;
	uint16_t refcount;
};

/* Contexts. */
UROM_INTERNAL void urom_ctx_init(struct doca_ctx *ctx, const struct urom_ctx_ops *ops);
/* Detaches the context from its engine and drops its queued events (destroy). */
UROM_INTERNAL void urom_ctx_fini(struct doca_ctx *ctx);
/* Queues a state change for delivery (see above). NO_MEMORY if it could not be queued. */
UROM_INTERNAL doca_error_t urom_ctx_transition(struct doca_ctx *ctx, enum doca_ctx_states next);
/* The state the implementation has reported last, delivered or not. */
UROM_INTERNAL enum doca_ctx_states urom_ctx_pending_state(const struct doca_ctx *ctx);

/* Tasks. */
UROM_INTERNAL void urom_task_init(struct doca_task *task, struct doca_ctx *ctx, void (*complete)(struct doca_task *));
UROM_INTERNAL void urom_task_complete(struct doca_task *task, doca_error_t status);

/* Engines: the file descriptors whose readiness means "progress has work" for event mode. */
UROM_INTERNAL doca_error_t urom_pe_watch_fd(struct doca_pe *pe, int fd);
UROM_INTERNAL void urom_pe_unwatch_fd(struct doca_pe *pe, int fd);

/* Buffers embedded in tasks: [mem, mem + capacity), data = head, data_len = capacity, refcount 1. */
UROM_INTERNAL void urom_buf_init(struct doca_buf *buf, void *mem, size_t capacity);

/* The library's own log lines ("SDK" messages), filtered by the SDK level of each backend. */
UROM_INTERNAL void urom_sdk_log(int level, const char *source, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Devices: the daemon a device stands for (DOCA_UROM_SERVICE_FILE), "unix:PATH" or "tcp:HOST:PORT". */
UROM_INTERNAL const char *urom_dev_service_address(const struct doca_dev *dev);

#endif /* UROM_CORE_H_ */
