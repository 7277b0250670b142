/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom-java C sample: multi_workers_bootstrap.
 *
 * The main thread owns the service (and its progress engine) and the worker objects: it creates
 * each worker and names its service, id, group and CPU, and destroys it at the end. Each worker's
 * thread connects it to an engine of its own, starts it, loops the worker's id back through the
 * graph plugin, and keeps the worker running until the main thread has asked the service which
 * workers are in groups 0 and 1. The main thread keeps progressing the service's engine throughout.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <doca_ctx.h>
#include <doca_log.h>
#include <doca_pe.h>
#include <doca_urom.h>

#include "multi_workers_bootstrap.h"
#include "urom_graph_host.h"
#include "urom_sample_common.h"

DOCA_LOG_REGISTER(UROM::SAMPLE::BOOTSTRAP);

#define GRAPH_PLUGIN_NAME "worker_graph"
#define GROUPS 2

enum thread_phase {
	PHASE_STARTING,
	/* The worker runs and looped its id back. */
	PHASE_READY,
	PHASE_FAILED,
};

struct worker_thread {
	pthread_t thread;
	bool thread_started;
	uint64_t id;
	uint32_t gid;
	struct doca_urom_worker *worker;
	struct doca_pe *pe;
	atomic_int phase;
	doca_error_t result;
};

/* Set by the main thread once the groups were asked for (or something failed): workers stop. */
static atomic_bool stop_workers;

struct loopback_result {
	volatile bool done;
	doca_error_t result;
	uint64_t data;
};

static void loopback_finished(doca_error_t result, union doca_data cookie, uint64_t data)
{
	struct loopback_result *lb = cookie.ptr;

	lb->result = result;
	lb->data = data;
	lb->done = true;
}

/* The thread of one worker: start, loop back, wait, stop. */
static void *worker_main(void *arg)
{
	struct worker_thread *t = arg;
	struct doca_ctx *ctx = doca_urom_worker_as_ctx(t->worker);
	struct loopback_result lb = {0};
	enum doca_ctx_states state;
	union doca_data cookie = {.ptr = &lb};
	uint64_t id = 0;
	doca_error_t result;

	result = doca_pe_connect_ctx(t->pe, ctx);
	if (result == DOCA_SUCCESS) {
		result = doca_ctx_start(ctx);
		if (result == DOCA_ERROR_IN_PROGRESS)
			result = sample_wait_state(t->pe, ctx, DOCA_CTX_STATE_STARTING, SAMPLE_STEP_TIMEOUT_MS, &state);
		else if (result == DOCA_SUCCESS)
			result = DOCA_ERROR_UNEXPECTED;
		if (result == DOCA_SUCCESS && state != DOCA_CTX_STATE_RUNNING)
			result = DOCA_ERROR_BAD_STATE;
	}
	if (result != DOCA_SUCCESS) {
		printf("worker %lu gid %u: start: FAILED (%s)\n", (unsigned long)t->id, t->gid,
		       doca_error_get_descr(result));
		goto fail;
	}
	result = doca_urom_worker_get_id(t->worker, &id);
	if (result == DOCA_SUCCESS && id != t->id)
		result = DOCA_ERROR_UNEXPECTED;
	if (result != DOCA_SUCCESS) {
		printf("worker %lu gid %u: the service gave it id %lu: FAILED\n", (unsigned long)t->id, t->gid,
		       (unsigned long)id);
		goto fail;
	}

	result = urom_graph_task_loopback(t->worker, cookie, id, loopback_finished);
	if (result == DOCA_SUCCESS && !sample_progress_until(t->pe, &lb.done, SAMPLE_STEP_TIMEOUT_MS))
		result = DOCA_ERROR_TIME_OUT;
	if (result == DOCA_SUCCESS)
		result = lb.result;
	if (result == DOCA_SUCCESS && lb.data != id)
		result = DOCA_ERROR_UNEXPECTED;
	if (result != DOCA_SUCCESS) {
		printf("worker %lu gid %u: loopback %lu -> %lu: FAILED (%s)\n", (unsigned long)id, t->gid,
		       (unsigned long)id, (unsigned long)lb.data, doca_error_get_descr(result));
		goto fail;
	}
	printf("worker %lu gid %u: loopback %lu -> %lu: ok\n", (unsigned long)id, t->gid, (unsigned long)id,
	       (unsigned long)lb.data);
	atomic_store(&t->phase, PHASE_READY);

	/* Running, and answering its connection, until the main thread is done with the groups. */
	while (!atomic_load(&stop_workers)) {
		if (doca_pe_progress(t->pe) == 0)
			usleep(1000);
	}
	goto stop;
fail:
	t->result = result;
	atomic_store(&t->phase, PHASE_FAILED);
stop:
	doca_ctx_get_state(ctx, &state);
	if (state != DOCA_CTX_STATE_IDLE) {
		result = doca_ctx_stop(ctx);
		if (result == DOCA_SUCCESS || result == DOCA_ERROR_IN_PROGRESS) {
			int64_t deadline = sample_now_ms() + SAMPLE_STEP_TIMEOUT_MS;

			while (doca_ctx_get_state(ctx, &state) == DOCA_SUCCESS && state != DOCA_CTX_STATE_IDLE &&
			       sample_now_ms() < deadline) {
				if (doca_pe_progress(t->pe) == 0)
					usleep(100);
			}
		}
		if (state != DOCA_CTX_STATE_IDLE) {
			DOCA_LOG_ERR("Worker %lu did not stop", (unsigned long)t->id);
			t->result = DOCA_ERROR_TIME_OUT;
			atomic_store(&t->phase, PHASE_FAILED);
		}
	}
	/* Deliver the stop's state change before the main thread destroys the worker. */
	while (doca_pe_progress(t->pe))
		;
	return NULL;
}

struct gid_result {
	volatile bool done;
	doca_error_t result;
	size_t count;
	uint64_t ids[BOOTSTRAP_MAX_WORKERS];
};

static void gid_finished(struct doca_urom_service_get_workers_by_gid_task *task, union doca_data task_user_data,
			 union doca_data ctx_user_data)
{
	struct gid_result *r = task_user_data.ptr;
	const uint64_t *ids;

	(void)ctx_user_data;
	r->result = doca_task_get_status(doca_urom_service_get_workers_by_gid_task_as_task(task));
	if (r->result == DOCA_SUCCESS) {
		r->count = doca_urom_service_get_workers_by_gid_task_get_workers_count(task);
		ids = doca_urom_service_get_workers_by_gid_task_get_worker_ids(task);
		if (r->count > BOOTSTRAP_MAX_WORKERS || (r->count != 0 && ids == NULL))
			r->result = DOCA_ERROR_UNEXPECTED;
		else if (r->count != 0)
			memcpy(r->ids, ids, r->count * sizeof(ids[0]));
	}
	doca_urom_service_get_workers_by_gid_task_release(task);
	r->done = true;
}

static int compare_ids(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void format_ids(char *out, size_t size, const uint64_t *ids, size_t n)
{
	size_t at = 0;

	out[0] = '\0';
	for (size_t i = 0; i < n && at < size; i++) {
		int w = snprintf(out + at, size - at, "%s%lu", i == 0 ? "" : " ", (unsigned long)ids[i]);

		if (w < 0)
			break;
		at += (size_t)w;
	}
}

/* Asks the service for the workers of gid and compares them with the expected ids. */
static doca_error_t check_group(struct doca_pe *pe, struct doca_urom_service *service, uint32_t gid,
				const struct worker_thread *threads, int n)
{
	struct doca_urom_service_get_workers_by_gid_task *task;
	struct gid_result r = {0};
	uint64_t expected[BOOTSTRAP_MAX_WORKERS];
	size_t n_expected = 0;
	char got_text[BOOTSTRAP_MAX_WORKERS * 21], expected_text[BOOTSTRAP_MAX_WORKERS * 21];
	doca_error_t result;
	bool same;

	for (int i = 0; i < n; i++) {
		if (threads[i].gid == gid)
			expected[n_expected++] = threads[i].id;
	}
	result = doca_urom_service_get_workers_by_gid_task_allocate_init(service, gid, gid_finished, &task);
	if (result != DOCA_SUCCESS) {
		printf("gid %u: allocating the query: FAILED (%s)\n", gid, doca_error_get_descr(result));
		return result;
	}
	doca_task_set_user_data(doca_urom_service_get_workers_by_gid_task_as_task(task), (union doca_data){.ptr = &r});
	result = doca_task_submit(doca_urom_service_get_workers_by_gid_task_as_task(task));
	if (result != DOCA_SUCCESS) {
		doca_urom_service_get_workers_by_gid_task_release(task);
		printf("gid %u: submitting the query: FAILED (%s)\n", gid, doca_error_get_descr(result));
		return result;
	}
	if (!sample_progress_until(pe, &r.done, SAMPLE_STEP_TIMEOUT_MS)) {
		/* The task is still the service's; the program ends without it. */
		printf("gid %u: no answer within %d s: FAILED\n", gid, SAMPLE_STEP_TIMEOUT_MS / 1000);
		return DOCA_ERROR_TIME_OUT;
	}
	if (r.result != DOCA_SUCCESS) {
		printf("gid %u: query: FAILED (%s)\n", gid, doca_error_get_descr(r.result));
		return r.result;
	}
	qsort(r.ids, r.count, sizeof(r.ids[0]), compare_ids);
	qsort(expected, n_expected, sizeof(expected[0]), compare_ids);
	same = r.count == n_expected &&
	       (n_expected == 0 || memcmp(r.ids, expected, n_expected * sizeof(expected[0])) == 0);
	format_ids(got_text, sizeof(got_text), r.ids, r.count);
	format_ids(expected_text, sizeof(expected_text), expected, n_expected);
	printf("gid %u: workers [%s], expected [%s]: %s\n", gid, got_text, expected_text, same ? "ok" : "FAILED");
	return same ? DOCA_SUCCESS : DOCA_ERROR_UNEXPECTED;
}

/* The i-th CPU of the service's set, round robin; false when the set is empty. */
static bool pick_cpu(const doca_cpu_set_t *cpus, int i, doca_cpu_set_t *one)
{
	int count = 0, cpu;

	for (cpu = 0; cpu < UCS_CPU_SETSIZE; cpu++)
		count += doca_cpu_is_set(cpu, cpus) != 0;
	if (count == 0)
		return false;
	i %= count;
	for (cpu = 0; cpu < UCS_CPU_SETSIZE; cpu++) {
		if (doca_cpu_is_set(cpu, cpus) && i-- == 0)
			break;
	}
	DOCA_CPU_ZERO(one);
	DOCA_CPU_SET(cpu, one);
	return true;
}

/* Creates the workers (main thread: their service, id, group and CPU) and starts their threads. */
static doca_error_t launch(struct doca_urom_service *service, uint64_t plugins, struct worker_thread *threads, int n)
{
	doca_cpu_set_t cpus, one;
	doca_error_t result;

	result = doca_urom_service_get_cpuset(service, &cpus);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Reading the service's CPU set failed: %s", doca_error_get_descr(result));
		return result;
	}
	for (int i = 0; i < n; i++) {
		struct worker_thread *t = &threads[i];

		t->id = (uint64_t)i;
		t->gid = (uint32_t)(i % GROUPS);
		atomic_init(&t->phase, PHASE_STARTING);
		result = doca_pe_create(&t->pe);
		if (result == DOCA_SUCCESS)
			result = doca_urom_worker_create(&t->worker);
		if (result == DOCA_SUCCESS)
			result = doca_urom_worker_set_service(t->worker, service);
		if (result == DOCA_SUCCESS)
			result = doca_urom_worker_set_id(t->worker, t->id);
		if (result == DOCA_SUCCESS)
			result = doca_urom_worker_set_gid(t->worker, t->gid);
		if (result == DOCA_SUCCESS)
			result = doca_urom_worker_set_plugins(t->worker, plugins);
		/* Workers share the service's CPUs, round robin, however few there are. */
		if (result == DOCA_SUCCESS && pick_cpu(&cpus, i, &one))
			result = doca_urom_worker_set_cpuset(t->worker, one);
		if (result != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Setting up worker %d failed: %s", i, doca_error_get_descr(result));
			return result;
		}
		if (pthread_create(&t->thread, NULL, worker_main, t) != 0) {
			DOCA_LOG_ERR("Starting the thread of worker %d failed", i);
			return DOCA_ERROR_OPERATING_SYSTEM;
		}
		t->thread_started = true;
	}
	return DOCA_SUCCESS;
}

/* Progresses the service until every worker is ready or one failed. */
static doca_error_t wait_ready(struct doca_pe *pe, struct worker_thread *threads, int n)
{
	int64_t deadline = sample_now_ms() + (int64_t)SAMPLE_STEP_TIMEOUT_MS * 2;

	for (;;) {
		int ready = 0;

		for (int i = 0; i < n; i++) {
			int phase = atomic_load(&threads[i].phase);

			if (phase == PHASE_FAILED)
				return threads[i].result;
			ready += phase == PHASE_READY;
		}
		if (ready == n)
			return DOCA_SUCCESS;
		if (sample_now_ms() > deadline) {
			DOCA_LOG_ERR("%d of %d workers were ready in time", ready, n);
			return DOCA_ERROR_TIME_OUT;
		}
		if (doca_pe_progress(pe) == 0)
			usleep(1000);
	}
}

/* Stops the threads and destroys what launch() made; DOCA_SUCCESS if every worker ended well. */
static doca_error_t finish(struct doca_pe *pe, struct worker_thread *threads, int n)
{
	doca_error_t result = DOCA_SUCCESS;

	atomic_store(&stop_workers, true);
	for (int i = 0; i < n; i++) {
		struct worker_thread *t = &threads[i];

		if (t->thread_started) {
			/* The service's engine keeps moving while the threads stop their workers. */
			while (pthread_tryjoin_np(t->thread, NULL) != 0) {
				if (doca_pe_progress(pe) == 0)
					usleep(1000);
			}
			if (atomic_load(&t->phase) == PHASE_FAILED && result == DOCA_SUCCESS)
				result = t->result != DOCA_SUCCESS ? t->result : DOCA_ERROR_UNKNOWN;
		}
		if (t->worker != NULL && doca_urom_worker_destroy(t->worker) != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Destroying worker %lu failed", (unsigned long)t->id);
			if (result == DOCA_SUCCESS)
				result = DOCA_ERROR_BAD_STATE;
		}
		if (t->pe != NULL)
			doca_pe_destroy(t->pe);
	}
	return result;
}

doca_error_t multi_workers_bootstrap(const struct bootstrap_config *cfg)
{
	struct worker_thread threads[BOOTSTRAP_MAX_WORKERS];
	struct doca_urom_service *service = NULL;
	struct doca_dev *dev = NULL;
	struct doca_pe *pe = NULL;
	uint64_t graph_id, graph_version;
	int n = cfg->workers;
	doca_error_t result, end;

	memset(threads, 0, sizeof(threads));
	atomic_store(&stop_workers, false);
	if (n < 1 || n > BOOTSTRAP_MAX_WORKERS)
		return DOCA_ERROR_INVALID_VALUE;
	result = sample_open_device(cfg->device, &dev);
	if (result != DOCA_SUCCESS)
		goto out;
	result = doca_pe_create(&pe);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Creating the progress engine failed: %s", doca_error_get_descr(result));
		goto close_dev;
	}
	result = sample_start_service(pe, dev, &service);
	if (result != DOCA_SUCCESS)
		goto destroy_pe;
	result = sample_find_plugin(service, GRAPH_PLUGIN_NAME, &graph_id, &graph_version);
	if (result == DOCA_SUCCESS) {
		result = urom_graph_init(graph_id, graph_version);
		if (result != DOCA_SUCCESS)
			DOCA_LOG_ERR("The graph helper refused plugin version %lu: %s", (unsigned long)graph_version,
				     doca_error_get_descr(result));
	}
	if (result != DOCA_SUCCESS)
		goto stop_service;
	printf("service: plugin %s id 0x%lx version %lu; starting %d workers\n", GRAPH_PLUGIN_NAME,
	       (unsigned long)graph_id, (unsigned long)graph_version, n);

	result = launch(service, graph_id, threads, n);
	if (result == DOCA_SUCCESS)
		result = wait_ready(pe, threads, n);
	for (uint32_t gid = 0; result == DOCA_SUCCESS && gid < GROUPS; gid++)
		result = check_group(pe, service, gid, threads, n);
	end = finish(pe, threads, n);
	if (result == DOCA_SUCCESS)
		result = end;

stop_service:
	end = sample_stop_service(pe, service);
	if (result == DOCA_SUCCESS)
		result = end;
destroy_pe:
	doca_pe_destroy(pe);
close_dev:
	doca_dev_close(dev);
out:
	if (result == DOCA_SUCCESS)
		printf("multi_workers_bootstrap: %d workers: all results matched\n", n);
	else
		printf("multi_workers_bootstrap: FAILED (%s)\n", doca_error_get_descr(result));
	return result;
}
