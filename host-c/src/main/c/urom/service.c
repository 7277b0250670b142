/* SPDX-License-Identifier: Apache-2.0 */
/* urom-java host library: the UROM service context and its get-workers-by-gid tasks. */
#include <stdlib.h>
#include <string.h>

#include <doca_log.h>
#include <urom_plugin_util.h>

#include "urom_internal.h"

struct doca_urom_service_get_workers_by_gid_task {
	struct doca_task task;
	struct doca_urom_service *svc;
	uint32_t gid;
	doca_urom_service_get_workers_by_gid_task_completion_cb_t cb;
	struct urom_request req;
	uint64_t *ids;
	size_t count;
	struct doca_urom_service_get_workers_by_gid_task *next;
};

/* ---- requests ---- */

void urom_request_reset(struct urom_request *req)
{
	free(req->body);
	memset(req, 0, sizeof(*req));
}

void urom_request_unlink(struct urom_request **list, struct urom_request *req)
{
	for (struct urom_request **at = list; *at != NULL; at = &(*at)->next) {
		if (*at == req) {
			*at = req->next;
			req->next = NULL;
			return;
		}
	}
}

bool urom_request_file(struct urom_request **list, const struct urom_frame *f)
{
	for (struct urom_request *req = *list; req != NULL; req = req->next) {
		if (req->id != f->request_id)
			continue;
		urom_request_unlink(list, req);
		req->done = true;
		req->reply_type = f->type;
		req->body_len = f->body_len;
		req->body = malloc(f->body_len == 0 ? 1 : f->body_len);
		if (req->body == NULL) {
			req->failure = DOCA_ERROR_NO_MEMORY;
			req->reply_type = 0;
		} else {
			memcpy(req->body, f->body, f->body_len);
		}
		return true;
	}
	return false;
}

void urom_request_fail_all(struct urom_request **list, doca_error_t failure)
{
	while (*list != NULL) {
		struct urom_request *req = *list;

		*list = req->next;
		req->next = NULL;
		req->done = true;
		req->reply_type = 0;
		req->failure = failure;
	}
}

doca_error_t urom_request_outcome(const struct urom_request *req, uint16_t expected, char *msg, size_t msg_size)
{
	struct urom_reader r;
	uint32_t status;

	msg[0] = '\0';
	if (req->reply_type == 0) {
		snprintf(msg, msg_size, "%s",
			 req->failure == DOCA_ERROR_TIME_OUT ? "no answer within the time limit"
							     : "the connection broke");
		return req->failure == DOCA_SUCCESS ? DOCA_ERROR_UNEXPECTED : req->failure;
	}
	if (req->reply_type == UROM_MSG_ERROR) {
		urom_reader_init(&r, req->body, req->body_len);
		status = urom_r_u32(&r);
		urom_r_string(&r, msg, msg_size);
		if (r.bad || status == 0 || status > DOCA_ERROR_DEVICE_FATAL_ERROR)
			return DOCA_ERROR_UNEXPECTED;
		return (doca_error_t)status;
	}
	if (req->reply_type != expected) {
		snprintf(msg, msg_size, "answered message type %u instead of %u", req->reply_type, expected);
		return DOCA_ERROR_UNEXPECTED;
	}
	return DOCA_SUCCESS;
}

/* ---- the control connection ---- */

/* Reads what came and files it; the lock is held. */
static int pump_locked(struct doca_urom_service *svc)
{
	struct urom_frame f;
	doca_error_t status;
	int did = 0;

	if (svc->control.fd < 0)
		return 0;
	urom_conn_flush(&svc->control);
	status = urom_conn_read(&svc->control);
	while (urom_conn_next(&svc->control, &f)) {
		did = 1;
		if (!urom_request_file(&svc->pending, &f))
			UROM_LOG(DOCA_LOG_LEVEL_DEBUG, "service %s: dropped a reply (type %u) nobody waits for",
				 svc->address, f.type);
	}
	if (status != DOCA_SUCCESS && svc->pending != NULL) {
		UROM_LOG(DOCA_LOG_LEVEL_ERROR, "service %s: %s", svc->address, svc->control.err);
		urom_request_fail_all(&svc->pending, DOCA_ERROR_NOT_CONNECTED);
		did = 1;
	}
	return did;
}

static void expire_locked(struct doca_urom_service *svc)
{
	int64_t now = urom_now_ms();
	struct urom_request *req = svc->pending;

	while (req != NULL) {
		struct urom_request *next = req->next;

		if (now > req->deadline_ms) {
			urom_request_unlink(&svc->pending, req);
			req->done = true;
			req->failure = DOCA_ERROR_TIME_OUT;
		}
		req = next;
	}
}

doca_error_t urom_service_request(struct doca_urom_service *svc, uint16_t type, const void *body, size_t body_len,
				  struct urom_request *req)
{
	doca_error_t status;

	urom_request_reset(req);
	pthread_mutex_lock(&svc->lock);
	if (svc->control.fd < 0 || svc->control.broken) {
		pthread_mutex_unlock(&svc->lock);
		return DOCA_ERROR_NOT_CONNECTED;
	}
	req->id = ++svc->next_request_id;
	req->deadline_ms = urom_now_ms() + UROM_REQUEST_TIMEOUT_MS;
	urom_w_raw(urom_conn_begin(&svc->control, type, req->id), body, body_len);
	status = urom_conn_send_frame(&svc->control);
	if (status == DOCA_SUCCESS) {
		req->next = svc->pending;
		svc->pending = req;
	}
	pthread_mutex_unlock(&svc->lock);
	return status;
}

bool urom_service_poll(struct doca_urom_service *svc, struct urom_request *req)
{
	bool done;

	pthread_mutex_lock(&svc->lock);
	if (!req->done) {
		pump_locked(svc);
		expire_locked(svc);
	}
	done = req->done;
	pthread_mutex_unlock(&svc->lock);
	return done;
}

void urom_service_forget(struct doca_urom_service *svc, struct urom_request *req)
{
	pthread_mutex_lock(&svc->lock);
	urom_request_unlink(&svc->pending, req);
	pthread_mutex_unlock(&svc->lock);
	urom_request_reset(req);
}

size_t urom_service_max_msg(const struct doca_urom_service *svc)
{
	return svc->daemon_max_msg != 0 && svc->daemon_max_msg < svc->max_msg ? svc->daemon_max_msg : svc->max_msg;
}

void urom_service_use(struct doca_urom_service *svc, int delta)
{
	pthread_mutex_lock(&svc->lock);
	svc->users = delta < 0 ? svc->users - 1 : svc->users + 1;
	pthread_mutex_unlock(&svc->lock);
}

doca_error_t urom_service_count_start(struct doca_urom_service *svc)
{
	doca_error_t status = DOCA_SUCCESS;

	pthread_mutex_lock(&svc->lock);
	if (svc->max_workers != 0 && svc->started >= svc->max_workers)
		status = DOCA_ERROR_FULL;
	else
		svc->started++;
	pthread_mutex_unlock(&svc->lock);
	return status;
}

/* Sends a request and waits for its reply on the calling thread (the service's start). */
static doca_error_t sync_request(struct doca_urom_service *svc, uint16_t type, uint16_t expected,
				 struct urom_request *req, char *msg, size_t msg_size)
{
	doca_error_t status = urom_service_request(svc, type, NULL, 0, req);
	int64_t deadline = urom_now_ms() + UROM_HANDSHAKE_TIMEOUT_MS;

	if (status != DOCA_SUCCESS) {
		snprintf(msg, msg_size, "%s", svc->control.err);
		return status;
	}
	/* The service's own poll files the reply (and fails it if the connection breaks). */
	while (!urom_service_poll(svc, req)) {
		if (urom_now_ms() > deadline) {
			urom_service_forget(svc, req);
			snprintf(msg, msg_size, "no answer within %d s", UROM_HANDSHAKE_TIMEOUT_MS / 1000);
			return DOCA_ERROR_TIME_OUT;
		}
		urom_conn_await(&svc->control, 100);
	}
	return urom_request_outcome(req, expected, msg, msg_size);
}

static doca_error_t read_plugins(struct doca_urom_service *svc, const struct urom_request *req)
{
	struct urom_reader r;
	uint32_t count, i;

	urom_reader_init(&r, req->body, req->body_len);
	count = urom_r_count(&r, UROM_PLUGIN_INFO_BYTES);
	svc->plugins = calloc(count == 0 ? 1 : count, sizeof(*svc->plugins));
	if (svc->plugins == NULL)
		return DOCA_ERROR_NO_MEMORY;
	for (i = 0; i < count && !r.bad; i++) {
		const uint8_t *name;

		svc->plugins[i].id = urom_r_u64(&r);
		svc->plugins[i].version = urom_r_u64(&r);
		name = urom_r_raw(&r, UROM_PLUGIN_NAME_MAX_LEN);
		urom_r_raw(&r, 8);
		if (name != NULL) {
			memcpy(svc->plugins[i].plugin_name, name, UROM_PLUGIN_NAME_MAX_LEN);
			svc->plugins[i].plugin_name[UROM_PLUGIN_NAME_MAX_LEN - 1] = '\0';
		}
	}
	svc->n_plugins = count;
	return urom_r_done(&r) ? DOCA_SUCCESS : DOCA_ERROR_UNEXPECTED;
}

static doca_error_t read_service_info(struct doca_urom_service *svc, const struct urom_request *req)
{
	struct urom_reader r;
	uint32_t count, i, cpu;

	urom_reader_init(&r, req->body, req->body_len);
	count = urom_r_count(&r, 4);
	UCS_CPU_ZERO(&svc->cpuset);
	for (i = 0; i < count && !r.bad; i++) {
		cpu = urom_r_u32(&r);
		UCS_CPU_SET(cpu, &svc->cpuset);
	}
	urom_r_u32(&r);
	urom_r_u32(&r);
	return urom_r_done(&r) ? DOCA_SUCCESS : DOCA_ERROR_UNEXPECTED;
}

static void disconnect(struct doca_urom_service *svc)
{
	if (svc->control.fd >= 0 && svc->ctx.pe != NULL)
		urom_pe_unwatch_fd(svc->ctx.pe, svc->control.fd);
	pthread_mutex_lock(&svc->lock);
	urom_request_fail_all(&svc->pending, DOCA_ERROR_NOT_CONNECTED);
	urom_conn_close(&svc->control);
	pthread_mutex_unlock(&svc->lock);
	free(svc->plugins);
	svc->plugins = NULL;
	svc->n_plugins = 0;
	urom_key_free(svc->key);
	svc->key = NULL;
}

static doca_error_t service_start(struct doca_ctx *ctx)
{
	struct doca_urom_service *svc = (struct doca_urom_service *)ctx;
	struct urom_hello_ok ok;
	struct urom_request req = {0};
	const char *address;
	doca_error_t status;
	char msg[UROM_CONN_ERR_MAX];

	if (svc->dev == NULL) {
		UROM_LOG(DOCA_LOG_LEVEL_ERROR, "service: no device; doca_urom_service_set_dev() names the device whose "
					       "DOCA_UROM_SERVICE_FILE line gives the daemon");
		return DOCA_ERROR_INVALID_VALUE;
	}
	address = urom_dev_service_address(svc->dev);
	if (address == NULL || address[0] == '\0') {
		UROM_LOG(DOCA_LOG_LEVEL_ERROR, "service: the device has no daemon address (DOCA_UROM_SERVICE_FILE)");
		return DOCA_ERROR_NOT_FOUND;
	}
	snprintf(svc->address, sizeof(svc->address), "%s", address);
	status = urom_key_from_env(&svc->key, msg, sizeof(msg));
	if (status != DOCA_SUCCESS) {
		UROM_LOG(DOCA_LOG_LEVEL_ERROR, "service %s: %s", svc->address, msg);
		return status;
	}
	urom_conn_init(&svc->control);
	status = urom_conn_open(&svc->control, svc->address, UROM_CONNECT_TIMEOUT_MS);
	if (status == DOCA_SUCCESS)
		status = urom_handshake(&svc->control, UROM_CHANNEL_CONTROL, svc->key, UROM_HANDSHAKE_TIMEOUT_MS, &ok);
	if (status != DOCA_SUCCESS) {
		UROM_LOG(DOCA_LOG_LEVEL_ERROR, "service %s: %s (%s)", svc->address, svc->control.err,
			 doca_error_get_name(status));
		disconnect(svc);
		return status;
	}
	svc->control.frame_limit = UROM_CONTROL_FRAME_LIMIT;
	/* Event mode: the engine's notification handle becomes readable when the daemon writes. */
	urom_pe_watch_fd(svc->ctx.pe, svc->control.fd);
	svc->daemon_max_msg = ok.max_msg_size;
	status = sync_request(svc, UROM_MSG_PLUGINS, UROM_MSG_PLUGINS_REPLY, &req, msg, sizeof(msg));
	if (status == DOCA_SUCCESS)
		status = read_plugins(svc, &req);
	if (status == DOCA_SUCCESS) {
		urom_request_reset(&req);
		status = sync_request(svc, UROM_MSG_SERVICE_INFO, UROM_MSG_SERVICE_INFO_REPLY, &req, msg, sizeof(msg));
		if (status == DOCA_SUCCESS)
			status = read_service_info(svc, &req);
	}
	urom_request_reset(&req);
	if (status != DOCA_SUCCESS) {
		UROM_LOG(DOCA_LOG_LEVEL_ERROR, "service %s: the plugin list or the CPU set could not be read: %s (%s)",
			 svc->address, msg[0] != '\0' ? msg : "malformed reply", doca_error_get_name(status));
		disconnect(svc);
		return status;
	}
	UROM_LOG(DOCA_LOG_LEVEL_INFO, "service %s: connected as %s, %zu plugins, max message %zu bytes", svc->address,
		 ok.principal, svc->n_plugins, urom_service_max_msg(svc));
	return DOCA_SUCCESS;
}

static doca_error_t service_stop(struct doca_ctx *ctx)
{
	struct doca_urom_service *svc = (struct doca_urom_service *)ctx;

	if (svc->gid_tasks != NULL)
		return DOCA_ERROR_IN_USE;
	disconnect(svc);
	return DOCA_SUCCESS;
}

static int service_progress(struct doca_ctx *ctx)
{
	struct doca_urom_service *svc = (struct doca_urom_service *)ctx;
	struct doca_urom_service_get_workers_by_gid_task **at;
	int did;

	/* Nothing asked, nothing to read: a program polling its engine pays no system call for the service. */
	pthread_mutex_lock(&svc->lock);
	did = svc->pending != NULL ? pump_locked(svc) : 0;
	expire_locked(svc);
	pthread_mutex_unlock(&svc->lock);
	at = &svc->gid_tasks;
	while (*at != NULL) {
		struct doca_urom_service_get_workers_by_gid_task *t = *at;
		char msg[UROM_CONN_ERR_MAX];
		doca_error_t status;
		struct urom_reader r;
		uint32_t count;

		if (!t->req.done) {
			at = &t->next;
			continue;
		}
		*at = t->next;
		t->next = NULL;
		status = urom_request_outcome(&t->req, UROM_MSG_WORKERS_IN_GROUP_REPLY, msg, sizeof(msg));
		if (status == DOCA_SUCCESS) {
			urom_reader_init(&r, t->req.body, t->req.body_len);
			count = urom_r_count(&r, 8);
			t->ids = calloc(count == 0 ? 1 : count, sizeof(uint64_t));
			if (t->ids == NULL)
				status = DOCA_ERROR_NO_MEMORY;
			for (uint32_t i = 0; t->ids != NULL && i < count; i++)
				t->ids[i] = urom_r_u64(&r);
			t->count = count;
			if (status == DOCA_SUCCESS && !urom_r_done(&r))
				status = DOCA_ERROR_UNEXPECTED;
		} else {
			UROM_LOG(DOCA_LOG_LEVEL_ERROR, "service %s: workers of group %u: %s (%s)", svc->address, t->gid,
				 msg, doca_error_get_name(status));
		}
		urom_request_reset(&t->req);
		urom_task_complete(&t->task, status);
		did = 1;
	}
	return did;
}

static doca_error_t gid_task_submit(struct doca_task *task)
{
	struct doca_urom_service_get_workers_by_gid_task *t = (struct doca_urom_service_get_workers_by_gid_task *)task;
	struct doca_urom_service_get_workers_by_gid_task **at;
	uint8_t body[8];
	uint64_t gid = t->gid;
	doca_error_t status;

	urom_store_le64(body, gid);
	free(t->ids);
	t->ids = NULL;
	t->count = 0;
	status = urom_service_request(t->svc, UROM_MSG_WORKERS_IN_GROUP, body, sizeof(body), &t->req);
	if (status != DOCA_SUCCESS)
		return status;
	for (at = &t->svc->gid_tasks; *at != NULL; at = &(*at)->next)
		;
	*at = t;
	return DOCA_SUCCESS;
}

static void gid_task_free(struct doca_task *task)
{
	doca_urom_service_get_workers_by_gid_task_release((struct doca_urom_service_get_workers_by_gid_task *)task);
}

static const struct urom_ctx_ops service_ops = {
	.name = "service",
	.start = service_start,
	.stop = service_stop,
	.progress = service_progress,
	.submit = gid_task_submit,
	.task_free = gid_task_free,
};

/* ---- public API ---- */

doca_error_t doca_urom_service_create(struct doca_urom_service **service_ctx)
{
	struct doca_urom_service *svc;

	if (service_ctx == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	svc = calloc(1, sizeof(*svc));
	if (svc == NULL)
		return DOCA_ERROR_NO_MEMORY;
	urom_ctx_init(&svc->ctx, &service_ops);
	pthread_mutex_init(&svc->lock, NULL);
	urom_conn_init(&svc->control);
	svc->max_msg = UROM_DEFAULT_MAX_MSG;
	*service_ctx = svc;
	return DOCA_SUCCESS;
}

doca_error_t doca_urom_service_destroy(struct doca_urom_service *svc)
{
	if (svc == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (svc->ctx.state != DOCA_CTX_STATE_IDLE)
		return DOCA_ERROR_NOT_PERMITTED;
	pthread_mutex_lock(&svc->lock);
	if (svc->users != 0) {
		pthread_mutex_unlock(&svc->lock);
		return DOCA_ERROR_IN_USE;
	}
	pthread_mutex_unlock(&svc->lock);
	urom_ctx_fini(&svc->ctx);
	disconnect(svc);
	pthread_mutex_destroy(&svc->lock);
	free(svc);
	return DOCA_SUCCESS;
}

static doca_error_t settable(const struct doca_urom_service *svc)
{
	if (svc == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	return svc->ctx.state == DOCA_CTX_STATE_IDLE ? DOCA_SUCCESS : DOCA_ERROR_BAD_STATE;
}

doca_error_t doca_urom_service_set_max_comm_msg_size(struct doca_urom_service *svc, size_t msg_size)
{
	doca_error_t status = settable(svc);

	if (status != DOCA_SUCCESS)
		return status;
	/* Room for a notification's header and at least one byte; at most what a frame length holds. */
	if (msg_size <= UROM_NOTIFY_HEADER || msg_size > (1u << 30))
		return DOCA_ERROR_INVALID_VALUE;
	svc->max_msg = msg_size;
	return DOCA_SUCCESS;
}

doca_error_t doca_urom_service_set_max_workers(struct doca_urom_service *svc, uint32_t max_workers)
{
	doca_error_t status = settable(svc);

	if (status != DOCA_SUCCESS)
		return status;
	if (max_workers == 0 || (max_workers & (max_workers - 1)) != 0)
		return DOCA_ERROR_INVALID_VALUE;
	svc->max_workers = max_workers;
	return DOCA_SUCCESS;
}

doca_error_t doca_urom_service_set_dev(struct doca_urom_service *svc, struct doca_dev *dev)
{
	doca_error_t status = settable(svc);

	if (status != DOCA_SUCCESS)
		return status;
	if (dev == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (urom_dev_service_address(dev) == NULL)
		return DOCA_ERROR_NOT_SUPPORTED;
	svc->dev = dev;
	return DOCA_SUCCESS;
}

struct doca_ctx *doca_urom_service_as_ctx(struct doca_urom_service *svc)
{
	return svc == NULL ? NULL : &svc->ctx;
}

doca_error_t doca_urom_service_get_plugins_list(struct doca_urom_service *svc,
						const struct doca_urom_service_plugin_info **plugins,
						size_t *plugins_count)
{
	if (svc == NULL || plugins == NULL || plugins_count == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (svc->ctx.state != DOCA_CTX_STATE_RUNNING)
		return DOCA_ERROR_BAD_STATE;
	if (svc->n_plugins == 0)
		return DOCA_ERROR_NOT_FOUND;
	*plugins = svc->plugins;
	*plugins_count = svc->n_plugins;
	return DOCA_SUCCESS;
}

doca_error_t doca_urom_service_get_cpuset(struct doca_urom_service *svc, doca_cpu_set_t *cpuset)
{
	if (svc == NULL || cpuset == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (svc->ctx.state != DOCA_CTX_STATE_RUNNING)
		return DOCA_ERROR_BAD_STATE;
	*cpuset = svc->cpuset;
	return DOCA_SUCCESS;
}

static void gid_task_completed(struct doca_task *task)
{
	struct doca_urom_service_get_workers_by_gid_task *t = (struct doca_urom_service_get_workers_by_gid_task *)task;

	if (t->cb != NULL)
		t->cb(t, task->user_data, task->ctx->user_data);
}

doca_error_t doca_urom_service_get_workers_by_gid_task_allocate(struct doca_urom_service *svc,
								struct doca_urom_service_get_workers_by_gid_task **task)
{
	struct doca_urom_service_get_workers_by_gid_task *t;

	if (svc == NULL || task == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	t = calloc(1, sizeof(*t));
	if (t == NULL)
		return DOCA_ERROR_NO_MEMORY;
	urom_task_init(&t->task, &svc->ctx, gid_task_completed);
	t->svc = svc;
	*task = t;
	return DOCA_SUCCESS;
}

doca_error_t
doca_urom_service_get_workers_by_gid_task_allocate_init(struct doca_urom_service *svc, uint32_t gid,
							doca_urom_service_get_workers_by_gid_task_completion_cb_t cb,
							struct doca_urom_service_get_workers_by_gid_task **task)
{
	doca_error_t status = doca_urom_service_get_workers_by_gid_task_allocate(svc, task);

	if (status != DOCA_SUCCESS)
		return status;
	(*task)->gid = gid;
	(*task)->cb = cb;
	return DOCA_SUCCESS;
}

doca_error_t doca_urom_service_get_workers_by_gid_task_release(struct doca_urom_service_get_workers_by_gid_task *task)
{
	if (task == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (task->task.in_flight)
		return DOCA_ERROR_NOT_PERMITTED;
	urom_request_reset(&task->req);
	free(task->ids);
	free(task);
	return DOCA_SUCCESS;
}

void doca_urom_service_get_workers_by_gid_task_set_gid(struct doca_urom_service_get_workers_by_gid_task *task,
						       uint32_t gid)
{
	if (task != NULL)
		task->gid = gid;
}

void doca_urom_service_get_workers_by_gid_task_set_cb(struct doca_urom_service_get_workers_by_gid_task *task,
						      doca_urom_service_get_workers_by_gid_task_completion_cb_t cb)
{
	if (task == NULL)
		return;
	task->cb = cb;
}

struct doca_task *
doca_urom_service_get_workers_by_gid_task_as_task(struct doca_urom_service_get_workers_by_gid_task *task)
{
	return task == NULL ? NULL : &task->task;
}

size_t
doca_urom_service_get_workers_by_gid_task_get_workers_count(struct doca_urom_service_get_workers_by_gid_task *task)
{
	return task == NULL ? 0 : task->count;
}

const uint64_t *
doca_urom_service_get_workers_by_gid_task_get_worker_ids(struct doca_urom_service_get_workers_by_gid_task *task)
{
	return task == NULL ? NULL : task->ids;
}
