/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The plugins' C host helpers against one real daemon: the graph helper's loopback, the sandbox
 * helper's MEM_MAP and its refusals, and a domain of two processes (this one and a forked one, each
 * with its own service connection and sandbox worker, joined by an allgather over a socketpair)
 * that exchanges inline messages through the sandbox helper, including one longer than the
 * receive.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <doca_ctx.h>
#include <doca_urom.h>

#include "it_daemon.h"
#include "urom_graph_host.h"
#include "urom_sandbox_host.h"

#define TIMEOUT_MS 60000
#define CHILD_TIMEOUT_MS 180000
#define PING_TAG 0x1234
#define PONG_TAG 0x5678
#define LONG_TAG 0x99

static struct it_daemon daemon_;
static struct it_host host;
static uint64_t graph_id, graph_version;
static uint64_t sandbox_id, sandbox_version;

/* ---- what the helpers' callbacks saw ---- */

struct loopback_seen {
	int calls;
	doca_error_t result;
	uint64_t data;
};

struct send_seen {
	int calls;
	doca_error_t result;
	doca_error_t status;
	uint64_t context;
};

struct recv_seen {
	int calls;
	doca_error_t result;
	doca_error_t status;
	uint64_t context;
	void *buffer;
	uint64_t count;
	uint64_t sender_tag;
};

struct map_seen {
	int calls;
	doca_error_t result;
	uint64_t context;
	uint64_t memh_id;
};

static void on_loopback(doca_error_t result, union doca_data cookie, uint64_t data)
{
	struct loopback_seen *s = cookie.ptr;

	s->calls++;
	s->result = result;
	s->data = data;
}

static void on_send(doca_error_t result, union doca_data cookie, union doca_data context, doca_error_t status)
{
	struct send_seen *s = cookie.ptr;

	s->calls++;
	s->result = result;
	s->status = status;
	s->context = context.u64;
}

static void on_recv(doca_error_t result, union doca_data cookie, union doca_data context, void *buffer, uint64_t count,
		    uint64_t sender_tag, doca_error_t status)
{
	struct recv_seen *s = cookie.ptr;

	s->calls++;
	s->result = result;
	s->status = status;
	s->context = context.u64;
	s->buffer = buffer;
	s->count = count;
	s->sender_tag = sender_tag;
}

static void on_map(doca_error_t result, union doca_data cookie, union doca_data context, uint64_t memh_id)
{
	struct map_seen *s = cookie.ptr;

	s->calls++;
	s->result = result;
	s->context = context.u64;
	s->memh_id = memh_id;
}

/* Each *_seen struct starts with its call count. */
static bool called(void *arg)
{
	return *(int *)arg > 0;
}

static union doca_data ptr_data(void *p)
{
	union doca_data d = {.ptr = p};

	return d;
}

static union doca_data u64_data(uint64_t v)
{
	union doca_data d = {.u64 = v};

	return d;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* ---- fixtures ---- */

static int setup(void **unused)
{
	(void)unused;
	if (it_daemon_start(&daemon_, NULL) != 0)
		return -1;
	if (it_host_open(&host) != DOCA_SUCCESS) {
		it_daemon_dump(&daemon_);
		return -1;
	}
	graph_id = it_plugin_id(host.service, "worker_graph", &graph_version);
	sandbox_id = it_plugin_id(host.service, "worker_sandbox", &sandbox_version);
	return graph_id != 0 && sandbox_id != 0 ? 0 : -1;
}

static int teardown(void **unused)
{
	(void)unused;
	it_host_close(&host);
	it_daemon_stop(&daemon_);
	return 0;
}

static struct doca_urom_worker *running_worker(struct it_host *h, uint64_t id, uint64_t plugins)
{
	struct doca_urom_worker *worker = NULL;
	enum doca_ctx_states state;

	assert_int_equal(it_worker_start(h, id, 0, plugins, 0, NULL, 0, &worker, &state), DOCA_SUCCESS);
	if (state != DOCA_CTX_STATE_RUNNING)
		it_daemon_dump(&daemon_);
	assert_int_equal(state, DOCA_CTX_STATE_RUNNING);
	return worker;
}

/* ---- the helpers in one process ---- */

static void the_helpers_refuse_work_before_init_and_another_device_version(void **unused)
{
	struct doca_urom_worker *worker = running_worker(&host, DOCA_UROM_WORKER_ID_ANY, graph_id | sandbox_id);
	struct loopback_seen lb = {0};
	struct send_seen sent = {0};
	char byte = 'x';

	(void)unused;
	/* Before init (this test runs first): nothing is submitted, no callback. */
	assert_int_equal(urom_graph_task_loopback(worker, ptr_data(&lb), 1, on_loopback), DOCA_ERROR_BAD_STATE);
	assert_int_equal(urom_sandbox_tag_task_send(worker, ptr_data(&sent), u64_data(0), 0, (uint64_t)(uintptr_t)&byte,
						    1, 1, 0, on_send),
			 DOCA_ERROR_BAD_STATE);
	/* A device side of another version is refused and leaves the helper uninitialised. */
	assert_int_equal(urom_graph_init(graph_id, graph_version + 1), DOCA_ERROR_UNSUPPORTED_VERSION);
	assert_int_equal(urom_sandbox_init(sandbox_id, sandbox_version + 1), DOCA_ERROR_UNSUPPORTED_VERSION);
	assert_int_equal(urom_sandbox_init(sandbox_id, 0), DOCA_ERROR_UNSUPPORTED_VERSION);
	assert_int_equal(urom_graph_task_loopback(worker, ptr_data(&lb), 1, on_loopback), DOCA_ERROR_BAD_STATE);
	assert_int_equal(urom_graph_init(0, 1), DOCA_ERROR_INVALID_VALUE);
	/* The daemon's plugins are version 1, which the helpers speak. */
	assert_int_equal(graph_version, 1);
	assert_int_equal(sandbox_version, 1);
	assert_int_equal(urom_graph_init(graph_id, graph_version), DOCA_SUCCESS);
	assert_int_equal(urom_sandbox_init(sandbox_id, sandbox_version), DOCA_SUCCESS);
	assert_int_equal(urom_graph_task_loopback(NULL, ptr_data(&lb), 1, on_loopback), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(urom_graph_task_loopback(worker, ptr_data(&lb), 1, NULL), DOCA_ERROR_INVALID_VALUE);
	for (int i = 0; i < 100; i++)
		doca_pe_progress(host.pe);
	assert_int_equal(lb.calls, 0);
	assert_int_equal(sent.calls, 0);
	assert_int_equal(it_worker_stop(&host, worker), DOCA_SUCCESS);
}

static void the_graph_helper_loops_values_back_and_reports_a_refusal(void **unused)
{
	struct doca_urom_worker *graph = running_worker(&host, DOCA_UROM_WORKER_ID_ANY, graph_id);
	struct doca_urom_worker *sandbox_only = running_worker(&host, DOCA_UROM_WORKER_ID_ANY, sandbox_id);
	struct loopback_seen seen[3] = {{0}};
	const uint64_t values[3] = {0, 0x0123456789abcdefULL, ~0ULL};

	(void)unused;
	for (int i = 0; i < 3; i++)
		assert_int_equal(urom_graph_task_loopback(graph, ptr_data(&seen[i]), values[i], on_loopback),
				 DOCA_SUCCESS);
	for (int i = 0; i < 3; i++) {
		assert_true(it_progress_until(host.pe, called, &seen[i], TIMEOUT_MS));
		assert_int_equal(seen[i].result, DOCA_SUCCESS);
		assert_true(seen[i].data == values[i]);
	}
	/* A worker without the graph plugin refuses the command: the callback gets the refusal, data 0. */
	assert_int_equal(urom_graph_task_loopback(sandbox_only, ptr_data(&seen[0]), 42, on_loopback), DOCA_SUCCESS);
	seen[0].calls = 0;
	assert_true(it_progress_until(host.pe, called, &seen[0], TIMEOUT_MS));
	assert_int_not_equal(seen[0].result, DOCA_SUCCESS);
	assert_true(seen[0].data == 0);
	for (int i = 0; i < 200; i++)
		doca_pe_progress(host.pe);
	for (int i = 0; i < 3; i++)
		assert_int_equal(seen[i].calls, 1);
	assert_int_equal(it_worker_stop(&host, graph), DOCA_SUCCESS);
	assert_int_equal(it_worker_stop(&host, sandbox_only), DOCA_SUCCESS);
}

static void the_sandbox_helper_maps_a_shared_memory_file_and_reports_refusals(void **unused)
{
	struct doca_urom_worker *worker = running_worker(&host, DOCA_UROM_WORKER_ID_ANY, sandbox_id);
	char path[] = "/dev/shm/urom-c-it-XXXXXX";
	char missing[64];
	struct map_seen map = {0}, again = {0}, too_long = {0}, absent = {0}, outside = {0};
	struct send_seen sent = {0};
	size_t huge = 8192;
	char *long_path = malloc(huge + 1), *bytes = calloc(1, huge);
	int fd = mkstemp(path);

	(void)unused;
	assert_non_null(long_path);
	assert_non_null(bytes);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 4096), 0);
	close(fd);

	assert_int_equal(urom_sandbox_task_mem_map(worker, ptr_data(&map), u64_data(0xa1), path, 4096, on_map),
			 DOCA_SUCCESS);
	assert_int_equal(urom_sandbox_task_mem_map(worker, ptr_data(&again), u64_data(0xa2), path, 1024, on_map),
			 DOCA_SUCCESS);
	/* Longer than the file. */
	assert_int_equal(urom_sandbox_task_mem_map(worker, ptr_data(&too_long), u64_data(0xa3), path, 8192, on_map),
			 DOCA_SUCCESS);
	snprintf(missing, sizeof(missing), "/dev/shm/urom-c-it-missing-%ld", (long)getpid());
	assert_int_equal(urom_sandbox_task_mem_map(worker, ptr_data(&absent), u64_data(0xa4), missing, 4096, on_map),
			 DOCA_SUCCESS);
	assert_int_equal(urom_sandbox_task_mem_map(worker, ptr_data(&outside), u64_data(0xa5),
						   "/tmp/urom-c-it-outside-shm", 1, on_map),
			 DOCA_SUCCESS);
	assert_true(it_progress_until(host.pe, called, &outside, TIMEOUT_MS));
	assert_true(it_progress_until(host.pe, called, &absent, TIMEOUT_MS));
	assert_true(it_progress_until(host.pe, called, &too_long, TIMEOUT_MS));
	assert_true(it_progress_until(host.pe, called, &again, TIMEOUT_MS));
	assert_true(it_progress_until(host.pe, called, &map, TIMEOUT_MS));
	assert_int_equal(map.result, DOCA_SUCCESS);
	assert_true(map.context == 0xa1);
	assert_true(map.memh_id != 0);
	assert_int_equal(again.result, DOCA_SUCCESS);
	assert_true(again.memh_id != 0 && again.memh_id != map.memh_id);
	assert_int_equal(too_long.result, DOCA_ERROR_INVALID_VALUE);
	assert_true(too_long.context == 0xa3 && too_long.memh_id == 0);
	assert_int_equal(absent.result, DOCA_ERROR_NOT_FOUND);
	assert_int_equal(outside.result, DOCA_ERROR_NOT_PERMITTED);
	assert_true(outside.context == 0xa5);

	/* Commands that do not fit the task's payload (4096 - 24 bytes) are refused before submission. */
	memset(long_path, 'a', huge);
	memcpy(long_path, "/dev/shm/", 9);
	long_path[huge] = '\0';
	assert_int_equal(urom_sandbox_task_mem_map(worker, ptr_data(&map), u64_data(1), long_path, 1, on_map),
			 DOCA_ERROR_TOO_BIG);
	assert_int_equal(urom_sandbox_tag_task_send(worker, ptr_data(&sent), u64_data(2), 0, (uint64_t)(uintptr_t)bytes,
						    4096 - 24 - 56 + 1, 1, 0, on_send),
			 DOCA_ERROR_TOO_BIG);
	assert_int_equal(urom_sandbox_task_mem_map(worker, ptr_data(&map), u64_data(1), NULL, 1, on_map),
			 DOCA_ERROR_INVALID_VALUE);
	/* The largest inline send that fits goes; with no domain the peer is unknown: the refusal has no
	 * bytes, so result and status are both the plugin's NOT_FOUND. */
	assert_int_equal(urom_sandbox_tag_task_send(worker, ptr_data(&sent), u64_data(3), 77,
						    (uint64_t)(uintptr_t)bytes, 4096 - 24 - 56, 1, 0, on_send),
			 DOCA_SUCCESS);
	assert_true(it_progress_until(host.pe, called, &sent, TIMEOUT_MS));
	assert_int_equal(sent.result, DOCA_ERROR_NOT_FOUND);
	assert_int_equal(sent.status, DOCA_ERROR_NOT_FOUND);
	assert_true(sent.context == 3);
	for (int i = 0; i < 200; i++)
		doca_pe_progress(host.pe);
	assert_int_equal(map.calls + again.calls + too_long.calls + absent.calls + outside.calls + sent.calls, 6);
	assert_int_equal(it_worker_stop(&host, worker), DOCA_SUCCESS);
	unlink(path);
	free(long_path);
	free(bytes);
}

/* ---- a domain of two processes ---- */

/* The allgather of two processes over a socketpair: posting sends what the socket takes, testing
 * moves the rest both ways. */
struct pair_oob {
	int fd;
	uint32_t index;
};

struct pair_req {
	struct pair_oob *oob;
	const uint8_t *sbuf;
	uint8_t *peer_block;
	size_t len;
	size_t sent;
	size_t received;
};

static doca_error_t pair_move(struct pair_req *r)
{
	while (r->sent < r->len) {
		ssize_t n = send(r->oob->fd, r->sbuf + r->sent, r->len - r->sent, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return DOCA_ERROR_CONNECTION_RESET;
		r->sent += (size_t)n;
	}
	while (r->received < r->len) {
		ssize_t n = recv(r->oob->fd, r->peer_block + r->received, r->len - r->received, MSG_DONTWAIT);

		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return DOCA_ERROR_CONNECTION_RESET;
		r->received += (size_t)n;
	}
	return r->sent == r->len && r->received == r->len ? DOCA_SUCCESS : DOCA_ERROR_IN_PROGRESS;
}

static doca_error_t pair_allgather(void *sbuf, void *rbuf, size_t msglen, void *coll_info, void **req)
{
	struct pair_oob *oob = coll_info;
	struct pair_req *r = calloc(1, sizeof(*r));
	doca_error_t status;

	if (r == NULL)
		return DOCA_ERROR_NO_MEMORY;
	r->oob = oob;
	r->sbuf = sbuf;
	r->len = msglen;
	r->peer_block = (uint8_t *)rbuf + (size_t)(1 - oob->index) * msglen;
	memcpy((uint8_t *)rbuf + (size_t)oob->index * msglen, sbuf, msglen);
	status = pair_move(r);
	if (status != DOCA_SUCCESS && status != DOCA_ERROR_IN_PROGRESS) {
		free(r);
		return status;
	}
	*req = r;
	return DOCA_SUCCESS;
}

static doca_error_t pair_req_test(void *req)
{
	return pair_move(req);
}

static doca_error_t pair_req_free(void *req)
{
	free(req);
	return DOCA_SUCCESS;
}

/* One byte each way, within the time limit. */
static bool pair_barrier(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	char b = 'b';

	if (send(fd, &b, 1, MSG_NOSIGNAL) != 1)
		return false;
	if (poll(&p, 1, TIMEOUT_MS) != 1)
		return false;
	return recv(fd, &b, 1, 0) == 1;
}

static bool left_starting(void *arg)
{
	enum doca_ctx_states state;

	doca_ctx_get_state(arg, &state);
	return state != DOCA_CTX_STATE_STARTING;
}

#define RANK_CHECK(cond, ...) \
	do { \
		if (!(cond)) { \
			snprintf(why, why_size, __VA_ARGS__); \
			goto out; \
		} \
	} while (0)

/*
 * One rank of the ping-pong, in either process (no cmocka asserts: the child must not longjmp into
 * the test runner). 0 on success, else why says what failed.
 */
static int run_rank(uint32_t rank, int fd, char *why, size_t why_size)
{
	const char ping[] = "ping from rank 0", pong[] = "pong from rank 1!";
	struct pair_oob oob_info = {.fd = fd, .index = rank};
	struct doca_urom_domain_oob_coll oob = {
		.allgather = pair_allgather,
		.req_test = pair_req_test,
		.req_free = pair_req_free,
		.coll_info = &oob_info,
		.n_oob_indexes = 2,
		.oob_index = rank,
	};
	struct doca_urom_worker *worker = NULL;
	struct doca_urom_domain *domain = NULL;
	enum doca_ctx_states state = DOCA_CTX_STATE_IDLE;
	uint64_t domain_id = rank, peer = 1 - rank, id, version;
	struct it_host h;
	struct send_seen sent = {0};
	struct recv_seen got = {0};
	char inbox[64], tiny[4];
	doca_error_t status;
	int rc = 1;

	memset(inbox, 0, sizeof(inbox));
	status = it_host_open(&h);
	if (status != DOCA_SUCCESS) {
		snprintf(why, why_size, "rank %u: it_host_open: %s", rank, doca_error_get_name(status));
		return 1;
	}
	id = it_plugin_id(h.service, "worker_sandbox", &version);
	RANK_CHECK(id != 0, "rank %u: no worker_sandbox plugin", rank);
	status = urom_sandbox_init(id, version);
	RANK_CHECK(status == DOCA_SUCCESS, "rank %u: urom_sandbox_init: %s", rank, doca_error_get_name(status));
	status = it_worker_start(&h, 0x7100 + rank, 0, id, 0, NULL, 0, &worker, &state);
	RANK_CHECK(status == DOCA_SUCCESS && state == DOCA_CTX_STATE_RUNNING, "rank %u: the worker did not start: %s",
		   rank, doca_error_get_name(status));

	/* The domain: this rank's one worker under domain id = rank. */
	status = doca_urom_domain_create(&domain);
	if (status == DOCA_SUCCESS)
		status = doca_urom_domain_set_oob(domain, &oob);
	if (status == DOCA_SUCCESS)
		status = doca_urom_domain_set_workers(domain, &domain_id, &worker, 1);
	if (status == DOCA_SUCCESS)
		status = doca_pe_connect_ctx(h.pe, doca_urom_domain_as_ctx(domain));
	RANK_CHECK(status == DOCA_SUCCESS, "rank %u: setting up the domain: %s", rank, doca_error_get_name(status));
	status = doca_ctx_start(doca_urom_domain_as_ctx(domain));
	RANK_CHECK(status == DOCA_ERROR_IN_PROGRESS, "rank %u: domain start answered %s, not IN_PROGRESS", rank,
		   doca_error_get_name(status));
	RANK_CHECK(it_progress_until(h.pe, left_starting, doca_urom_domain_as_ctx(domain), TIMEOUT_MS),
		   "rank %u: the domain did not start within %d ms", rank, TIMEOUT_MS);
	doca_ctx_get_state(doca_urom_domain_as_ctx(domain), &state);
	RANK_CHECK(state == DOCA_CTX_STATE_RUNNING, "rank %u: the domain fell back to state %d", rank, state);

	if (rank == 0) {
		status = urom_sandbox_tag_task_send(worker, ptr_data(&sent), u64_data(0x5e0d), peer,
						    (uint64_t)(uintptr_t)ping, sizeof(ping), PING_TAG, 0, on_send);
		RANK_CHECK(status == DOCA_SUCCESS, "rank 0: ping send: %s", doca_error_get_name(status));
		status =
			urom_sandbox_tag_task_recv(worker, ptr_data(&got), u64_data(0x7ec0), (uint64_t)(uintptr_t)inbox,
						   sizeof(inbox), PONG_TAG, 0xffff, 0, on_recv);
		RANK_CHECK(status == DOCA_SUCCESS, "rank 0: pong receive: %s", doca_error_get_name(status));
		RANK_CHECK(it_progress_until(h.pe, called, &sent, TIMEOUT_MS), "rank 0: the ping send never completed");
		RANK_CHECK(sent.result == DOCA_SUCCESS && sent.status == DOCA_SUCCESS && sent.context == 0x5e0d,
			   "rank 0: ping send: result %s, status %s, context 0x%lx", doca_error_get_name(sent.result),
			   doca_error_get_name(sent.status), (unsigned long)sent.context);
		RANK_CHECK(it_progress_until(h.pe, called, &got, TIMEOUT_MS), "rank 0: no pong within %d ms",
			   TIMEOUT_MS);
		RANK_CHECK(got.result == DOCA_SUCCESS && got.status == DOCA_SUCCESS && got.context == 0x7ec0,
			   "rank 0: pong: result %s, status %s, context 0x%lx", doca_error_get_name(got.result),
			   doca_error_get_name(got.status), (unsigned long)got.context);
		RANK_CHECK(got.buffer == inbox && got.count == sizeof(pong) && got.sender_tag == PONG_TAG &&
				   memcmp(inbox, pong, sizeof(pong)) == 0,
			   "rank 0: pong: %lu bytes \"%.*s\" tag 0x%lx at %p (inbox %p)", (unsigned long)got.count,
			   (int)sizeof(inbox), inbox, (unsigned long)got.sender_tag, got.buffer, (void *)inbox);
		/* A message longer than rank 1's receive. */
		memset(&sent, 0, sizeof(sent));
		status = urom_sandbox_tag_task_send(worker, ptr_data(&sent), u64_data(0x10), peer,
						    (uint64_t)(uintptr_t)ping, sizeof(ping), LONG_TAG, 0, on_send);
		RANK_CHECK(status == DOCA_SUCCESS, "rank 0: long send: %s", doca_error_get_name(status));
		RANK_CHECK(it_progress_until(h.pe, called, &sent, TIMEOUT_MS), "rank 0: the long send never completed");
		RANK_CHECK(sent.result == DOCA_SUCCESS && sent.status == DOCA_SUCCESS, "rank 0: long send: %s / %s",
			   doca_error_get_name(sent.result), doca_error_get_name(sent.status));
	} else {
		status = urom_sandbox_tag_task_recv(worker, ptr_data(&got), u64_data(0x1), (uint64_t)(uintptr_t)inbox,
						    sizeof(inbox), PING_TAG, 0xffff, 0, on_recv);
		RANK_CHECK(status == DOCA_SUCCESS, "rank 1: ping receive: %s", doca_error_get_name(status));
		RANK_CHECK(it_progress_until(h.pe, called, &got, TIMEOUT_MS), "rank 1: no ping within %d ms",
			   TIMEOUT_MS);
		RANK_CHECK(got.result == DOCA_SUCCESS && got.status == DOCA_SUCCESS && got.context == 0x1 &&
				   got.buffer == inbox && got.count == sizeof(ping) && got.sender_tag == PING_TAG &&
				   memcmp(inbox, ping, sizeof(ping)) == 0,
			   "rank 1: ping: result %s, status %s, %lu bytes \"%.*s\", tag 0x%lx",
			   doca_error_get_name(got.result), doca_error_get_name(got.status), (unsigned long)got.count,
			   (int)sizeof(inbox), inbox, (unsigned long)got.sender_tag);
		status = urom_sandbox_tag_task_send(worker, ptr_data(&sent), u64_data(0x2), peer,
						    (uint64_t)(uintptr_t)pong, sizeof(pong), PONG_TAG, 0, on_send);
		RANK_CHECK(status == DOCA_SUCCESS, "rank 1: pong send: %s", doca_error_get_name(status));
		RANK_CHECK(it_progress_until(h.pe, called, &sent, TIMEOUT_MS), "rank 1: the pong send never completed");
		RANK_CHECK(sent.result == DOCA_SUCCESS && sent.status == DOCA_SUCCESS && sent.context == 0x2,
			   "rank 1: pong send: %s / %s", doca_error_get_name(sent.result),
			   doca_error_get_name(sent.status));
		/* Four bytes of room for a 17-byte message: the plugin's TOO_BIG reaches the callback. */
		memset(&got, 0, sizeof(got));
		memset(tiny, 0x5a, sizeof(tiny));
		status = urom_sandbox_tag_task_recv(worker, ptr_data(&got), u64_data(0x3), (uint64_t)(uintptr_t)tiny,
						    sizeof(tiny), LONG_TAG, ~0ULL, 0, on_recv);
		RANK_CHECK(status == DOCA_SUCCESS, "rank 1: short receive: %s", doca_error_get_name(status));
		RANK_CHECK(it_progress_until(h.pe, called, &got, TIMEOUT_MS),
			   "rank 1: the short receive never completed");
		RANK_CHECK(got.result == DOCA_ERROR_TOO_BIG && got.status == DOCA_ERROR_TOO_BIG && got.context == 0x3 &&
				   got.count == 0 && got.buffer == NULL && got.sender_tag == LONG_TAG,
			   "rank 1: short receive: result %s, status %s, count %lu, tag 0x%lx, buffer %p",
			   doca_error_get_name(got.result), doca_error_get_name(got.status), (unsigned long)got.count,
			   (unsigned long)got.sender_tag, got.buffer);
		RANK_CHECK(tiny[0] == 0x5a && tiny[3] == 0x5a, "rank 1: the short receive wrote into the buffer");
	}
	RANK_CHECK(pair_barrier(fd), "rank %u: the other process did not reach the end", rank);
	rc = 0;
out:
	if (domain != NULL) {
		doca_ctx_get_state(doca_urom_domain_as_ctx(domain), &state);
		if (state != DOCA_CTX_STATE_IDLE)
			doca_ctx_stop(doca_urom_domain_as_ctx(domain));
		while (doca_pe_progress(h.pe))
			;
		if (doca_urom_domain_destroy(domain) != DOCA_SUCCESS && rc == 0) {
			snprintf(why, why_size, "rank %u: the domain could not be destroyed", rank);
			rc = 1;
		}
	}
	if (worker != NULL && it_worker_stop(&h, worker) != DOCA_SUCCESS && rc == 0) {
		snprintf(why, why_size, "rank %u: the worker did not stop", rank);
		rc = 1;
	}
	it_host_close(&h);
	return rc;
}

/* Waits for pid at most timeout_ms; kills it past that. Its exit status, or -1. */
static int wait_child(pid_t pid, int timeout_ms)
{
	long deadline = now_ms() + timeout_ms;
	int status;

	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
		if (r < 0)
			return -1;
		if (now_ms() > deadline) {
			fprintf(stderr, "test_sandbox: process %ld ran past %d ms; killed\n", (long)pid, timeout_ms);
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return -1;
		}
		usleep(10000);
	}
}

static void two_processes_ping_pong_through_a_domain_and_a_short_receive_gets_too_big(void **unused)
{
	char why[512] = "", child_why[512] = "";
	int sv[2], rc, child_rc;
	pid_t child;

	(void)unused;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	fflush(NULL);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		close(sv[0]);
		rc = run_rank(1, sv[1], child_why, sizeof(child_why));
		if (rc != 0)
			fprintf(stderr, "test_sandbox: %s\n", child_why);
		close(sv[1]);
		_exit(rc);
	}
	close(sv[1]);
	rc = run_rank(0, sv[0], why, sizeof(why));
	/* The child sees the end of the socket if this side gave up. */
	close(sv[0]);
	child_rc = wait_child(child, CHILD_TIMEOUT_MS);
	if (rc != 0)
		fprintf(stderr, "test_sandbox: %s\n", why);
	if (rc != 0 || child_rc != 0)
		it_daemon_dump(&daemon_);
	assert_int_equal(rc, 0);
	assert_int_equal(child_rc, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_helpers_refuse_work_before_init_and_another_device_version),
		cmocka_unit_test(the_graph_helper_loops_values_back_and_reports_a_refusal),
		cmocka_unit_test(the_sandbox_helper_maps_a_shared_memory_file_and_reports_refusals),
		cmocka_unit_test(two_processes_ping_pong_through_a_domain_and_a_short_receive_gets_too_big),
	};

	return cmocka_run_group_tests_name("host-c sandbox and graph helpers", tests, setup, teardown);
}
