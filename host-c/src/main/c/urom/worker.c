/* SPDX-License-Identifier: Apache-2.0 */
/* urom-java host library: the UROM worker context and its command tasks. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <doca_log.h>

#include "urom_internal.h"

#define SLOT_BITS 16
#define SLOT_MASK ((1u << SLOT_BITS) - 1)
#define MAX_INFLIGHT_LIMIT (1u << SLOT_BITS)
#define STOP_TIMEOUT_MS 10000
#define USER_DATA_BYTES 32

struct doca_urom_worker_cmd_task {
	struct doca_task task;
	struct doca_urom_worker *worker;
	uint64_t plugin;
	doca_urom_worker_cmd_task_completion_cb_t cb;
	uint64_t context;
	struct doca_buf payload;
	struct doca_buf response;
	uint8_t *mem;
	uint64_t user_data[USER_DATA_BYTES / sizeof(uint64_t)];
};

/* ---- data connection ---- */

static void release_slot(struct doca_urom_worker *w, struct doca_urom_worker_cmd_task *t)
{
	uint32_t slot = (uint32_t)(t->context & SLOT_MASK);

	if (slot < w->n_slots && w->slots[slot] == t) {
		w->slots[slot] = NULL;
		w->inflight--;
	}
}

/* Completes every command in flight with status (the connection ended). */
static size_t fail_inflight(struct doca_urom_worker *w, doca_error_t status)
{
	size_t failed = 0;

	for (uint32_t i = 0; i < w->n_slots; i++) {
		struct doca_urom_worker_cmd_task *t = w->slots[i];

		if (t == NULL)
			continue;
		w->slots[i] = NULL;
		w->inflight--;
		doca_buf_set_data(&t->response, t->response.head, 0);
		urom_task_complete(&t->task, status);
		failed++;
	}
	return failed;
}

static void close_data(struct doca_urom_worker *w)
{
	if (w->data.fd >= 0 && w->ctx.pe != NULL)
		urom_pe_unwatch_fd(w->ctx.pe, w->data.fd);
	urom_request_fail_all(&w->requests, DOCA_ERROR_NOT_CONNECTED);
	urom_conn_close(&w->data);
	free(w->slots);
	w->slots = NULL;
	w->n_slots = 0;
	w->inflight = 0;
}

static void end_worker(struct doca_urom_worker *w, doca_error_t inflight_status)
{
	fail_inflight(w, inflight_status);
	close_data(w);
	w->phase = UROM_WORKER_IDLE;
	w->stop_requested = false;
	urom_ctx_transition(&w->ctx, DOCA_CTX_STATE_IDLE);
}

static void on_notify(struct doca_urom_worker *w, const struct urom_frame *f)
{
	struct doca_urom_worker_cmd_task *t;
	struct urom_reader r;
	uint64_t plugin, context, len;
	uint32_t status, slot;
	const uint8_t *notif;
	char reason[UROM_REASON_MAX + 1] = "";
	doca_error_t result;

	urom_reader_init(&r, f->body, f->body_len);
	plugin = urom_r_u64(&r);
	context = urom_r_u64(&r);
	len = urom_r_u64(&r);
	status = urom_r_u32(&r);
	urom_r_u32(&r);
	notif = len <= urom_r_remaining(&r) ? urom_r_raw(&r, (size_t)len) : NULL;
	if (notif == NULL && len != 0) {
		UROM_LOG(DOCA_LOG_LEVEL_ERROR, "worker %lu: a notification says %lu bytes and holds fewer; dropped",
			 (unsigned long)w->id, (unsigned long)len);
		return;
	}
	if (urom_r_remaining(&r) != 0)
		urom_r_string(&r, reason, sizeof(reason));
	slot = (uint32_t)(context & SLOT_MASK);
	t = slot < w->n_slots ? w->slots[slot] : NULL;
	if (t == NULL || t->context != context) {
		UROM_LOG(DOCA_LOG_LEVEL_WARNING,
			 "worker %lu: a notification for no command in flight (context 0x%lx); dropped",
			 (unsigned long)w->id, (unsigned long)context);
		return;
	}
	release_slot(w, t);
	result = status <= DOCA_ERROR_DEVICE_FATAL_ERROR ? (doca_error_t)status : DOCA_ERROR_UNKNOWN;
	if (len > t->response.len) {
		result = DOCA_ERROR_TOO_BIG;
		len = 0;
	}
	if (len != 0)
		memcpy(t->response.head, notif, (size_t)len);
	doca_buf_set_data(&t->response, t->response.head, (size_t)len);
	if (result != DOCA_SUCCESS && reason[0] != '\0')
		UROM_LOG(DOCA_LOG_LEVEL_WARNING, "worker %lu: plugin 0x%lx refused a command: %s: %s",
			 (unsigned long)w->id, (unsigned long)plugin, doca_error_get_name(result), reason);
	urom_task_complete(&t->task, result);
}

int urom_worker_pump(struct doca_urom_worker *w)
{
	struct urom_frame f;
	doca_error_t status;
	int did = 0;

	if (w->phase != UROM_WORKER_RUNNING && w->phase != UROM_WORKER_STOP_SENT)
		return 0;
	urom_conn_flush(&w->data);
	status = urom_conn_read(&w->data);
	while (w->data.fd >= 0 && urom_conn_next(&w->data, &f)) {
		did = 1;
		switch (f.type) {
		case UROM_MSG_NOTIFY:
			on_notify(w, &f);
			break;
		case UROM_MSG_STOP_OK:
			if (w->phase == UROM_WORKER_STOP_SENT) {
				end_worker(w, DOCA_ERROR_SHUTDOWN);
				return 1;
			}
			break;
		default:
			if (!urom_request_file(&w->requests, &f))
				UROM_LOG(DOCA_LOG_LEVEL_DEBUG, "worker %lu: dropped a message of type %u",
					 (unsigned long)w->id, f.type);
		}
	}
	if (status != DOCA_SUCCESS) {
		if (w->phase == UROM_WORKER_STOP_SENT) {
			end_worker(w, DOCA_ERROR_SHUTDOWN);
		} else {
			size_t n = w->inflight;

			UROM_LOG(DOCA_LOG_LEVEL_ERROR, "worker %lu at %s: %s; %zu commands in flight end with %s",
				 (unsigned long)w->id, w->address, w->data.err, n,
				 doca_error_get_name(DOCA_ERROR_CONNECTION_RESET));
			end_worker(w, DOCA_ERROR_CONNECTION_RESET);
		}
		return 1;
	}
	if (w->phase == UROM_WORKER_STOP_SENT && urom_now_ms() > w->stop_deadline_ms) {
		UROM_LOG(DOCA_LOG_LEVEL_WARNING, "worker %lu: no STOP_OK within %d s; closing", (unsigned long)w->id,
			 STOP_TIMEOUT_MS / 1000);
		end_worker(w, DOCA_ERROR_SHUTDOWN);
		return 1;
	}
	return did;
}

doca_error_t urom_worker_request(struct doca_urom_worker *w, uint16_t type, const void *body, size_t body_len,
				 struct urom_request *req)
{
	doca_error_t status;

	if (w->phase != UROM_WORKER_RUNNING)
		return DOCA_ERROR_BAD_STATE;
	urom_request_reset(req);
	req->id = ++w->next_request_id;
	req->deadline_ms = urom_now_ms() + UROM_REQUEST_TIMEOUT_MS;
	urom_w_raw(urom_conn_begin(&w->data, type, req->id), body, body_len);
	status = urom_conn_send_frame(&w->data);
	if (status == DOCA_SUCCESS) {
		req->next = w->requests;
		w->requests = req;
	}
	return status;
}

bool urom_worker_running(const struct doca_urom_worker *w)
{
	return w->phase == UROM_WORKER_RUNNING;
}

static doca_error_t send_stop(struct doca_urom_worker *w)
{
	doca_error_t status;

	urom_conn_begin(&w->data, UROM_MSG_STOP, 0);
	status = urom_conn_send_frame(&w->data);
	w->phase = UROM_WORKER_STOP_SENT;
	w->stop_deadline_ms = urom_now_ms() + STOP_TIMEOUT_MS;
	return status;
}

/* The daemon answered WORKER_START: connect to the worker it names, or fall back to IDLE. */
static void on_started(struct doca_urom_worker *w)
{
	struct doca_urom_service *svc = w->svc;
	struct urom_hello_ok ok;
	struct urom_reader r;
	doca_error_t status;
	char msg[UROM_CONN_ERR_MAX];
	uint32_t reply_status;
	uint64_t id, gid, mask;

	status = urom_request_outcome(&w->start_req, UROM_MSG_WORKER_START_REPLY, msg, sizeof(msg));
	if (status == DOCA_SUCCESS) {
		urom_reader_init(&r, w->start_req.body, w->start_req.body_len);
		reply_status = urom_r_u32(&r);
		urom_r_u32(&r);
		id = urom_r_u64(&r);
		gid = urom_r_u64(&r);
		mask = urom_r_u64(&r);
		urom_r_string(&r, w->address, sizeof(w->address));
		urom_r_string(&r, msg, sizeof(msg));
		if (!urom_r_done(&r)) {
			status = DOCA_ERROR_UNEXPECTED;
			snprintf(msg, sizeof(msg), "its WORKER_START_REPLY is malformed");
		} else if (reply_status != DOCA_SUCCESS) {
			status = reply_status <= DOCA_ERROR_DEVICE_FATAL_ERROR ? (doca_error_t)reply_status
									       : DOCA_ERROR_UNKNOWN;
		} else {
			w->id = id;
			w->gid = (uint32_t)gid;
			w->plugins = mask;
		}
	}
	urom_request_reset(&w->start_req);
	if (status != DOCA_SUCCESS) {
		UROM_LOG(DOCA_LOG_LEVEL_ERROR, "worker: the service %s did not start it: %s (%s)", svc->address, msg,
			 doca_error_get_name(status));
		w->phase = UROM_WORKER_IDLE;
		w->stop_requested = false;
		urom_ctx_transition(&w->ctx, DOCA_CTX_STATE_IDLE);
		return;
	}
	urom_conn_init(&w->data);
	status = urom_conn_open(&w->data, w->address, UROM_CONNECT_TIMEOUT_MS);
	if (status == DOCA_SUCCESS)
		status = urom_handshake(&w->data, UROM_CHANNEL_DATA, svc->key, UROM_HANDSHAKE_TIMEOUT_MS, &ok);
	if (status == DOCA_SUCCESS) {
		w->max_msg = urom_service_max_msg(svc);
		if (ok.max_msg_size != 0 && ok.max_msg_size < w->max_msg)
			w->max_msg = ok.max_msg_size;
		w->data.frame_limit = w->max_msg + UROM_DATA_FRAME_SLACK;
		w->connection_id = ok.connection_id;
		w->limit_inflight = w->max_inflight;
		if (ok.max_inflight != 0 && ok.max_inflight < w->limit_inflight)
			w->limit_inflight = ok.max_inflight;
		w->slots = calloc(w->limit_inflight, sizeof(*w->slots));
		if (w->slots == NULL)
			status = DOCA_ERROR_NO_MEMORY;
		w->n_slots = w->limit_inflight;
	}
	if (status != DOCA_SUCCESS) {
		UROM_LOG(DOCA_LOG_LEVEL_ERROR, "worker %lu at %s: %s (%s)", (unsigned long)w->id, w->address,
			 w->data.err, doca_error_get_name(status));
		close_data(w);
		w->phase = UROM_WORKER_IDLE;
		w->stop_requested = false;
		urom_ctx_transition(&w->ctx, DOCA_CTX_STATE_IDLE);
		return;
	}
	urom_pe_watch_fd(w->ctx.pe, w->data.fd);
	w->phase = UROM_WORKER_RUNNING;
	if (w->stop_requested) {
		send_stop(w);
		return;
	}
	UROM_LOG(DOCA_LOG_LEVEL_DEBUG, "worker %lu at %s: running, gid %u, plugins 0x%lx", (unsigned long)w->id,
		 w->address, w->gid, (unsigned long)w->plugins);
	urom_ctx_transition(&w->ctx, DOCA_CTX_STATE_RUNNING);
}

/* ---- context operations ---- */

static doca_error_t worker_start(struct doca_ctx *ctx)
{
	struct doca_urom_worker *w = (struct doca_urom_worker *)ctx;
	struct doca_urom_service *svc = w->svc;
	struct urom_writer body;
	doca_error_t status;
	uint32_t n_cpus = 0;

	if (svc == NULL) {
		UROM_LOG(DOCA_LOG_LEVEL_ERROR, "worker: no service; doca_urom_worker_set_service() names it");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (svc->ctx.state != DOCA_CTX_STATE_RUNNING)
		return DOCA_ERROR_BAD_STATE;
	if (w->plugins == 0) {
		UROM_LOG(DOCA_LOG_LEVEL_ERROR, "worker: no plugins; doca_urom_worker_set_plugins() names them");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (w->has_cpuset) {
		for (int cpu = 0; cpu < UCS_CPU_SETSIZE; cpu++) {
			if (!ucs_cpu_is_set(cpu, &w->cpuset))
				continue;
			if (!ucs_cpu_is_set(cpu, &svc->cpuset)) {
				UROM_LOG(DOCA_LOG_LEVEL_ERROR, "worker: CPU %d is not in the service's CPU set", cpu);
				return DOCA_ERROR_INVALID_VALUE;
			}
			n_cpus++;
		}
	}
	status = urom_service_count_start(svc);
	if (status != DOCA_SUCCESS) {
		UROM_LOG(DOCA_LOG_LEVEL_ERROR, "worker: the service already started its %u workers (set_max_workers)",
			 svc->max_workers);
		return status;
	}
	urom_writer_init(&body, UROM_CONTROL_FRAME_LIMIT);
	urom_w_u64(&body, w->id);
	urom_w_u64(&body, w->plugins);
	urom_w_u64(&body, w->gid);
	urom_w_u32(&body, (uint32_t)w->n_env);
	for (size_t i = 0; i < w->n_env; i++)
		urom_w_string(&body, w->env[i]);
	urom_w_u32(&body, n_cpus);
	for (int cpu = 0; w->has_cpuset && cpu < UCS_CPU_SETSIZE; cpu++) {
		if (ucs_cpu_is_set(cpu, &w->cpuset))
			urom_w_u32(&body, (uint32_t)cpu);
	}
	status = body.failed ? DOCA_ERROR_TOO_BIG
			     : urom_service_request(svc, UROM_MSG_WORKER_START, body.data, body.len, &w->start_req);
	urom_writer_free(&body);
	if (status != DOCA_SUCCESS) {
		UROM_LOG(DOCA_LOG_LEVEL_ERROR, "worker: the start request could not be sent to %s (%s)", svc->address,
			 doca_error_get_name(status));
		return status;
	}
	w->phase = UROM_WORKER_START_SENT;
	w->stop_requested = false;
	return DOCA_ERROR_IN_PROGRESS;
}

static doca_error_t worker_stop(struct doca_ctx *ctx)
{
	struct doca_urom_worker *w = (struct doca_urom_worker *)ctx;

	switch (w->phase) {
	case UROM_WORKER_START_SENT:
		w->stop_requested = true;
		return DOCA_ERROR_IN_PROGRESS;
	case UROM_WORKER_RUNNING:
		if (send_stop(w) != DOCA_SUCCESS)
			end_worker(w, DOCA_ERROR_SHUTDOWN);
		return DOCA_ERROR_IN_PROGRESS;
	case UROM_WORKER_STOP_SENT:
		return DOCA_ERROR_IN_PROGRESS;
	default:
		return DOCA_SUCCESS;
	}
}

static int worker_progress(struct doca_ctx *ctx)
{
	struct doca_urom_worker *w = (struct doca_urom_worker *)ctx;

	if (w->phase == UROM_WORKER_START_SENT) {
		if (!urom_service_poll(w->svc, &w->start_req))
			return 0;
		on_started(w);
		return 1;
	}
	return urom_worker_pump(w);
}

static doca_error_t cmd_task_submit(struct doca_task *task)
{
	struct doca_urom_worker_cmd_task *t = (struct doca_urom_worker_cmd_task *)task;
	struct doca_urom_worker *w = t->worker;
	struct urom_writer *wr;
	doca_error_t status;
	uint32_t slot;

	if (w->phase != UROM_WORKER_RUNNING)
		return DOCA_ERROR_BAD_STATE;
	if (w->inflight >= w->limit_inflight)
		return DOCA_ERROR_AGAIN;
	if (t->payload.data_len > w->max_msg - UROM_CMD_HEADER)
		return DOCA_ERROR_TOO_BIG;
	slot = (uint32_t)(w->sequence % w->n_slots);
	while (w->slots[slot] != NULL)
		slot = (slot + 1) % w->n_slots;
	t->context = (++w->sequence << SLOT_BITS) | slot;
	wr = urom_conn_begin(&w->data, UROM_MSG_COMMAND, 0);
	urom_w_u64(wr, t->plugin);
	urom_w_u64(wr, t->context);
	urom_w_u64(wr, t->payload.data_len);
	urom_w_raw(wr, t->payload.data, t->payload.data_len);
	status = urom_conn_send_frame(&w->data);
	if (status == DOCA_SUCCESS) {
		w->slots[slot] = t;
		w->inflight++;
	} else if (status != DOCA_ERROR_AGAIN && status != DOCA_ERROR_TOO_BIG) {
		status = DOCA_ERROR_NOT_CONNECTED;
	}
	return status;
}

static void cmd_task_free(struct doca_task *task)
{
	doca_urom_worker_cmd_task_release((struct doca_urom_worker_cmd_task *)task);
}

static const struct urom_ctx_ops worker_ops = {
	.name = "worker",
	.start = worker_start,
	.stop = worker_stop,
	.progress = worker_progress,
	.submit = cmd_task_submit,
	.task_free = cmd_task_free,
};

/* ---- public API: worker ---- */

doca_error_t doca_urom_worker_create(struct doca_urom_worker **worker_ctx)
{
	struct doca_urom_worker *w;

	if (worker_ctx == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	w = calloc(1, sizeof(*w));
	if (w == NULL)
		return DOCA_ERROR_NO_MEMORY;
	urom_ctx_init(&w->ctx, &worker_ops);
	urom_conn_init(&w->data);
	w->id = DOCA_UROM_WORKER_ID_ANY;
	w->max_inflight = UROM_DEFAULT_MAX_INFLIGHT;
	*worker_ctx = w;
	return DOCA_SUCCESS;
}

static void free_env(struct doca_urom_worker *w)
{
	for (size_t i = 0; i < w->n_env; i++)
		free(w->env[i]);
	free(w->env);
	w->env = NULL;
	w->n_env = 0;
}

doca_error_t doca_urom_worker_destroy(struct doca_urom_worker *w)
{
	if (w == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (w->ctx.state != DOCA_CTX_STATE_IDLE || w->phase != UROM_WORKER_IDLE)
		return DOCA_ERROR_NOT_PERMITTED;
	urom_ctx_fini(&w->ctx);
	if (w->svc != NULL)
		urom_service_use(w->svc, -1);
	close_data(w);
	free_env(w);
	free(w);
	return DOCA_SUCCESS;
}

static doca_error_t settable(const struct doca_urom_worker *w)
{
	if (w == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	return w->ctx.state == DOCA_CTX_STATE_IDLE && w->phase == UROM_WORKER_IDLE ? DOCA_SUCCESS
										   : DOCA_ERROR_BAD_STATE;
}

doca_error_t doca_urom_worker_set_service(struct doca_urom_worker *w, struct doca_urom_service *svc)
{
	doca_error_t status = settable(w);

	if (status != DOCA_SUCCESS)
		return status;
	if (svc == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (w->svc != NULL)
		urom_service_use(w->svc, -1);
	w->svc = svc;
	urom_service_use(svc, 1);
	return DOCA_SUCCESS;
}

doca_error_t doca_urom_worker_set_id(struct doca_urom_worker *w, uint64_t worker_id)
{
	doca_error_t status = settable(w);

	if (status == DOCA_SUCCESS)
		w->id = worker_id;
	return status;
}

doca_error_t doca_urom_worker_set_plugins(struct doca_urom_worker *w, uint64_t plugins)
{
	doca_error_t status = settable(w);

	if (status != DOCA_SUCCESS)
		return status;
	if (plugins == 0)
		return DOCA_ERROR_INVALID_VALUE;
	w->plugins = plugins;
	return DOCA_SUCCESS;
}

doca_error_t doca_urom_worker_set_cpuset(struct doca_urom_worker *w, doca_cpu_set_t cpuset)
{
	doca_error_t status = settable(w);
	bool any = false;

	if (status != DOCA_SUCCESS)
		return status;
	for (int cpu = 0; cpu < UCS_CPU_SETSIZE && !any; cpu++)
		any = ucs_cpu_is_set(cpu, &cpuset);
	if (!any)
		return DOCA_ERROR_INVALID_VALUE;
	if (w->svc != NULL && w->svc->ctx.state == DOCA_CTX_STATE_RUNNING) {
		for (int cpu = 0; cpu < UCS_CPU_SETSIZE; cpu++) {
			if (ucs_cpu_is_set(cpu, &cpuset) && !ucs_cpu_is_set(cpu, &w->svc->cpuset))
				return DOCA_ERROR_INVALID_VALUE;
		}
	}
	w->cpuset = cpuset;
	w->has_cpuset = true;
	return DOCA_SUCCESS;
}

doca_error_t doca_urom_worker_set_gid(struct doca_urom_worker *w, uint32_t gid)
{
	doca_error_t status = settable(w);

	if (status == DOCA_SUCCESS)
		w->gid = gid;
	return status;
}

doca_error_t doca_urom_worker_set_max_inflight_tasks(struct doca_urom_worker *w, uint32_t max_tasks)
{
	doca_error_t status = settable(w);

	if (status != DOCA_SUCCESS)
		return status;
	if (max_tasks == 0 || (max_tasks & (max_tasks - 1)) != 0 || max_tasks > MAX_INFLIGHT_LIMIT)
		return DOCA_ERROR_INVALID_VALUE;
	w->max_inflight = max_tasks;
	return DOCA_SUCCESS;
}

static bool valid_env_item(const char *item)
{
	const char *eq;
	size_t n;

	if (item == NULL)
		return false;
	n = strnlen(item, UROM_MAX_ENV_ITEM + 1);
	eq = memchr(item, '=', n);
	if (n > UROM_MAX_ENV_ITEM || eq == NULL || eq == item)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (isspace((unsigned char)item[i]) || iscntrl((unsigned char)item[i]))
			return false;
	}
	return true;
}

doca_error_t doca_urom_worker_set_env(struct doca_urom_worker *w, char *const env[], size_t count)
{
	doca_error_t status = settable(w);
	char **copy;

	if (status != DOCA_SUCCESS)
		return status;
	if ((env == NULL && count != 0) || count > UROM_MAX_ENV)
		return DOCA_ERROR_INVALID_VALUE;
	for (size_t i = 0; i < count; i++) {
		if (!valid_env_item(env[i])) {
			UROM_LOG(DOCA_LOG_LEVEL_ERROR, "worker: env item %zu is not NAME=value without white space", i);
			return DOCA_ERROR_INVALID_VALUE;
		}
	}
	copy = calloc(count == 0 ? 1 : count, sizeof(*copy));
	if (copy == NULL)
		return DOCA_ERROR_NO_MEMORY;
	for (size_t i = 0; i < count; i++) {
		copy[i] = strdup(env[i]);
		if (copy[i] == NULL) {
			for (size_t j = 0; j < i; j++)
				free(copy[j]);
			free(copy);
			return DOCA_ERROR_NO_MEMORY;
		}
	}
	free_env(w);
	w->env = copy;
	w->n_env = count;
	return DOCA_SUCCESS;
}

doca_error_t doca_urom_worker_get_id(struct doca_urom_worker *w, uint64_t *worker_id)
{
	if (w == NULL || worker_id == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*worker_id = w->id;
	return DOCA_SUCCESS;
}

doca_error_t doca_urom_worker_get_gid(struct doca_urom_worker *w, uint32_t *worker_gid)
{
	if (w == NULL || worker_gid == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*worker_gid = w->gid;
	return DOCA_SUCCESS;
}

struct doca_ctx *doca_urom_worker_as_ctx(struct doca_urom_worker *w)
{
	return w == NULL ? NULL : &w->ctx;
}

/* ---- public API: command tasks ---- */

static void cmd_task_completed(struct doca_task *task)
{
	struct doca_urom_worker_cmd_task *t = (struct doca_urom_worker_cmd_task *)task;

	if (t->cb != NULL)
		t->cb(t, task->user_data, task->ctx->user_data);
}

doca_error_t doca_urom_worker_cmd_task_allocate(struct doca_urom_worker *w, struct doca_urom_worker_cmd_task **task)
{
	struct doca_urom_worker_cmd_task *t;
	size_t max_msg, payload_cap, response_cap;

	if (w == NULL || task == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	/* Sized by the program's message size: a command the channel cannot carry is refused at submit. */
	max_msg = w->svc != NULL ? w->svc->max_msg : UROM_DEFAULT_MAX_MSG;
	if (w->phase == UROM_WORKER_RUNNING && w->max_msg > max_msg)
		max_msg = w->max_msg;
	payload_cap = max_msg - UROM_CMD_HEADER;
	response_cap = max_msg + UROM_DATA_FRAME_SLACK;
	t = calloc(1, sizeof(*t));
	if (t == NULL)
		return DOCA_ERROR_NO_MEMORY;
	t->mem = malloc(payload_cap + response_cap);
	if (t->mem == NULL) {
		free(t);
		return DOCA_ERROR_NO_MEMORY;
	}
	urom_task_init(&t->task, &w->ctx, cmd_task_completed);
	t->worker = w;
	urom_buf_init(&t->payload, t->mem, payload_cap);
	urom_buf_init(&t->response, t->mem + payload_cap, response_cap);
	doca_buf_set_data(&t->response, t->response.head, 0);
	*task = t;
	return DOCA_SUCCESS;
}

doca_error_t doca_urom_worker_cmd_task_allocate_init(struct doca_urom_worker *w, uint64_t plugin,
						     struct doca_urom_worker_cmd_task **task)
{
	doca_error_t status = doca_urom_worker_cmd_task_allocate(w, task);

	if (status == DOCA_SUCCESS)
		(*task)->plugin = plugin;
	return status;
}

doca_error_t doca_urom_worker_cmd_task_release(struct doca_urom_worker_cmd_task *task)
{
	if (task == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (task->task.in_flight)
		return DOCA_ERROR_NOT_PERMITTED;
	free(task->mem);
	free(task);
	return DOCA_SUCCESS;
}

void doca_urom_worker_cmd_task_set_plugin(struct doca_urom_worker_cmd_task *task, uint64_t plugin)
{
	if (task != NULL)
		task->plugin = plugin;
}

void doca_urom_worker_cmd_task_set_cb(struct doca_urom_worker_cmd_task *task,
				      doca_urom_worker_cmd_task_completion_cb_t cb)
{
	if (task != NULL)
		task->cb = cb;
}

struct doca_buf *doca_urom_worker_cmd_task_get_payload(struct doca_urom_worker_cmd_task *task)
{
	return task == NULL ? NULL : &task->payload;
}

struct doca_buf *doca_urom_worker_cmd_task_get_response(struct doca_urom_worker_cmd_task *task)
{
	return task == NULL ? NULL : &task->response;
}

void *doca_urom_worker_cmd_task_get_user_data(struct doca_urom_worker_cmd_task *task)
{
	return task == NULL ? NULL : task->user_data;
}

struct doca_task *doca_urom_worker_cmd_task_as_task(struct doca_urom_worker_cmd_task *task)
{
	return task == NULL ? NULL : &task->task;
}
