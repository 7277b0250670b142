/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom-java: DOCA UROM's host API (service, workers, command tasks, domains) over the urom wire
 * protocol (docs/wire-protocol.md). Programs written for DOCA UROM build against this header
 * unchanged; docs/c-host.md says how it finds the daemon and where it differs.
 *
 * Every object is a DOCA context (doca_ctx.h) connected to a progress engine (doca_pe.h):
 *  - the service's start is synchronous: it connects to the daemon of the device given with
 *    doca_urom_service_set_dev(), authenticates and reads the plugin list;
 *  - a worker's and a domain's start return DOCA_ERROR_IN_PROGRESS and reach RUNNING (or fall back to
 *    IDLE on failure) inside doca_pe_progress(); so does their stop;
 *  - setters answer DOCA_ERROR_BAD_STATE unless the object is IDLE, DOCA_ERROR_INVALID_VALUE for NULL
 *    or out-of-range arguments;
 *  - callbacks run only inside doca_pe_progress() of the engine the object is connected to.
 * An object and its tasks are used from one thread at a time; a service may be shared by workers
 * whose engines run on other threads (its connection to the daemon is locked).
 */
#ifndef DOCA_UROM_H_
#define DOCA_UROM_H_

#include <stddef.h>
#include <stdint.h>

#include <ucs/type/cpu_set.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>
#include <doca_urom_plugin.h>

#ifdef __cplusplus
extern "C" {
#endif

/* CPU sets are UCX's, as in DOCA. */
typedef ucs_cpu_set_t doca_cpu_set_t;
#define DOCA_CPU_ZERO(_cpusetp) UCS_CPU_ZERO(_cpusetp)
#define DOCA_CPU_SET(_cpu, _cpusetp) UCS_CPU_SET(_cpu, _cpusetp)
#define doca_cpu_is_set(_cpu, _cpusetp) ucs_cpu_is_set(_cpu, _cpusetp)

struct doca_buf;
struct doca_ctx;
struct doca_dev;
struct doca_task;

/* ---------------------------------------------------------------------------------------------
 * Service: the daemon that runs workers for this host.
 */
struct doca_urom_service;
struct doca_urom_service_get_workers_by_gid_task;

typedef void (*doca_urom_service_get_workers_by_gid_task_completion_cb_t)(
	struct doca_urom_service_get_workers_by_gid_task *task, union doca_data task_user_data,
	union doca_data ctx_user_data);

DOCA_EXPERIMENTAL doca_error_t doca_urom_service_create(struct doca_urom_service **service_ctx);
/* NOT_PERMITTED unless IDLE; IN_USE while a worker still uses it. */
DOCA_EXPERIMENTAL doca_error_t doca_urom_service_destroy(struct doca_urom_service *service_ctx);
/* Largest message of the channel, its 24- or 32-byte header included (default 4096). The smaller of
 * this and the daemon's own limit applies. */
DOCA_EXPERIMENTAL doca_error_t doca_urom_service_set_max_comm_msg_size(struct doca_urom_service *service_ctx,
								       size_t msg_size);
/* A power of two: the most workers this service starts for the program (FULL past it). */
DOCA_EXPERIMENTAL doca_error_t doca_urom_service_set_max_workers(struct doca_urom_service *service_ctx,
								 uint32_t max_workers);
/* Mandatory: the device whose DOCA_UROM_SERVICE_FILE line names the daemon. */
DOCA_EXPERIMENTAL doca_error_t doca_urom_service_set_dev(struct doca_urom_service *service_ctx, struct doca_dev *dev);
DOCA_EXPERIMENTAL struct doca_ctx *doca_urom_service_as_ctx(struct doca_urom_service *service_ctx);
/* The plugins the daemon discovered (read at start); NOT_FOUND when there are none; BAD_STATE unless
 * RUNNING. The array belongs to the service and lives until it is destroyed. */
DOCA_EXPERIMENTAL doca_error_t doca_urom_service_get_plugins_list(struct doca_urom_service *service_ctx,
								  const struct doca_urom_service_plugin_info **plugins,
								  size_t *plugins_count);
/* The CPUs workers of this service may use; BAD_STATE unless RUNNING. */
DOCA_EXPERIMENTAL doca_error_t doca_urom_service_get_cpuset(struct doca_urom_service *service_ctx,
							    doca_cpu_set_t *cpuset);

/* Which of this program's principal's workers are in a group. */
DOCA_EXPERIMENTAL doca_error_t doca_urom_service_get_workers_by_gid_task_allocate(
	struct doca_urom_service *service_ctx, struct doca_urom_service_get_workers_by_gid_task **task);
DOCA_EXPERIMENTAL doca_error_t
doca_urom_service_get_workers_by_gid_task_allocate_init(struct doca_urom_service *service_ctx, uint32_t gid,
							doca_urom_service_get_workers_by_gid_task_completion_cb_t cb,
							struct doca_urom_service_get_workers_by_gid_task **task);
/* NOT_PERMITTED while the task is in flight. */
DOCA_EXPERIMENTAL doca_error_t
doca_urom_service_get_workers_by_gid_task_release(struct doca_urom_service_get_workers_by_gid_task *task);
DOCA_EXPERIMENTAL void
doca_urom_service_get_workers_by_gid_task_set_gid(struct doca_urom_service_get_workers_by_gid_task *task, uint32_t gid);
DOCA_EXPERIMENTAL void
doca_urom_service_get_workers_by_gid_task_set_cb(struct doca_urom_service_get_workers_by_gid_task *task,
						 doca_urom_service_get_workers_by_gid_task_completion_cb_t cb);
DOCA_EXPERIMENTAL struct doca_task *
doca_urom_service_get_workers_by_gid_task_as_task(struct doca_urom_service_get_workers_by_gid_task *task);
/* Valid in the completion callback of a successful task, until the task is released or resubmitted. */
DOCA_EXPERIMENTAL size_t
doca_urom_service_get_workers_by_gid_task_get_workers_count(struct doca_urom_service_get_workers_by_gid_task *task);
DOCA_EXPERIMENTAL const uint64_t *
doca_urom_service_get_workers_by_gid_task_get_worker_ids(struct doca_urom_service_get_workers_by_gid_task *task);

/* ---------------------------------------------------------------------------------------------
 * Worker: a process the daemon runs with the chosen plugins; the program talks to it directly.
 */
struct doca_urom_worker;
struct doca_urom_worker_cmd_task;

typedef void (*doca_urom_worker_cmd_task_completion_cb_t)(struct doca_urom_worker_cmd_task *task,
							  union doca_data task_user_data,
							  union doca_data ctx_user_data);

/* Let the service choose the worker's id. */
#define DOCA_UROM_WORKER_ID_ANY -1ULL

DOCA_EXPERIMENTAL doca_error_t doca_urom_worker_create(struct doca_urom_worker **worker_ctx);
/* NOT_PERMITTED unless IDLE. */
DOCA_EXPERIMENTAL doca_error_t doca_urom_worker_destroy(struct doca_urom_worker *worker_ctx);
DOCA_EXPERIMENTAL doca_error_t doca_urom_worker_set_service(struct doca_urom_worker *worker_ctx,
							    struct doca_urom_service *service_ctx);
/* DOCA_UROM_WORKER_ID_ANY (the default), or an id: the running worker of that id is joined as another
 * connection, else a new worker gets it. */
DOCA_EXPERIMENTAL doca_error_t doca_urom_worker_set_id(struct doca_urom_worker *worker_ctx, uint64_t worker_id);
/* The plugins to load, as a mask of plugin ids (each id is one bit). */
DOCA_EXPERIMENTAL doca_error_t doca_urom_worker_set_plugins(struct doca_urom_worker *worker_ctx, uint64_t plugins);
/* Within the service's CPU set (INVALID_VALUE otherwise, or when empty). */
DOCA_EXPERIMENTAL doca_error_t doca_urom_worker_set_cpuset(struct doca_urom_worker *worker_ctx, doca_cpu_set_t cpuset);
DOCA_EXPERIMENTAL doca_error_t doca_urom_worker_set_gid(struct doca_urom_worker *worker_ctx, uint32_t gid);
/* A power of two: the most command tasks in flight; a submission past it answers AGAIN. Default 64. */
DOCA_EXPERIMENTAL doca_error_t doca_urom_worker_set_max_inflight_tasks(struct doca_urom_worker *worker_ctx,
								       uint32_t max_tasks);
/* NAME=value strings without white space, copied; the daemon admits only the names its operator
 * allows, else the start fails (the worker falls back to IDLE). */
DOCA_EXPERIMENTAL doca_error_t doca_urom_worker_set_env(struct doca_urom_worker *worker_ctx, char *const env[],
							size_t count);
/* The id asked for, or, once RUNNING, the id the service gave. */
DOCA_EXPERIMENTAL doca_error_t doca_urom_worker_get_id(struct doca_urom_worker *worker_ctx, uint64_t *worker_id);
DOCA_EXPERIMENTAL doca_error_t doca_urom_worker_get_gid(struct doca_urom_worker *worker_ctx, uint32_t *worker_gid);
DOCA_EXPERIMENTAL struct doca_ctx *doca_urom_worker_as_ctx(struct doca_urom_worker *worker_ctx);

/* Command tasks: a plugin id and a payload in, the plugin's notification bytes out. The payload
 * buffer's data length is its capacity until the program sets its command with doca_buf_set_data().
 * doca_task_submit() answers BAD_STATE unless the worker is RUNNING, AGAIN past the in-flight limit,
 * TOO_BIG when the command does not fit the channel's message size; a task whose worker goes away
 * completes with an error status. */
DOCA_EXPERIMENTAL doca_error_t doca_urom_worker_cmd_task_allocate(struct doca_urom_worker *worker_ctx,
								  struct doca_urom_worker_cmd_task **task);
DOCA_EXPERIMENTAL doca_error_t doca_urom_worker_cmd_task_allocate_init(struct doca_urom_worker *worker_ctx,
								       uint64_t plugin,
								       struct doca_urom_worker_cmd_task **task);
/* NOT_PERMITTED while in flight; allowed inside its own completion callback. */
DOCA_EXPERIMENTAL doca_error_t doca_urom_worker_cmd_task_release(struct doca_urom_worker_cmd_task *task);
DOCA_EXPERIMENTAL void doca_urom_worker_cmd_task_set_plugin(struct doca_urom_worker_cmd_task *task, uint64_t plugin);
DOCA_EXPERIMENTAL void doca_urom_worker_cmd_task_set_cb(struct doca_urom_worker_cmd_task *task,
							doca_urom_worker_cmd_task_completion_cb_t cb);
DOCA_EXPERIMENTAL struct doca_buf *doca_urom_worker_cmd_task_get_payload(struct doca_urom_worker_cmd_task *task);
/* The plugin's notification bytes (headers stripped) once completed. */
DOCA_EXPERIMENTAL struct doca_buf *doca_urom_worker_cmd_task_get_response(struct doca_urom_worker_cmd_task *task);
/* 32 bytes for the program, zeroed at allocation. */
DOCA_EXPERIMENTAL void *doca_urom_worker_cmd_task_get_user_data(struct doca_urom_worker_cmd_task *task);
DOCA_EXPERIMENTAL struct doca_task *doca_urom_worker_cmd_task_as_task(struct doca_urom_worker_cmd_task *task);

/* ---------------------------------------------------------------------------------------------
 * Domain: the workers of all the program's processes, which learn each other's plugin addresses
 * (and registered buffers) through the program's own non-blocking allgather.
 */
struct doca_urom_domain;

typedef doca_error_t (*doca_urom_domain_allgather_cb_t)(void *sbuf, void *rbuf, size_t msglen, void *coll_info,
							void **req);
/* SUCCESS when done, IN_PROGRESS while not; anything else fails the domain's start. */
typedef doca_error_t (*doca_urom_domain_req_test_cb_t)(void *req);
typedef doca_error_t (*doca_urom_domain_req_free_cb_t)(void *req);

struct doca_urom_domain_oob_coll {
	doca_urom_domain_allgather_cb_t allgather;
	doca_urom_domain_req_test_cb_t req_test;
	doca_urom_domain_req_free_cb_t req_free;
	void *coll_info;
	/* How many processes take part, and this one's place among them: its block lands at
	 * rbuf + oob_index * msglen. */
	uint32_t n_oob_indexes;
	uint32_t oob_index;
};

DOCA_EXPERIMENTAL doca_error_t doca_urom_domain_create(struct doca_urom_domain **domain_ctx);
/* NOT_PERMITTED unless IDLE. */
DOCA_EXPERIMENTAL doca_error_t doca_urom_domain_destroy(struct doca_urom_domain *domain_ctx);
DOCA_EXPERIMENTAL doca_error_t doca_urom_domain_set_buffers_count(struct doca_urom_domain *domain_ctx,
								  size_t buffers_cnt);
/* After set_buffers_count (BAD_STATE before it); FULL past that count. The handles are copied. */
DOCA_EXPERIMENTAL doca_error_t doca_urom_domain_add_buffer(struct doca_urom_domain *domain_ctx, void *buffer,
							   size_t buf_len, void *memh, size_t memh_len, void *mkey,
							   size_t mkey_len);
/* Copied. */
DOCA_EXPERIMENTAL doca_error_t doca_urom_domain_set_oob(struct doca_urom_domain *domain_ctx,
							struct doca_urom_domain_oob_coll *oob);
/* This process's workers, workers[i] under domain id domain_worker_ids[i]; the workers must be RUNNING
 * when the domain starts, and are progressed by the domain's engine while it starts. Copied. */
DOCA_EXPERIMENTAL doca_error_t doca_urom_domain_set_workers(struct doca_urom_domain *domain_ctx,
							    uint64_t *domain_worker_ids,
							    struct doca_urom_worker **workers, size_t workers_cnt);
DOCA_EXPERIMENTAL struct doca_ctx *doca_urom_domain_as_ctx(struct doca_urom_domain *domain_ctx);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_UROM_H_ */
