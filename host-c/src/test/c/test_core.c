/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libdoca_common's core: progress engines, the context state machine and tasks (against a fake context
 * implementation written here), and buffers.
 */
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <doca_buf.h>
#include <doca_ctx.h>
#include <doca_pe.h>

#include "urom_core.h"

/* ---- a fake context ---- */

#define FAKE_MAX 8

struct fake {
	struct doca_ctx ctx;
	doca_error_t start_result;
	doca_error_t stop_result;
	doca_error_t submit_result;
	int start_calls, stop_calls, submit_calls, progress_calls, task_free_calls;
	/* What the next ops->progress reports: these states, in order, then these task completions. */
	enum doca_ctx_states reports[FAKE_MAX];
	size_t n_reports;
	struct doca_task *completions[FAKE_MAX];
	size_t n_completions;
	doca_error_t completion_status;
	/* Complete at most this many tasks per ops->progress (0: all). */
	size_t completions_per_call;
	/* Tasks accepted by ops->submit, in order. */
	struct doca_task *accepted[FAKE_MAX];
	size_t n_accepted;
};

static struct fake *fake_of(struct doca_ctx *ctx)
{
	return (struct fake *)ctx;
}

static doca_error_t fake_start(struct doca_ctx *ctx)
{
	fake_of(ctx)->start_calls++;
	return fake_of(ctx)->start_result;
}

static doca_error_t fake_stop(struct doca_ctx *ctx)
{
	fake_of(ctx)->stop_calls++;
	return fake_of(ctx)->stop_result;
}

static int fake_progress(struct doca_ctx *ctx)
{
	struct fake *f = fake_of(ctx);
	size_t i, n;
	int did = 0;

	f->progress_calls++;
	for (i = 0; i < f->n_reports; i++)
		assert_int_equal(urom_ctx_transition(ctx, f->reports[i]), DOCA_SUCCESS);
	did |= f->n_reports > 0;
	f->n_reports = 0;
	n = f->completions_per_call != 0 && f->completions_per_call < f->n_completions ? f->completions_per_call
										       : f->n_completions;
	for (i = 0; i < n; i++)
		urom_task_complete(f->completions[i], f->completion_status);
	memmove(f->completions, f->completions + n, (f->n_completions - n) * sizeof(f->completions[0]));
	f->n_completions -= n;
	did |= n > 0;
	return did;
}

static doca_error_t fake_submit(struct doca_task *task)
{
	struct fake *f = fake_of(task->ctx);

	f->submit_calls++;
	if (f->submit_result == DOCA_SUCCESS && f->n_accepted < FAKE_MAX)
		f->accepted[f->n_accepted++] = task;
	return f->submit_result;
}

struct fake_task {
	struct doca_task task;
	int id;
	bool free_in_callback;
};

static int completed_ids[32];
static size_t n_completed;
static doca_error_t completed_status[32];

static void fake_task_free(struct doca_task *task)
{
	fake_of(task->ctx)->task_free_calls++;
	free(task);
}

static void fake_task_complete(struct doca_task *task)
{
	struct fake_task *t = (struct fake_task *)task;

	if (n_completed < 32) {
		completed_status[n_completed] = doca_task_get_status(task);
		completed_ids[n_completed++] = t->id;
	}
	if (t->free_in_callback)
		doca_task_free(task);
}

static const struct urom_ctx_ops fake_ops = {
	.name = "fake",
	.start = fake_start,
	.stop = fake_stop,
	.progress = fake_progress,
	.submit = fake_submit,
	.task_free = fake_task_free,
};

static struct fake_task *task_new(struct fake *f, int id)
{
	struct fake_task *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	urom_task_init(&t->task, &f->ctx, fake_task_complete);
	t->id = id;
	return t;
}

/* ---- state callbacks, which must run only inside doca_pe_progress() ---- */

static bool inside_progress;
static struct {
	struct doca_ctx *ctx;
	enum doca_ctx_states prev, next, state_seen;
	uint64_t user;
} changes[32];
static size_t n_changes;
static struct doca_pe *reentry_pe;
static uint8_t reentry_result;

static void on_state(const union doca_data user_data, struct doca_ctx *ctx, enum doca_ctx_states prev,
		     enum doca_ctx_states next)
{
	assert_true(inside_progress);
	if (n_changes < 32) {
		changes[n_changes].ctx = ctx;
		changes[n_changes].prev = prev;
		changes[n_changes].next = next;
		assert_int_equal(doca_ctx_get_state(ctx, &changes[n_changes].state_seen), DOCA_SUCCESS);
		changes[n_changes].user = user_data.u64;
		n_changes++;
	}
	if (reentry_pe != NULL)
		reentry_result = doca_pe_progress(reentry_pe);
}

static uint8_t progress(struct doca_pe *pe)
{
	uint8_t r;

	inside_progress = true;
	r = doca_pe_progress(pe);
	inside_progress = false;
	return r;
}

static enum doca_ctx_states state_of(struct fake *f)
{
	enum doca_ctx_states s;

	assert_int_equal(doca_ctx_get_state(&f->ctx, &s), DOCA_SUCCESS);
	return s;
}

struct env {
	struct doca_pe *pe;
	struct fake f;
};

static int setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));

	assert_non_null(e);
	assert_int_equal(doca_pe_create(&e->pe), DOCA_SUCCESS);
	urom_ctx_init(&e->f.ctx, &fake_ops);
	assert_int_equal(doca_ctx_set_state_changed_cb(&e->f.ctx, on_state), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(e->pe, &e->f.ctx), DOCA_SUCCESS);
	e->f.start_result = DOCA_ERROR_IN_PROGRESS;
	e->f.stop_result = DOCA_ERROR_IN_PROGRESS;
	n_changes = 0;
	n_completed = 0;
	reentry_pe = NULL;
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;

	urom_ctx_fini(&e->f.ctx);
	assert_int_equal(doca_pe_destroy(e->pe), DOCA_SUCCESS);
	free(e);
	return 0;
}

/* Starts asynchronously and delivers everything up to RUNNING. */
static void make_running(struct env *e)
{
	e->f.start_result = DOCA_ERROR_IN_PROGRESS;
	assert_int_equal(doca_ctx_start(&e->f.ctx), DOCA_ERROR_IN_PROGRESS);
	e->f.reports[e->f.n_reports++] = DOCA_CTX_STATE_RUNNING;
	while (progress(e->pe))
		;
	assert_int_equal(state_of(&e->f), DOCA_CTX_STATE_RUNNING);
	n_changes = 0;
}

/* ---- engines ---- */

static void test_pe_create_destroy_null(void **state)
{
	struct doca_pe *pe;
	doca_notification_handle_t h;
	size_t n;

	(void)state;
	assert_int_equal(doca_pe_create(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_pe_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_pe_progress(NULL), 0);
	assert_int_equal(doca_pe_create(&pe), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(pe, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_pe_get_num_inflight_tasks(pe, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_pe_get_num_inflight_tasks(NULL, &n), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_pe_get_notification_handle(NULL, &h), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_pe_get_notification_handle(pe, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_pe_request_notification(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_pe_clear_notification(NULL, 0), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_pe_get_num_inflight_tasks(pe, &n), DOCA_SUCCESS);
	assert_int_equal(n, 0);
	assert_int_equal(doca_pe_progress(pe), 0);
	assert_int_equal(doca_pe_destroy(pe), DOCA_SUCCESS);
}

static void test_progress_idle_is_zero(void **state)
{
	struct env *e = *state;

	assert_int_equal(progress(e->pe), 0);
	assert_int_equal(progress(e->pe), 0);
	assert_true(e->f.progress_calls >= 1);
	assert_int_equal(n_changes, 0);
	assert_int_equal(state_of(&e->f), DOCA_CTX_STATE_IDLE);
}

static void test_pe_destroy_in_use(void **state)
{
	struct env *e = *state;
	struct doca_pe *other;

	assert_int_equal(doca_pe_destroy(e->pe), DOCA_ERROR_IN_USE);
	/* A context is connected to one engine only. */
	assert_int_equal(doca_pe_create(&other), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(other, &e->f.ctx), DOCA_ERROR_ALREADY_EXIST);
	assert_int_equal(doca_pe_connect_ctx(e->pe, &e->f.ctx), DOCA_ERROR_ALREADY_EXIST);
	assert_int_equal(doca_pe_destroy(other), DOCA_SUCCESS);
	urom_ctx_fini(&e->f.ctx);
	assert_int_equal(doca_pe_destroy(e->pe), DOCA_SUCCESS);
	/* teardown's destroy must find a fresh engine. */
	assert_int_equal(doca_pe_create(&e->pe), DOCA_SUCCESS);
}

/* ---- the state machine ---- */

static void test_start_sync(void **state)
{
	struct env *e = *state;

	assert_int_equal(doca_ctx_set_user_data(&e->f.ctx, (union doca_data){.u64 = 77}), DOCA_SUCCESS);
	e->f.start_result = DOCA_SUCCESS;
	assert_int_equal(doca_ctx_start(&e->f.ctx), DOCA_SUCCESS);
	assert_int_equal(e->f.start_calls, 1);
	/* The state is RUNNING at once; its callback waits for progress. */
	assert_int_equal(state_of(&e->f), DOCA_CTX_STATE_RUNNING);
	assert_int_equal(n_changes, 0);
	assert_int_equal(progress(e->pe), 1);
	assert_int_equal(n_changes, 1);
	assert_int_equal(changes[0].prev, DOCA_CTX_STATE_IDLE);
	assert_int_equal(changes[0].next, DOCA_CTX_STATE_RUNNING);
	assert_int_equal(changes[0].user, 77);
	assert_ptr_equal(changes[0].ctx, &e->f.ctx);
	assert_int_equal(progress(e->pe), 0);
	assert_int_equal(n_changes, 1);
}

static void test_start_async(void **state)
{
	struct env *e = *state;

	assert_int_equal(doca_ctx_start(&e->f.ctx), DOCA_ERROR_IN_PROGRESS);
	assert_int_equal(state_of(&e->f), DOCA_CTX_STATE_STARTING);
	assert_int_equal(urom_ctx_pending_state(&e->f.ctx), DOCA_CTX_STATE_STARTING);
	assert_int_equal(progress(e->pe), 1);
	assert_int_equal(n_changes, 1);
	assert_int_equal(changes[0].prev, DOCA_CTX_STATE_IDLE);
	assert_int_equal(changes[0].next, DOCA_CTX_STATE_STARTING);
	/* Nothing reported: progress polls the context and finds nothing. */
	assert_int_equal(progress(e->pe), 0);
	assert_int_equal(state_of(&e->f), DOCA_CTX_STATE_STARTING);
	e->f.reports[e->f.n_reports++] = DOCA_CTX_STATE_RUNNING;
	assert_int_equal(progress(e->pe), 1);
	assert_int_equal(state_of(&e->f), DOCA_CTX_STATE_RUNNING);
	assert_int_equal(n_changes, 2);
	assert_int_equal(changes[1].prev, DOCA_CTX_STATE_STARTING);
	assert_int_equal(changes[1].next, DOCA_CTX_STATE_RUNNING);
	assert_int_equal(changes[1].state_seen, DOCA_CTX_STATE_RUNNING);
	assert_int_equal(progress(e->pe), 0);
}

static void test_transitions_one_per_progress(void **state)
{
	struct env *e = *state;

	assert_int_equal(doca_ctx_start(&e->f.ctx), DOCA_ERROR_IN_PROGRESS);
	assert_int_equal(progress(e->pe), 1);
	n_changes = 0;
	/* One ops->progress reports two changes: RUNNING, then IDLE (say, the daemon went away). */
	e->f.reports[0] = DOCA_CTX_STATE_RUNNING;
	e->f.reports[1] = DOCA_CTX_STATE_IDLE;
	e->f.n_reports = 2;
	assert_int_equal(progress(e->pe), 1);
	assert_int_equal(n_changes, 1);
	assert_int_equal(state_of(&e->f), DOCA_CTX_STATE_RUNNING);
	/* Reported, not yet delivered. */
	assert_int_equal(urom_ctx_pending_state(&e->f.ctx), DOCA_CTX_STATE_IDLE);
	assert_int_equal(progress(e->pe), 1);
	assert_int_equal(n_changes, 2);
	assert_int_equal(state_of(&e->f), DOCA_CTX_STATE_IDLE);
	assert_int_equal(changes[1].prev, DOCA_CTX_STATE_RUNNING);
	assert_int_equal(changes[1].next, DOCA_CTX_STATE_IDLE);
	assert_int_equal(progress(e->pe), 0);
	/* Back in IDLE, it can start again. */
	e->f.start_result = DOCA_SUCCESS;
	assert_int_equal(doca_ctx_start(&e->f.ctx), DOCA_SUCCESS);
}

static void test_start_failure(void **state)
{
	struct env *e = *state;

	e->f.start_result = DOCA_ERROR_CONNECTION_RESET;
	assert_int_equal(doca_ctx_start(&e->f.ctx), DOCA_ERROR_CONNECTION_RESET);
	assert_int_equal(state_of(&e->f), DOCA_CTX_STATE_IDLE);
	assert_int_equal(progress(e->pe), 0);
	assert_int_equal(n_changes, 0);
}

static void test_stop_async(void **state)
{
	struct env *e = *state;

	make_running(e);
	assert_int_equal(doca_ctx_stop(&e->f.ctx), DOCA_ERROR_IN_PROGRESS);
	assert_int_equal(state_of(&e->f), DOCA_CTX_STATE_STOPPING);
	/* Already stopping: a second stop does not reach the implementation. */
	assert_int_equal(doca_ctx_stop(&e->f.ctx), DOCA_ERROR_IN_PROGRESS);
	assert_int_equal(e->f.stop_calls, 1);
	assert_int_equal(progress(e->pe), 1);
	assert_int_equal(changes[0].prev, DOCA_CTX_STATE_RUNNING);
	assert_int_equal(changes[0].next, DOCA_CTX_STATE_STOPPING);
	e->f.reports[e->f.n_reports++] = DOCA_CTX_STATE_IDLE;
	assert_int_equal(progress(e->pe), 1);
	assert_int_equal(state_of(&e->f), DOCA_CTX_STATE_IDLE);
	assert_int_equal(changes[1].prev, DOCA_CTX_STATE_STOPPING);
	assert_int_equal(changes[1].next, DOCA_CTX_STATE_IDLE);
	assert_int_equal(progress(e->pe), 0);
}

static void test_stop_sync(void **state)
{
	struct env *e = *state;

	make_running(e);
	e->f.stop_result = DOCA_SUCCESS;
	assert_int_equal(doca_ctx_stop(&e->f.ctx), DOCA_SUCCESS);
	assert_int_equal(state_of(&e->f), DOCA_CTX_STATE_IDLE);
	assert_int_equal(n_changes, 0);
	assert_int_equal(progress(e->pe), 1);
	assert_int_equal(n_changes, 1);
	assert_int_equal(changes[0].prev, DOCA_CTX_STATE_RUNNING);
	assert_int_equal(changes[0].next, DOCA_CTX_STATE_IDLE);
	assert_int_equal(progress(e->pe), 0);
}

static void test_stop_while_starting_with_pending_running(void **state)
{
	struct env *e = *state;

	assert_int_equal(doca_ctx_start(&e->f.ctx), DOCA_ERROR_IN_PROGRESS);
	/* RUNNING is reported but not delivered when the program stops. */
	e->f.reports[e->f.n_reports++] = DOCA_CTX_STATE_RUNNING;
	assert_int_equal(progress(e->pe), 1); /* IDLE -> STARTING; the poll did not run */
	assert_int_equal(progress(e->pe), 1); /* STARTING -> RUNNING */
	e->f.reports[e->f.n_reports++] = DOCA_CTX_STATE_IDLE;
	n_changes = 0;
	assert_int_equal(doca_ctx_stop(&e->f.ctx), DOCA_ERROR_IN_PROGRESS);
	assert_int_equal(state_of(&e->f), DOCA_CTX_STATE_STOPPING);
	while (progress(e->pe))
		;
	assert_int_equal(state_of(&e->f), DOCA_CTX_STATE_IDLE);
	assert_int_equal(n_changes, 2);
	assert_int_equal(changes[0].next, DOCA_CTX_STATE_STOPPING);
	assert_int_equal(changes[1].prev, DOCA_CTX_STATE_STOPPING);
	assert_int_equal(changes[1].next, DOCA_CTX_STATE_IDLE);
}

static void test_bad_states(void **state)
{
	struct env *e = *state;
	struct fake lone;
	struct doca_pe *other;

	/* Stop in IDLE. */
	assert_int_equal(doca_ctx_stop(&e->f.ctx), DOCA_ERROR_BAD_STATE);
	assert_int_equal(e->f.stop_calls, 0);
	/* Start of a context that is connected to no engine. */
	memset(&lone, 0, sizeof(lone));
	urom_ctx_init(&lone.ctx, &fake_ops);
	lone.start_result = DOCA_SUCCESS;
	assert_int_equal(doca_ctx_start(&lone.ctx), DOCA_ERROR_NOT_CONNECTED);
	assert_int_equal(lone.start_calls, 0);
	assert_int_equal(doca_ctx_stop(&lone.ctx), DOCA_ERROR_BAD_STATE);
	urom_ctx_fini(&lone.ctx);
	/* Start when not IDLE. */
	make_running(e);
	assert_int_equal(doca_ctx_start(&e->f.ctx), DOCA_ERROR_BAD_STATE);
	assert_int_equal(e->f.start_calls, 1);
	/* Connect a context that is not IDLE. */
	assert_int_equal(doca_pe_create(&other), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(other, &e->f.ctx), DOCA_ERROR_ALREADY_EXIST);
	assert_int_equal(doca_pe_destroy(other), DOCA_SUCCESS);
}

static void test_submit_needs_running(void **state)
{
	struct env *e = *state;
	struct fake_task *t = task_new(&e->f, 1);

	assert_int_equal(doca_task_submit(&t->task), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_task_try_submit(&t->task), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_ctx_start(&e->f.ctx), DOCA_ERROR_IN_PROGRESS);
	assert_int_equal(doca_task_submit(&t->task), DOCA_ERROR_BAD_STATE);
	assert_int_equal(e->f.submit_calls, 0);
	doca_task_free(&t->task);
	assert_int_equal(e->f.task_free_calls, 1);
}

static void test_null_arguments(void **state)
{
	struct env *e = *state;
	enum doca_ctx_states s;
	union doca_data d;
	size_t n;

	assert_int_equal(doca_ctx_start(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_ctx_stop(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_ctx_get_state(NULL, &s), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_ctx_get_state(&e->f.ctx, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_ctx_set_user_data(NULL, d = (union doca_data){.u64 = 1}), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_ctx_get_user_data(NULL, &d), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_ctx_get_user_data(&e->f.ctx, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_ctx_set_state_changed_cb(NULL, on_state), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_ctx_get_num_inflight_tasks(NULL, &n), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_ctx_get_num_inflight_tasks(&e->f.ctx, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_task_submit(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_task_try_submit(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_task_get_status(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_null(doca_task_get_ctx(NULL));
	assert_int_equal(doca_task_get_user_data(NULL).u64, 0);
	doca_task_free(NULL);
	doca_task_set_user_data(NULL, d);
	assert_int_equal(urom_ctx_transition(NULL, DOCA_CTX_STATE_RUNNING), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(urom_pe_watch_fd(NULL, 0), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(urom_pe_watch_fd(e->pe, -1), DOCA_ERROR_INVALID_VALUE);
	urom_pe_unwatch_fd(NULL, 0);
	urom_ctx_fini(NULL);
	urom_task_complete(NULL, DOCA_SUCCESS);
	assert_int_equal(doca_ctx_get_user_data(&e->f.ctx, &d), DOCA_SUCCESS);
	assert_int_equal(d.u64, 0);
}

/* ---- event mode ---- */

static int readable(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	int n;

	do
		n = poll(&p, 1, 0);
	while (n < 0 && errno == EINTR);
	assert_true(n >= 0);
	return n > 0 && (p.revents & POLLIN) != 0;
}

static void test_notification(void **state)
{
	struct env *e = *state;
	doca_notification_handle_t h;
	int fds[2];
	char c;

	assert_int_equal(doca_pe_get_notification_handle(e->pe, &h), DOCA_SUCCESS);
	assert_true(h >= 0);
	assert_int_equal(doca_pe_request_notification(e->pe), DOCA_SUCCESS);
	assert_false(readable(h));
	/* An event is queued (the STARTING callback): readable. */
	assert_int_equal(doca_ctx_start(&e->f.ctx), DOCA_ERROR_IN_PROGRESS);
	assert_true(readable(h));
	assert_int_equal(doca_pe_clear_notification(e->pe, h), DOCA_SUCCESS);
	assert_false(readable(h));
	assert_int_equal(doca_pe_clear_notification(e->pe, h + 1000), DOCA_ERROR_INVALID_VALUE);
	/* Still queued: arming signals at once. */
	assert_int_equal(doca_pe_request_notification(e->pe), DOCA_SUCCESS);
	assert_true(readable(h));
	assert_int_equal(doca_pe_clear_notification(e->pe, h), DOCA_SUCCESS);
	/* Events queued while the handle is not armed do not signal it (the program is progressing),
	 * and once they are delivered, arming it finds nothing to wake for. */
	e->f.reports[e->f.n_reports++] = DOCA_CTX_STATE_RUNNING;
	while (progress(e->pe))
		;
	assert_int_equal(state_of(&e->f), DOCA_CTX_STATE_RUNNING);
	assert_false(readable(h));
	assert_int_equal(doca_pe_request_notification(e->pe), DOCA_SUCCESS);
	assert_false(readable(h));
	/* Armed, the event a synchronous stop queues (its state-changed callback) signals it. */
	e->f.stop_result = DOCA_SUCCESS;
	assert_int_equal(doca_ctx_stop(&e->f.ctx), DOCA_SUCCESS);
	assert_true(readable(h));
	assert_int_equal(doca_pe_clear_notification(e->pe, h), DOCA_SUCCESS);
	assert_false(readable(h));
	while (progress(e->pe))
		;
	/* A descriptor a context watches makes the handle readable while it is. */
	assert_int_equal(pipe(fds), 0);
	assert_int_equal(urom_pe_watch_fd(e->pe, fds[0]), DOCA_SUCCESS);
	assert_int_equal(urom_pe_watch_fd(e->pe, fds[0]), DOCA_ERROR_ALREADY_EXIST);
	assert_false(readable(h));
	assert_int_equal(write(fds[1], "x", 1), 1);
	assert_true(readable(h));
	assert_int_equal(read(fds[0], &c, 1), 1);
	assert_false(readable(h));
	assert_int_equal(write(fds[1], "y", 1), 1);
	urom_pe_unwatch_fd(e->pe, fds[0]);
	assert_false(readable(h));
	close(fds[0]);
	close(fds[1]);
}

/* ---- tasks ---- */

static void test_task_fifo(void **state)
{
	struct env *e = *state;
	struct fake_task *t[3];
	size_t n, i;

	make_running(e);
	for (i = 0; i < 3; i++) {
		t[i] = task_new(&e->f, (int)i + 10);
		doca_task_set_user_data(&t[i]->task, (union doca_data){.u64 = i});
		assert_int_equal(doca_task_submit(&t[i]->task), DOCA_SUCCESS);
	}
	assert_int_equal(doca_ctx_get_num_inflight_tasks(&e->f.ctx, &n), DOCA_SUCCESS);
	assert_int_equal(n, 3);
	assert_int_equal(doca_pe_get_num_inflight_tasks(e->pe, &n), DOCA_SUCCESS);
	assert_int_equal(n, 3);
	/* In flight: resubmitting or freeing is refused. */
	assert_int_equal(doca_task_submit(&t[0]->task), DOCA_ERROR_BAD_STATE);
	doca_task_free(&t[0]->task);
	assert_int_equal(e->f.task_free_calls, 0);
	/* The implementation completes them as 11, 12, 10, all in one ops->progress. */
	e->f.completions[0] = &t[1]->task;
	e->f.completions[1] = &t[2]->task;
	e->f.completions[2] = &t[0]->task;
	e->f.n_completions = 3;
	e->f.completion_status = DOCA_ERROR_NOT_FOUND;
	assert_int_equal(progress(e->pe), 1);
	assert_int_equal(n_completed, 1);
	assert_int_equal(completed_ids[0], 11);
	assert_int_equal(completed_status[0], DOCA_ERROR_NOT_FOUND);
	assert_int_equal(doca_ctx_get_num_inflight_tasks(&e->f.ctx, &n), DOCA_SUCCESS);
	assert_int_equal(n, 2);
	assert_int_equal(progress(e->pe), 1);
	assert_int_equal(progress(e->pe), 1);
	assert_int_equal(progress(e->pe), 0);
	assert_int_equal(n_completed, 3);
	assert_int_equal(completed_ids[1], 12);
	assert_int_equal(completed_ids[2], 10);
	assert_int_equal(doca_pe_get_num_inflight_tasks(e->pe, &n), DOCA_SUCCESS);
	assert_int_equal(n, 0);
	for (i = 0; i < 3; i++) {
		assert_int_equal(doca_task_get_user_data(&t[i]->task).u64, i);
		assert_ptr_equal(doca_task_get_ctx(&t[i]->task), &e->f.ctx);
		doca_task_free(&t[i]->task);
	}
	assert_int_equal(e->f.task_free_calls, 3);
}

static void test_task_release_in_callback(void **state)
{
	struct env *e = *state;
	struct fake_task *t;

	make_running(e);
	t = task_new(&e->f, 5);
	t->free_in_callback = true;
	assert_int_equal(doca_task_submit(&t->task), DOCA_SUCCESS);
	e->f.completions[0] = &t->task;
	e->f.n_completions = 1;
	e->f.completion_status = DOCA_SUCCESS;
	assert_int_equal(progress(e->pe), 1);
	assert_int_equal(n_completed, 1);
	assert_int_equal(completed_ids[0], 5);
	assert_int_equal(completed_status[0], DOCA_SUCCESS);
	assert_int_equal(e->f.task_free_calls, 1);
	assert_int_equal(progress(e->pe), 0);
}

static void test_task_resubmit_after_completion(void **state)
{
	struct env *e = *state;
	struct fake_task *t;

	make_running(e);
	t = task_new(&e->f, 8);
	assert_int_equal(doca_task_submit(&t->task), DOCA_SUCCESS);
	e->f.completions[0] = &t->task;
	e->f.n_completions = 1;
	assert_int_equal(progress(e->pe), 1);
	/* A second completion of a task no longer in flight is ignored. */
	urom_task_complete(&t->task, DOCA_SUCCESS);
	assert_int_equal(progress(e->pe), 0);
	assert_int_equal(doca_task_submit(&t->task), DOCA_SUCCESS);
	e->f.completions[0] = &t->task;
	e->f.n_completions = 1;
	assert_int_equal(progress(e->pe), 1);
	assert_int_equal(n_completed, 2);
	doca_task_free(&t->task);
}

static void test_submit_refused(void **state)
{
	struct env *e = *state;
	struct fake_task *t;
	size_t n;

	make_running(e);
	t = task_new(&e->f, 3);
	e->f.submit_result = DOCA_ERROR_AGAIN;
	assert_int_equal(doca_task_submit(&t->task), DOCA_ERROR_AGAIN);
	assert_int_equal(e->f.submit_calls, 1);
	assert_int_equal(doca_ctx_get_num_inflight_tasks(&e->f.ctx, &n), DOCA_SUCCESS);
	assert_int_equal(n, 0);
	/* Not in flight: it may be freed. */
	doca_task_free(&t->task);
	assert_int_equal(e->f.task_free_calls, 1);
}

static void test_stop_flushes_tasks(void **state)
{
	struct env *e = *state;
	struct fake_task *t[2], *late;
	size_t i;

	make_running(e);
	for (i = 0; i < 2; i++) {
		t[i] = task_new(&e->f, (int)i);
		t[i]->free_in_callback = true;
		assert_int_equal(doca_task_submit(&t[i]->task), DOCA_SUCCESS);
	}
	assert_int_equal(doca_ctx_stop(&e->f.ctx), DOCA_ERROR_IN_PROGRESS);
	late = task_new(&e->f, 9);
	assert_int_equal(doca_task_submit(&late->task), DOCA_ERROR_BAD_STATE);
	doca_task_free(&late->task);
	/* The implementation flushes the tasks with an error, then reports IDLE. */
	e->f.completions[0] = &t[0]->task;
	e->f.completions[1] = &t[1]->task;
	e->f.n_completions = 2;
	e->f.completion_status = DOCA_ERROR_CONNECTION_ABORTED;
	e->f.reports[e->f.n_reports++] = DOCA_CTX_STATE_IDLE;
	while (progress(e->pe))
		;
	assert_int_equal(state_of(&e->f), DOCA_CTX_STATE_IDLE);
	assert_int_equal(n_completed, 2);
	assert_int_equal(completed_status[0], DOCA_ERROR_CONNECTION_ABORTED);
	assert_int_equal(completed_status[1], DOCA_ERROR_CONNECTION_ABORTED);
	assert_int_equal(n_changes, 2);
	assert_int_equal(changes[1].next, DOCA_CTX_STATE_IDLE);
	/* The refused one and the two freed by their callbacks. */
	assert_int_equal(e->f.task_free_calls, 3);
}

static void test_fini_drops_queued_events(void **state)
{
	struct env *e = *state;
	struct fake_task *t;

	make_running(e);
	t = task_new(&e->f, 1);
	assert_int_equal(doca_task_submit(&t->task), DOCA_SUCCESS);
	e->f.completions[0] = &t->task;
	e->f.n_completions = 1;
	e->f.reports[e->f.n_reports++] = DOCA_CTX_STATE_IDLE;
	/* One ops->progress queues a transition and a completion; one is delivered. */
	assert_int_equal(progress(e->pe), 1);
	urom_ctx_fini(&e->f.ctx);
	assert_false(t->task.in_flight);
	assert_int_equal(progress(e->pe), 0);
	assert_int_equal(n_completed, 0);
	assert_int_equal(doca_pe_destroy(e->pe), DOCA_SUCCESS);
	assert_int_equal(doca_pe_create(&e->pe), DOCA_SUCCESS);
	doca_task_free(&t->task);
}

static void test_progress_not_reentrant(void **state)
{
	struct env *e = *state;

	reentry_pe = e->pe;
	reentry_result = 9;
	assert_int_equal(doca_ctx_start(&e->f.ctx), DOCA_ERROR_IN_PROGRESS);
	e->f.reports[e->f.n_reports++] = DOCA_CTX_STATE_RUNNING;
	assert_int_equal(progress(e->pe), 1);
	assert_int_equal(reentry_result, 0);
	reentry_pe = NULL;
	assert_int_equal(progress(e->pe), 1);
	assert_int_equal(state_of(&e->f), DOCA_CTX_STATE_RUNNING);
}

static void test_round_robin(void **state)
{
	struct env *e = *state;
	struct fake b;
	struct fake_task *ta[2], *tb;

	memset(&b, 0, sizeof(b));
	urom_ctx_init(&b.ctx, &fake_ops);
	assert_int_equal(doca_pe_connect_ctx(e->pe, &b.ctx), DOCA_SUCCESS);
	b.start_result = DOCA_SUCCESS;
	assert_int_equal(doca_ctx_start(&b.ctx), DOCA_SUCCESS);
	make_running(e);
	while (progress(e->pe))
		;
	ta[0] = task_new(&e->f, 1);
	ta[1] = task_new(&e->f, 2);
	tb = task_new(&b, 100);
	assert_int_equal(doca_task_submit(&ta[0]->task), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(&ta[1]->task), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(&tb->task), DOCA_SUCCESS);
	e->f.completions[0] = &ta[0]->task;
	e->f.completions[1] = &ta[1]->task;
	e->f.n_completions = 2;
	e->f.completions_per_call = 1;
	b.completions[0] = &tb->task;
	b.n_completions = 1;
	n_completed = 0;
	while (progress(e->pe))
		;
	assert_int_equal(n_completed, 3);
	/* Whichever context went first, the other gets its turn before the first one's second
	 * completion: 1, 100, 2 or 100, 1, 2 — never 1, 2, 100. */
	assert_int_equal(completed_ids[2], 2);
	assert_true((completed_ids[0] == 1 && completed_ids[1] == 100) ||
		    (completed_ids[0] == 100 && completed_ids[1] == 1));
	doca_task_free(&ta[0]->task);
	doca_task_free(&ta[1]->task);
	doca_task_free(&tb->task);
	urom_ctx_fini(&b.ctx);
}

/* ---- buffers ---- */

static void test_buffers(void **state)
{
	uint8_t mem[64];
	struct doca_buf buf;
	void *p;
	size_t len;
	uint16_t rc;
	uint32_t n;
	uint8_t flag;
	struct doca_buf *other;

	(void)state;
	urom_buf_init(&buf, mem, sizeof(mem));
	assert_int_equal(doca_buf_get_head(&buf, &p), DOCA_SUCCESS);
	assert_ptr_equal(p, mem);
	assert_int_equal(doca_buf_get_len(&buf, &len), DOCA_SUCCESS);
	assert_int_equal(len, 64);
	assert_int_equal(doca_buf_get_data(&buf, &p), DOCA_SUCCESS);
	assert_ptr_equal(p, mem);
	assert_int_equal(doca_buf_get_data_len(&buf, &len), DOCA_SUCCESS);
	assert_int_equal(len, 64);
	/* Inside. */
	assert_int_equal(doca_buf_set_data(&buf, mem + 8, 56), DOCA_SUCCESS);
	assert_int_equal(doca_buf_set_data(&buf, mem + 64, 0), DOCA_SUCCESS);
	assert_int_equal(doca_buf_set_data(&buf, mem, 64), DOCA_SUCCESS);
	/* Outside: past the end, before the head, NULL, a length that wraps. */
	assert_int_equal(doca_buf_set_data(&buf, mem + 8, 57), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_buf_set_data(&buf, mem + 65, 0), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_buf_set_data(&buf, mem - 1, 1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_buf_set_data(&buf, NULL, 0), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_buf_set_data(&buf, mem + 1, SIZE_MAX), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_buf_set_data(NULL, mem, 1), DOCA_ERROR_INVALID_VALUE);
	/* A failed set leaves the data as it was. */
	assert_int_equal(doca_buf_get_data(&buf, &p), DOCA_SUCCESS);
	assert_ptr_equal(p, mem);
	assert_int_equal(doca_buf_set_data(&buf, mem + 60, 2), DOCA_SUCCESS);
	assert_int_equal(doca_buf_set_data_len(&buf, 4), DOCA_SUCCESS);
	assert_int_equal(doca_buf_set_data_len(&buf, 5), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_buf_get_data_len(&buf, &len), DOCA_SUCCESS);
	assert_int_equal(len, 4);
	assert_int_equal(doca_buf_reset_data_len(&buf), DOCA_SUCCESS);
	assert_int_equal(doca_buf_get_data_len(&buf, &len), DOCA_SUCCESS);
	assert_int_equal(len, 0);
	assert_int_equal(doca_buf_get_data(&buf, &p), DOCA_SUCCESS);
	assert_ptr_equal(p, mem + 60);
	/* Reference counts: the count before the change is reported. */
	assert_int_equal(doca_buf_get_refcount(&buf, &rc), DOCA_SUCCESS);
	assert_int_equal(rc, 1);
	assert_int_equal(doca_buf_inc_refcount(&buf, &rc), DOCA_SUCCESS);
	assert_int_equal(rc, 1);
	assert_int_equal(doca_buf_dec_refcount(&buf, &rc), DOCA_SUCCESS);
	assert_int_equal(rc, 2);
	assert_int_equal(doca_buf_dec_refcount(&buf, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_buf_dec_refcount(&buf, &rc), DOCA_ERROR_BAD_STATE);
	/* Lists of one. */
	assert_int_equal(doca_buf_chain_list(&buf, &buf), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_buf_get_next_in_list(&buf, &other), DOCA_SUCCESS);
	assert_null(other);
	assert_int_equal(doca_buf_get_last_in_list(&buf, &other), DOCA_SUCCESS);
	assert_ptr_equal(other, &buf);
	assert_int_equal(doca_buf_is_in_list(&buf, &flag), DOCA_SUCCESS);
	assert_int_equal(flag, 0);
	assert_int_equal(doca_buf_is_last_in_list(&buf, &flag), DOCA_SUCCESS);
	assert_int_equal(flag, 1);
	assert_int_equal(doca_buf_get_list_len(&buf, &n), DOCA_SUCCESS);
	assert_int_equal(n, 1);
	assert_int_equal(doca_buf_get_head(NULL, &p), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_buf_get_data_len(&buf, NULL), DOCA_ERROR_INVALID_VALUE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pe_create_destroy_null),
		cmocka_unit_test_setup_teardown(test_progress_idle_is_zero, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pe_destroy_in_use, setup, teardown),
		cmocka_unit_test_setup_teardown(test_start_sync, setup, teardown),
		cmocka_unit_test_setup_teardown(test_start_async, setup, teardown),
		cmocka_unit_test_setup_teardown(test_transitions_one_per_progress, setup, teardown),
		cmocka_unit_test_setup_teardown(test_start_failure, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_async, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_sync, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_while_starting_with_pending_running, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_states, setup, teardown),
		cmocka_unit_test_setup_teardown(test_submit_needs_running, setup, teardown),
		cmocka_unit_test_setup_teardown(test_null_arguments, setup, teardown),
		cmocka_unit_test_setup_teardown(test_notification, setup, teardown),
		cmocka_unit_test_setup_teardown(test_task_fifo, setup, teardown),
		cmocka_unit_test_setup_teardown(test_task_release_in_callback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_task_resubmit_after_completion, setup, teardown),
		cmocka_unit_test_setup_teardown(test_submit_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_flushes_tasks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fini_drops_queued_events, setup, teardown),
		cmocka_unit_test_setup_teardown(test_progress_not_reentrant, setup, teardown),
		cmocka_unit_test_setup_teardown(test_round_robin, setup, teardown),
		cmocka_unit_test(test_buffers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
