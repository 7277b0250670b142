/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The C host library against one real daemon: the plugin list, the CPU set, workers' lifecycle,
 * joining by id, refused environments, in-flight limits, message sizes, a worker killed with
 * commands in flight, and the workers of a group.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/epoll.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <doca_buf.h>
#include <doca_ctx.h>
#include <doca_urom.h>
#include <urom_plugin_util.h>

#include "it_daemon.h"

static struct it_daemon daemon_;
static struct it_host host;
static uint64_t graph_id;
static uint64_t sandbox_id;

struct loopback {
	int done;
	doca_error_t status;
	size_t len;
	uint64_t type;
	uint64_t data;
	int order;
};

static int completions;

static void loopback_done(struct doca_urom_worker_cmd_task *task, union doca_data task_user_data,
			  union doca_data ctx_user_data)
{
	struct loopback *result = *(struct loopback **)doca_urom_worker_cmd_task_get_user_data(task);
	struct doca_buf *response = doca_urom_worker_cmd_task_get_response(task);
	void *data;

	(void)task_user_data;
	(void)ctx_user_data;
	result->status = doca_task_get_status(doca_urom_worker_cmd_task_as_task(task));
	doca_buf_get_data(response, &data);
	doca_buf_get_data_len(response, &result->len);
	if (result->len == 16) {
		result->type = urom_load_le64(data);
		result->data = urom_load_le64((uint8_t *)data + 8);
	}
	result->order = ++completions;
	result->done = 1;
	assert_int_equal(doca_urom_worker_cmd_task_release(task), DOCA_SUCCESS);
}

/* A command task of plugin with the given payload, whose completion lands in result. */
static struct doca_urom_worker_cmd_task *command(struct doca_urom_worker *worker, uint64_t plugin, const void *payload,
						 size_t len, struct loopback *result)
{
	struct doca_urom_worker_cmd_task *task;
	struct doca_buf *buf;
	void *head;

	assert_int_equal(doca_urom_worker_cmd_task_allocate_init(worker, plugin, &task), DOCA_SUCCESS);
	buf = doca_urom_worker_cmd_task_get_payload(task);
	assert_int_equal(doca_buf_get_data(buf, &head), DOCA_SUCCESS);
	memcpy(head, payload, len);
	assert_int_equal(doca_buf_set_data(buf, head, len), DOCA_SUCCESS);
	memset(result, 0, sizeof(*result));
	*(struct loopback **)doca_urom_worker_cmd_task_get_user_data(task) = result;
	doca_urom_worker_cmd_task_set_cb(task, loopback_done);
	return task;
}

static doca_error_t submit_loopback(struct doca_urom_worker *worker, uint64_t value, struct loopback *result)
{
	uint8_t cmd[16];
	struct doca_urom_worker_cmd_task *task;
	doca_error_t status;

	urom_store_le64(cmd, 0);
	urom_store_le64(cmd + 8, value);
	task = command(worker, graph_id, cmd, sizeof(cmd), result);
	status = doca_task_submit(doca_urom_worker_cmd_task_as_task(task));
	if (status != DOCA_SUCCESS)
		doca_urom_worker_cmd_task_release(task);
	return status;
}

static bool loopback_finished(void *arg)
{
	return ((struct loopback *)arg)->done;
}

static struct doca_urom_worker *running_worker(uint64_t id, uint32_t gid, uint64_t plugins)
{
	struct doca_urom_worker *worker = NULL;
	enum doca_ctx_states state;

	assert_int_equal(it_worker_start(&host, id, gid, plugins, 0, NULL, 0, &worker, &state), DOCA_SUCCESS);
	if (state != DOCA_CTX_STATE_RUNNING)
		it_daemon_dump(&daemon_);
	assert_int_equal(state, DOCA_CTX_STATE_RUNNING);
	return worker;
}

static int setup(void **unused)
{
	(void)unused;
	if (it_daemon_start(&daemon_, NULL) != 0)
		return -1;
	if (it_host_open(&host) != DOCA_SUCCESS) {
		it_daemon_dump(&daemon_);
		return -1;
	}
	graph_id = it_plugin_id(host.service, "worker_graph", NULL);
	sandbox_id = it_plugin_id(host.service, "worker_sandbox", NULL);
	return graph_id != 0 && sandbox_id != 0 ? 0 : -1;
}

static int teardown(void **unused)
{
	(void)unused;
	it_host_close(&host);
	it_daemon_stop(&daemon_);
	return 0;
}

static void the_plugin_list_names_every_plugin_of_the_daemon_with_one_bit_each(void **unused)
{
	const struct doca_urom_service_plugin_info *plugins;
	const char *expected[] = {"worker_graph",        "worker_graph_java", "worker_sandbox",
				  "worker_sandbox_java", "worker_coll",       "worker_coll_java"};
	const size_t count = sizeof(expected) / sizeof(expected[0]);
	uint64_t seen = 0;
	size_t n;

	(void)unused;
	assert_int_equal(doca_urom_service_get_plugins_list(host.service, &plugins, &n), DOCA_SUCCESS);
	assert_int_equal(n, count);
	for (size_t e = 0; e < count; e++) {
		uint64_t version = 0;
		uint64_t id = it_plugin_id(host.service, expected[e], &version);

		assert_true(id != 0 && (id & (id - 1)) == 0);
		assert_int_equal(seen & id, 0);
		assert_int_equal(version, 1);
		seen |= id;
	}
}

static void the_cpu_set_is_the_cpus_the_daemon_may_run_workers_on(void **unused)
{
	doca_cpu_set_t cpus;
	cpu_set_t mine;

	(void)unused;
	assert_int_equal(doca_urom_service_get_cpuset(host.service, &cpus), DOCA_SUCCESS);
	/* The daemon was started by this process, so it inherited this affinity. */
	assert_int_equal(sched_getaffinity(0, sizeof(mine), &mine), 0);
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		assert_int_equal(doca_cpu_is_set(cpu, &cpus) != 0, CPU_ISSET(cpu, &mine) != 0);
}

static void a_worker_starts_in_progress_loops_a_value_back_and_stops(void **unused)
{
	struct doca_urom_worker *worker;
	struct doca_urom_worker_cmd_task *task;
	struct loopback result;
	enum doca_ctx_states state;
	uint64_t id;
	uint32_t gid;

	(void)unused;
	assert_int_equal(doca_urom_worker_create(&worker), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(host.pe, doca_urom_worker_as_ctx(worker)), DOCA_SUCCESS);
	assert_int_equal(doca_urom_worker_set_service(worker, host.service), DOCA_SUCCESS);
	assert_int_equal(doca_urom_worker_set_plugins(worker, graph_id), DOCA_SUCCESS);
	assert_int_equal(doca_urom_worker_set_gid(worker, 7), DOCA_SUCCESS);
	assert_int_equal(doca_urom_worker_get_id(worker, &id), DOCA_SUCCESS);
	assert_true(id == DOCA_UROM_WORKER_ID_ANY);
	/* Not running yet: a task cannot be submitted. */
	assert_int_equal(doca_urom_worker_cmd_task_allocate_init(worker, graph_id, &task), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_urom_worker_cmd_task_as_task(task)), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_urom_worker_cmd_task_release(task), DOCA_SUCCESS);

	assert_int_equal(doca_ctx_start(doca_urom_worker_as_ctx(worker)), DOCA_ERROR_IN_PROGRESS);
	assert_int_equal(doca_ctx_get_state(doca_urom_worker_as_ctx(worker), &state), DOCA_SUCCESS);
	assert_int_equal(state, DOCA_CTX_STATE_STARTING);
	/* Setters refuse outside IDLE. */
	assert_int_equal(doca_urom_worker_set_gid(worker, 8), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_urom_worker_set_plugins(worker, sandbox_id), DOCA_ERROR_BAD_STATE);
	while (state == DOCA_CTX_STATE_STARTING) {
		doca_pe_progress(host.pe);
		doca_ctx_get_state(doca_urom_worker_as_ctx(worker), &state);
	}
	assert_int_equal(state, DOCA_CTX_STATE_RUNNING);
	assert_int_equal(doca_urom_worker_get_id(worker, &id), DOCA_SUCCESS);
	assert_true(id != DOCA_UROM_WORKER_ID_ANY);
	assert_int_equal(doca_urom_worker_get_gid(worker, &gid), DOCA_SUCCESS);
	assert_int_equal(gid, 7);

	assert_int_equal(submit_loopback(worker, 0xfedcba9876543210ULL, &result), DOCA_SUCCESS);
	assert_true(it_progress_until(host.pe, loopback_finished, &result, 60000));
	assert_int_equal(result.status, DOCA_SUCCESS);
	assert_int_equal(result.len, 16);
	assert_true(result.data == 0xfedcba9876543210ULL);

	assert_int_equal(doca_ctx_stop(doca_urom_worker_as_ctx(worker)), DOCA_ERROR_IN_PROGRESS);
	assert_int_equal(doca_urom_worker_destroy(worker), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(it_worker_stop(&host, worker), DOCA_SUCCESS);
}

static void in_event_mode_the_notification_handle_wakes_the_program_for_a_completion(void **unused)
{
	struct doca_urom_worker *worker = running_worker(DOCA_UROM_WORKER_ID_ANY, 0, graph_id);
	doca_notification_handle_t handle;
	struct epoll_event ev = {.events = EPOLLIN};
	struct loopback result;
	int ep = epoll_create1(EPOLL_CLOEXEC), woken = 0;

	(void)unused;
	assert_true(ep >= 0);
	assert_int_equal(doca_pe_get_notification_handle(host.pe, &handle), DOCA_SUCCESS);
	assert_int_equal(epoll_ctl(ep, EPOLL_CTL_ADD, handle, &ev), 0);
	while (doca_pe_progress(host.pe))
		;
	assert_int_equal(submit_loopback(worker, 77, &result), DOCA_SUCCESS);
	/* Sleep on the handle, as an event-driven program does, and progress only when it fires. */
	while (!result.done) {
		int n;

		assert_int_equal(doca_pe_request_notification(host.pe), DOCA_SUCCESS);
		n = epoll_wait(ep, &ev, 1, 60000);
		assert_true(n == 1);
		woken++;
		assert_int_equal(doca_pe_clear_notification(host.pe, handle), DOCA_SUCCESS);
		while (doca_pe_progress(host.pe))
			;
		assert_true(woken < 1000);
	}
	assert_int_equal(result.status, DOCA_SUCCESS);
	assert_true(result.data == 77);
	close(ep);
	assert_int_equal(it_worker_stop(&host, worker), DOCA_SUCCESS);
}

static void a_second_worker_with_a_running_id_joins_that_worker(void **unused)
{
	struct doca_urom_worker *first = running_worker(0x5100, 3, graph_id);
	struct doca_urom_worker *second;
	struct loopback a, b;
	enum doca_ctx_states state;
	uint64_t id;
	uint32_t gid;

	(void)unused;
	/* Plugins the running worker does not have cannot be joined: the second stays IDLE. */
	assert_int_equal(it_worker_start(&host, 0x5100, 3, graph_id | sandbox_id, 0, NULL, 0, &second, &state),
			 DOCA_SUCCESS);
	assert_int_equal(state, DOCA_CTX_STATE_IDLE);
	assert_int_equal(doca_urom_worker_destroy(second), DOCA_SUCCESS);
	/* Another gid is asked for: the running worker's wins. */
	assert_int_equal(it_worker_start(&host, 0x5100, 9, graph_id, 0, NULL, 0, &second, &state), DOCA_SUCCESS);
	assert_int_equal(state, DOCA_CTX_STATE_RUNNING);
	assert_int_equal(doca_urom_worker_get_id(second, &id), DOCA_SUCCESS);
	assert_true(id == 0x5100);
	assert_int_equal(doca_urom_worker_get_gid(second, &gid), DOCA_SUCCESS);
	assert_int_equal(gid, 3);
	assert_int_equal(submit_loopback(first, 1, &a), DOCA_SUCCESS);
	assert_int_equal(submit_loopback(second, 2, &b), DOCA_SUCCESS);
	assert_true(it_progress_until(host.pe, loopback_finished, &a, 60000));
	assert_true(it_progress_until(host.pe, loopback_finished, &b, 60000));
	assert_true(a.data == 1 && b.data == 2);
	/* One connection stops; the worker serves the other. */
	assert_int_equal(it_worker_stop(&host, second), DOCA_SUCCESS);
	assert_int_equal(submit_loopback(first, 3, &a), DOCA_SUCCESS);
	assert_true(it_progress_until(host.pe, loopback_finished, &a, 60000));
	assert_int_equal(a.status, DOCA_SUCCESS);
	assert_true(a.data == 3);
	assert_int_equal(it_worker_stop(&host, first), DOCA_SUCCESS);
}

static void an_environment_the_daemon_does_not_allow_leaves_the_worker_idle(void **unused)
{
	char *refused[] = {"LD_PRELOAD=/tmp/x.so"};
	char *spaced[] = {"UCX_TLS=tcp self"};
	char *allowed[] = {"UCX_LOG_LEVEL=warn"};
	struct doca_urom_worker *worker;
	enum doca_ctx_states state;

	(void)unused;
	assert_int_equal(it_worker_start(&host, DOCA_UROM_WORKER_ID_ANY, 0, graph_id, 0, refused, 1, &worker, &state),
			 DOCA_SUCCESS);
	assert_int_equal(state, DOCA_CTX_STATE_IDLE);
	/* White space is refused before anything is sent. */
	assert_int_equal(doca_urom_worker_set_env(worker, spaced, 1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_urom_worker_destroy(worker), DOCA_SUCCESS);
	assert_int_equal(it_worker_start(&host, DOCA_UROM_WORKER_ID_ANY, 0, graph_id, 0, allowed, 1, &worker, &state),
			 DOCA_SUCCESS);
	assert_int_equal(state, DOCA_CTX_STATE_RUNNING);
	assert_int_equal(it_worker_stop(&host, worker), DOCA_SUCCESS);
}

static void a_worker_takes_a_cpu_set_within_the_services(void **unused)
{
	doca_cpu_set_t service_cpus, one, outside;
	struct doca_urom_worker *worker;
	int first = -1;

	(void)unused;
	assert_int_equal(doca_urom_service_get_cpuset(host.service, &service_cpus), DOCA_SUCCESS);
	for (int cpu = 0; cpu < UCS_CPU_SETSIZE && first < 0; cpu++) {
		if (doca_cpu_is_set(cpu, &service_cpus))
			first = cpu;
	}
	assert_true(first >= 0);
	DOCA_CPU_ZERO(&one);
	DOCA_CPU_SET(first, &one);
	DOCA_CPU_ZERO(&outside);
	DOCA_CPU_SET(UCS_CPU_SETSIZE - 1, &outside);
	assert_int_equal(doca_urom_worker_create(&worker), DOCA_SUCCESS);
	assert_int_equal(doca_urom_worker_set_service(worker, host.service), DOCA_SUCCESS);
	assert_int_equal(doca_urom_worker_set_cpuset(worker, outside), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_urom_worker_set_cpuset(worker, one), DOCA_SUCCESS);
	assert_int_equal(doca_urom_worker_set_plugins(worker, graph_id), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(host.pe, doca_urom_worker_as_ctx(worker)), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(doca_urom_worker_as_ctx(worker)), DOCA_ERROR_IN_PROGRESS);
	{
		enum doca_ctx_states state = DOCA_CTX_STATE_STARTING;

		while (state == DOCA_CTX_STATE_STARTING) {
			doca_pe_progress(host.pe);
			doca_ctx_get_state(doca_urom_worker_as_ctx(worker), &state);
		}
		assert_int_equal(state, DOCA_CTX_STATE_RUNNING);
	}
	assert_int_equal(it_worker_stop(&host, worker), DOCA_SUCCESS);
}

static void past_its_in_flight_limit_a_submission_answers_again(void **unused)
{
	struct doca_urom_worker *worker;
	enum doca_ctx_states state;
	struct loopback r[3];

	(void)unused;
	assert_int_equal(it_worker_start(&host, DOCA_UROM_WORKER_ID_ANY, 0, graph_id, 2, NULL, 0, &worker, &state),
			 DOCA_SUCCESS);
	assert_int_equal(state, DOCA_CTX_STATE_RUNNING);
	completions = 0;
	assert_int_equal(submit_loopback(worker, 10, &r[0]), DOCA_SUCCESS);
	assert_int_equal(submit_loopback(worker, 11, &r[1]), DOCA_SUCCESS);
	/* No progress yet: both are still in flight. */
	assert_int_equal(submit_loopback(worker, 12, &r[2]), DOCA_ERROR_AGAIN);
	assert_true(it_progress_until(host.pe, loopback_finished, &r[1], 60000));
	assert_true(r[0].done && r[0].data == 10 && r[1].data == 11);
	/* Completions come in the order the worker answered, and room is back. */
	assert_int_equal(r[0].order, 1);
	assert_int_equal(r[1].order, 2);
	assert_int_equal(submit_loopback(worker, 12, &r[2]), DOCA_SUCCESS);
	assert_true(it_progress_until(host.pe, loopback_finished, &r[2], 60000));
	assert_true(r[2].data == 12);
	assert_int_equal(doca_urom_worker_set_max_inflight_tasks(worker, 3), DOCA_ERROR_BAD_STATE);
	assert_int_equal(it_worker_stop(&host, worker), DOCA_SUCCESS);
}

static void a_command_larger_than_the_daemon_takes_is_too_big_and_a_plugin_refusal_has_its_status(void **unused)
{
	struct it_host big;
	struct doca_urom_worker *worker;
	struct doca_urom_worker_cmd_task *task;
	struct doca_buf *payload;
	enum doca_ctx_states state;
	struct loopback result;
	uint8_t *command_bytes = calloc(1, 8192);
	size_t cap;
	void *head;

	(void)unused;
	/* A program that asks for 64 KiB messages from a daemon that takes 4 KiB (its default). */
	assert_int_equal(doca_pe_create(&big.pe), DOCA_SUCCESS);
	big.dev = host.dev;
	assert_int_equal(doca_urom_service_create(&big.service), DOCA_SUCCESS);
	assert_int_equal(doca_urom_service_set_max_comm_msg_size(big.service, 65536), DOCA_SUCCESS);
	assert_int_equal(doca_urom_service_set_dev(big.service, host.dev), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(big.pe, doca_urom_service_as_ctx(big.service)), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(doca_urom_service_as_ctx(big.service)), DOCA_SUCCESS);
	assert_int_equal(doca_urom_service_set_max_comm_msg_size(big.service, 8192), DOCA_ERROR_BAD_STATE);
	assert_int_equal(it_worker_start(&big, DOCA_UROM_WORKER_ID_ANY, 0, graph_id, 0, NULL, 0, &worker, &state),
			 DOCA_SUCCESS);
	assert_int_equal(state, DOCA_CTX_STATE_RUNNING);
	assert_int_equal(doca_urom_worker_cmd_task_allocate_init(worker, graph_id, &task), DOCA_SUCCESS);
	payload = doca_urom_worker_cmd_task_get_payload(task);
	assert_int_equal(doca_buf_get_data_len(payload, &cap), DOCA_SUCCESS);
	assert_int_equal(cap, 65536 - 24);
	doca_buf_get_data(payload, &head);
	assert_int_equal(doca_buf_set_data(payload, head, 8192), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_urom_worker_cmd_task_as_task(task)), DOCA_ERROR_TOO_BIG);
	/* What fits goes; the graph plugin refuses a command that is not 16 bytes, with its status. */
	assert_int_equal(doca_urom_worker_cmd_task_release(task), DOCA_SUCCESS);
	task = command(worker, graph_id, command_bytes, 4096 - 24, &result);
	assert_int_equal(doca_task_submit(doca_urom_worker_cmd_task_as_task(task)), DOCA_SUCCESS);
	assert_true(it_progress_until(big.pe, loopback_finished, &result, 60000));
	assert_int_equal(result.status, DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(result.len, 0);
	assert_int_equal(it_worker_stop(&big, worker), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_stop(doca_urom_service_as_ctx(big.service)), DOCA_SUCCESS);
	assert_int_equal(doca_urom_service_destroy(big.service), DOCA_SUCCESS);
	assert_int_equal(doca_pe_destroy(big.pe), DOCA_SUCCESS);
	free(command_bytes);
}

/* The daemon's children: its workers (each a launcher that became a JVM). */
static int kill_workers_of(pid_t daemon)
{
	DIR *proc = opendir("/proc");
	struct dirent *e;
	int killed = 0;

	while (proc != NULL && (e = readdir(proc)) != NULL) {
		char path[300], line[512];
		FILE *f;
		long ppid = -1;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/status", e->d_name);
		f = fopen(path, "r");
		if (f == NULL)
			continue;
		while (fgets(line, sizeof(line), f) != NULL) {
			if (strncmp(line, "PPid:", 5) == 0)
				ppid = strtol(line + 5, NULL, 10);
		}
		fclose(f);
		if (ppid == daemon && kill((pid_t)atol(e->d_name), SIGKILL) == 0)
			killed++;
	}
	if (proc != NULL)
		closedir(proc);
	return killed;
}

static void a_worker_killed_with_commands_in_flight_ends_them_with_an_error_and_goes_idle(void **unused)
{
	struct doca_urom_worker *worker = running_worker(DOCA_UROM_WORKER_ID_ANY, 0, sandbox_id);
	struct loopback r[2];
	uint8_t recv_cmd[56] = {0};
	enum doca_ctx_states state;

	(void)unused;
	/* Two TAG_RECVs that nothing will ever match. */
	urom_store_le64(recv_cmd, 2);
	urom_store_le64(recv_cmd + 16, 0);
	urom_store_le64(recv_cmd + 24, 64);
	urom_store_le64(recv_cmd + 32, 0x77);
	urom_store_le64(recv_cmd + 40, ~0ULL);
	for (int i = 0; i < 2; i++) {
		struct doca_urom_worker_cmd_task *task;

		urom_store_le64(recv_cmd + 8, (uint64_t)i);
		task = command(worker, sandbox_id, recv_cmd, sizeof(recv_cmd), &r[i]);
		assert_int_equal(doca_task_submit(doca_urom_worker_cmd_task_as_task(task)), DOCA_SUCCESS);
	}
	for (int i = 0; i < 200; i++)
		doca_pe_progress(host.pe);
	assert_false(r[0].done || r[1].done);
	/* Every worker process of the daemon: this test's, and any an earlier test left ending. */
	assert_true(kill_workers_of(daemon_.pid) >= 1);
	assert_true(it_progress_until(host.pe, loopback_finished, &r[1], 60000));
	assert_true(r[0].done);
	assert_int_equal(r[0].status, DOCA_ERROR_CONNECTION_RESET);
	assert_int_equal(r[1].status, DOCA_ERROR_CONNECTION_RESET);
	while (doca_pe_progress(host.pe))
		;
	assert_int_equal(doca_ctx_get_state(doca_urom_worker_as_ctx(worker), &state), DOCA_SUCCESS);
	assert_int_equal(state, DOCA_CTX_STATE_IDLE);
	assert_int_equal(doca_ctx_stop(doca_urom_worker_as_ctx(worker)), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_urom_worker_destroy(worker), DOCA_SUCCESS);
}

struct gid_query {
	int done;
	doca_error_t status;
	uint64_t ids[16];
	size_t count;
};

static void gid_done(struct doca_urom_service_get_workers_by_gid_task *task, union doca_data task_user_data,
		     union doca_data ctx_user_data)
{
	struct gid_query *q = task_user_data.ptr;
	const uint64_t *ids = doca_urom_service_get_workers_by_gid_task_get_worker_ids(task);

	(void)ctx_user_data;
	q->status = doca_task_get_status(doca_urom_service_get_workers_by_gid_task_as_task(task));
	q->count = doca_urom_service_get_workers_by_gid_task_get_workers_count(task);
	for (size_t i = 0; i < q->count && i < 16; i++)
		q->ids[i] = ids[i];
	q->done = 1;
	doca_urom_service_get_workers_by_gid_task_release(task);
}

static bool gid_finished(void *arg)
{
	return ((struct gid_query *)arg)->done;
}

static struct gid_query query_gid(uint32_t gid)
{
	struct doca_urom_service_get_workers_by_gid_task *task;
	struct gid_query q = {0};
	union doca_data data = {.ptr = &q};

	assert_int_equal(doca_urom_service_get_workers_by_gid_task_allocate_init(host.service, gid, gid_done, &task),
			 DOCA_SUCCESS);
	doca_task_set_user_data(doca_urom_service_get_workers_by_gid_task_as_task(task), data);
	assert_int_equal(doca_task_submit(doca_urom_service_get_workers_by_gid_task_as_task(task)), DOCA_SUCCESS);
	/* In flight: it cannot be released. */
	assert_int_equal(doca_urom_service_get_workers_by_gid_task_release(task), DOCA_ERROR_NOT_PERMITTED);
	assert_true(it_progress_until(host.pe, gid_finished, &q, 60000));
	return q;
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void the_workers_of_a_group_are_those_started_with_its_gid(void **unused)
{
	struct doca_urom_worker *workers[4];
	struct gid_query q;

	(void)unused;
	for (int i = 0; i < 4; i++)
		workers[i] = running_worker(0x6000 + (uint64_t)i, (uint32_t)(100 + i % 2), graph_id);
	q = query_gid(100);
	assert_int_equal(q.status, DOCA_SUCCESS);
	assert_int_equal(q.count, 2);
	qsort(q.ids, q.count, sizeof(q.ids[0]), compare_u64);
	assert_true(q.ids[0] == 0x6000 && q.ids[1] == 0x6002);
	q = query_gid(101);
	assert_int_equal(q.count, 2);
	qsort(q.ids, q.count, sizeof(q.ids[0]), compare_u64);
	assert_true(q.ids[0] == 0x6001 && q.ids[1] == 0x6003);
	q = query_gid(102);
	assert_int_equal(q.status, DOCA_SUCCESS);
	assert_int_equal(q.count, 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(it_worker_stop(&host, workers[i]), DOCA_SUCCESS);
}

static void a_service_caps_its_workers_at_a_power_of_two(void **unused)
{
	struct it_host capped = host;
	struct doca_urom_worker *w[3];
	enum doca_ctx_states state;

	(void)unused;
	assert_int_equal(doca_urom_service_create(&capped.service), DOCA_SUCCESS);
	assert_int_equal(doca_urom_service_set_max_workers(capped.service, 3), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_urom_service_set_max_workers(capped.service, 2), DOCA_SUCCESS);
	assert_int_equal(doca_urom_service_set_dev(capped.service, host.dev), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(host.pe, doca_urom_service_as_ctx(capped.service)), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(doca_urom_service_as_ctx(capped.service)), DOCA_SUCCESS);
	assert_int_equal(doca_urom_service_set_max_workers(capped.service, 4), DOCA_ERROR_BAD_STATE);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(
			it_worker_start(&capped, DOCA_UROM_WORKER_ID_ANY, 0, graph_id, 0, NULL, 0, &w[i], &state),
			DOCA_SUCCESS);
		assert_int_equal(state, DOCA_CTX_STATE_RUNNING);
	}
	assert_int_equal(doca_urom_worker_create(&w[2]), DOCA_SUCCESS);
	assert_int_equal(doca_urom_worker_set_service(w[2], capped.service), DOCA_SUCCESS);
	assert_int_equal(doca_urom_worker_set_plugins(w[2], graph_id), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(host.pe, doca_urom_worker_as_ctx(w[2])), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(doca_urom_worker_as_ctx(w[2])), DOCA_ERROR_FULL);
	/* A service with workers that still name it is not destroyed. */
	assert_int_equal(doca_urom_worker_destroy(w[2]), DOCA_SUCCESS);
	for (int i = 0; i < 2; i++)
		assert_int_equal(it_worker_stop(&capped, w[i]), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_stop(doca_urom_service_as_ctx(capped.service)), DOCA_SUCCESS);
	assert_int_equal(doca_urom_service_destroy(capped.service), DOCA_SUCCESS);
}

static void a_service_without_a_device_or_a_daemon_does_not_start(void **unused)
{
	struct doca_urom_service *svc;
	struct doca_devinfo **list;
	struct doca_dev *other = NULL;
	uint32_t n;

	(void)unused;
	assert_int_equal(doca_urom_service_create(&svc), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(host.pe, doca_urom_service_as_ctx(svc)), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(doca_urom_service_as_ctx(svc)), DOCA_ERROR_INVALID_VALUE);
	/* A service file whose line points where nobody listens. */
	{
		char path[PATH_MAX + 16], host_name[256];
		FILE *f;

		snprintf(path, sizeof(path), "%s/nobody", daemon_.dir);
		gethostname(host_name, sizeof(host_name));
		f = fopen(path, "w");
		assert_non_null(f);
		fprintf(f, "%s dpu unix:%s/nobody.sock 0000:5e:00.0 mlx5_3:1\n", host_name, daemon_.dir);
		fclose(f);
		setenv("DOCA_UROM_SERVICE_FILE", path, 1);
		assert_int_equal(doca_devinfo_create_list(&list, &n), DOCA_SUCCESS);
		assert_int_equal(n, 1);
		assert_int_equal(doca_dev_open(list[0], &other), DOCA_SUCCESS);
		doca_devinfo_destroy_list(list);
		setenv("DOCA_UROM_SERVICE_FILE", daemon_.service_file, 1);
	}
	assert_int_equal(doca_urom_service_set_dev(svc, other), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(doca_urom_service_as_ctx(svc)), DOCA_ERROR_NOT_CONNECTED);
	assert_int_equal(doca_urom_service_destroy(svc), DOCA_SUCCESS);
	assert_int_equal(doca_dev_close(other), DOCA_SUCCESS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_plugin_list_names_every_plugin_of_the_daemon_with_one_bit_each),
		cmocka_unit_test(the_cpu_set_is_the_cpus_the_daemon_may_run_workers_on),
		cmocka_unit_test(a_worker_starts_in_progress_loops_a_value_back_and_stops),
		cmocka_unit_test(in_event_mode_the_notification_handle_wakes_the_program_for_a_completion),
		cmocka_unit_test(a_second_worker_with_a_running_id_joins_that_worker),
		cmocka_unit_test(an_environment_the_daemon_does_not_allow_leaves_the_worker_idle),
		cmocka_unit_test(a_worker_takes_a_cpu_set_within_the_services),
		cmocka_unit_test(past_its_in_flight_limit_a_submission_answers_again),
		cmocka_unit_test(a_command_larger_than_the_daemon_takes_is_too_big_and_a_plugin_refusal_has_its_status),
		cmocka_unit_test(a_worker_killed_with_commands_in_flight_ends_them_with_an_error_and_goes_idle),
		cmocka_unit_test(the_workers_of_a_group_are_those_started_with_its_gid),
		cmocka_unit_test(a_service_caps_its_workers_at_a_power_of_two),
		cmocka_unit_test(a_service_without_a_device_or_a_daemon_does_not_start),
	};

	return cmocka_run_group_tests_name("host-c worker", tests, setup, teardown);
}
