/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom-java host library, internal: the UROM objects (service, worker, domain) as the three source
 * files that implement them see each other.
 *
 * The service owns the control connection to the daemon, shared by every worker that names it,
 * possibly from other threads: it is locked (lock), and replies are matched to their requests by
 * request id and left in the request (struct urom_request) for its owner to pick up from its own
 * progress. A worker owns its data connection; a domain drives the data connections of its workers
 * from the domain's engine (so a domain and its workers are progressed by one thread).
 */
#ifndef UROM_INTERNAL_H_
#define UROM_INTERNAL_H_

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <doca_urom.h>

#include "../core/urom_core.h"
#include "auth.h"
#include "conn.h"

#define UROM_SDK_SOURCE "UROM"
#define UROM_CONNECT_TIMEOUT_MS 10000
#define UROM_HANDSHAKE_TIMEOUT_MS 10000
#define UROM_REQUEST_TIMEOUT_MS 120000
#define UROM_DEFAULT_MAX_MSG 4096
#define UROM_DEFAULT_MAX_INFLIGHT 64
#define UROM_MAX_ENV 128
#define UROM_MAX_ENV_ITEM 4096

/* A request on a connection and, once answered, its reply (a copy of the body). */
struct urom_request {
	struct urom_request *next;
	uint64_t id;
	bool done;
	uint16_t reply_type;
	doca_error_t failure;
	uint8_t *body;
	size_t body_len;
	int64_t deadline_ms;
};

void urom_request_reset(struct urom_request *req);
/* Files a reply into the first request of the list with its id; false when none waits for it. */
bool urom_request_file(struct urom_request **list, const struct urom_frame *f);
/* Completes every request of the list with failure (the connection broke), emptying the list. */
void urom_request_fail_all(struct urom_request **list, doca_error_t failure);
void urom_request_unlink(struct urom_request **list, struct urom_request *req);
/* The reply's status: ERROR's status, or failure, or SUCCESS for a reply of the expected type; the
 * message (ERROR's, or why) in msg. */
doca_error_t urom_request_outcome(const struct urom_request *req, uint16_t expected, char *msg, size_t msg_size);

struct doca_urom_service {
	struct doca_ctx ctx;
	struct doca_dev *dev;
	/* The program's message size (payload buffers are sized by it) and the daemon's limit. */
	size_t max_msg;
	size_t daemon_max_msg;
	uint32_t max_workers;
	pthread_mutex_t lock;
	struct urom_conn control;
	struct urom_key *key;
	uint64_t next_request_id;
	/* Control requests waiting for replies (workers' starts, gid tasks). */
	struct urom_request *pending;
	struct doca_urom_service_plugin_info *plugins;
	size_t n_plugins;
	doca_cpu_set_t cpuset;
	/* Workers that name this service, and workers it started. */
	size_t users;
	size_t started;
	/* gid tasks in flight, in submission order. */
	struct doca_urom_service_get_workers_by_gid_task *gid_tasks;
	char address[300];
};

/* Sends a control request (locked). The request is filed in the service's pending list. */
doca_error_t urom_service_request(struct doca_urom_service *svc, uint16_t type, const void *body, size_t body_len,
				  struct urom_request *req);
/* Reads the control connection (locked) and files what came; true when req is done. */
bool urom_service_poll(struct doca_urom_service *svc, struct urom_request *req);
/* Forgets a request that is no longer awaited (locked). */
void urom_service_forget(struct doca_urom_service *svc, struct urom_request *req);
/* The channel's message size: the smaller of the program's and the daemon's (the program's before start). */
size_t urom_service_max_msg(const struct doca_urom_service *svc);
/* Counts the workers that name the service (+1 / -1), from any thread. */
void urom_service_use(struct doca_urom_service *svc, int delta);
/* Counts a worker the service started, refusing one past max_workers (FULL). */
doca_error_t urom_service_count_start(struct doca_urom_service *svc);

enum urom_worker_phase {
	UROM_WORKER_IDLE,
	UROM_WORKER_START_SENT,
	UROM_WORKER_RUNNING,
	UROM_WORKER_STOP_SENT,
};

struct doca_urom_worker {
	struct doca_ctx ctx;
	struct doca_urom_service *svc;
	uint64_t id;
	uint64_t plugins;
	uint32_t gid;
	char **env;
	size_t n_env;
	doca_cpu_set_t cpuset;
	bool has_cpuset;
	uint32_t max_inflight;
	enum urom_worker_phase phase;
	bool stop_requested;
	struct urom_request start_req;
	/* Once RUNNING. max_msg: what a message may hold on this connection (the program's, the daemon's and
	 * the worker's limits); a command past it is TOO_BIG. */
	struct urom_conn data;
	size_t max_msg;
	uint32_t limit_inflight;
	uint64_t connection_id;
	char address[300];
	struct doca_urom_worker_cmd_task **slots;
	uint32_t n_slots;
	uint32_t inflight;
	uint64_t sequence;
	uint64_t next_request_id;
	/* ADDRESS and DOMAIN_SET requests of a domain. */
	struct urom_request *requests;
	int64_t stop_deadline_ms;
};

/* Sends a request on the worker's data connection (ADDRESS, DOMAIN_SET). */
doca_error_t urom_worker_request(struct doca_urom_worker *w, uint16_t type, const void *body, size_t body_len,
				 struct urom_request *req);
/* Moves the worker's data connection; returns non-zero if it did anything. */
int urom_worker_pump(struct doca_urom_worker *w);
bool urom_worker_running(const struct doca_urom_worker *w);

#define UROM_LOG(level, ...) urom_sdk_log((level), UROM_SDK_SOURCE, __VA_ARGS__)

#endif /* UROM_INTERNAL_H_ */
