/* SPDX-License-Identifier: Apache-2.0 */
/* urom-java: the sandbox plugin's C host helper (urom_sandbox_host.h). */
#include "urom_sandbox_host.h"

#include <stdbool.h>
#include <string.h>

#include <doca_buf.h>
#include <doca_log.h>
#include <doca_pe.h>
#include <urom_plugin_util.h>

DOCA_LOG_REGISTER(UROM::SANDBOX::HOST);

/* 0 until urom_sandbox_init() succeeds. */
static uint64_t sandbox_plugin_id;

/*
 * What a task keeps in its command task's 32 bytes of user data. The rest (type, context, buffer,
 * count, memh_id) is read back from the command itself, which stays in the task's payload.
 */
struct sandbox_task_data {
	union doca_data cookie;
	union {
		urom_sandbox_send_finished send;
		urom_sandbox_recv_finished recv;
		urom_sandbox_mem_map_finished mem_map;
	} cb;
};

_Static_assert(sizeof(struct sandbox_task_data) <= 32, "the task data must fit the command task's user data");

/* An answer as the protocol lays it out, or why it is not one. */
struct answer {
	/* The task's status, then the outcome for the program. */
	doca_error_t task_status;
	doca_error_t result;
	/* The command as sent. */
	const uint8_t *cmd;
	/* The plugin's bytes; len 0 when the worker answered a refusal without any. */
	const uint8_t *bytes;
	size_t len;
};

static const char *type_name(uint64_t type)
{
	switch (type) {
	case UROM_SANDBOX_MEM_MAP:
		return "MEM_MAP";
	case UROM_SANDBOX_TAG_SEND:
		return "TAG_SEND";
	case UROM_SANDBOX_TAG_RECV:
		return "TAG_RECV";
	default:
		return "unknown";
	}
}

doca_error_t urom_sandbox_init(uint64_t plugin_id, uint64_t version)
{
	if (version != UROM_SANDBOX_VERSION) {
		DOCA_LOG_ERR("sandbox plugin: the device side is version %lu, this helper speaks version %d",
			     (unsigned long)version, UROM_SANDBOX_VERSION);
		return DOCA_ERROR_UNSUPPORTED_VERSION;
	}
	if (plugin_id == 0) {
		DOCA_LOG_ERR("sandbox plugin: plugin id 0 names no plugin");
		return DOCA_ERROR_INVALID_VALUE;
	}
	sandbox_plugin_id = plugin_id;
	return DOCA_SUCCESS;
}

/* A status field of an answer; false for a value that is no DOCA status. */
static bool read_status(const uint8_t *p, doca_error_t *status)
{
	uint32_t v = urom_load_le32(p);

	if (v > DOCA_ERROR_DEVICE_FATAL_ERROR)
		return false;
	*status = (doca_error_t)v;
	return true;
}

/*
 * Reads the task's outcome: the command, the answer's bytes and the task status. Returns false when
 * there is nothing to parse (a refusal without bytes: a->result is the task's status) or the answer
 * is malformed (a->result is UNEXPECTED); true when the answer holds at least fixed bytes of the
 * command's type and context.
 */
static bool read_answer(struct doca_urom_worker_cmd_task *task, uint64_t type, size_t fixed, struct answer *a)
{
	struct doca_buf *payload = doca_urom_worker_cmd_task_get_payload(task);
	struct doca_buf *response = doca_urom_worker_cmd_task_get_response(task);
	void *cmd = NULL, *bytes = NULL;
	size_t cmd_len = 0;

	memset(a, 0, sizeof(*a));
	a->task_status = doca_task_get_status(doca_urom_worker_cmd_task_as_task(task));
	a->result = a->task_status;
	if (doca_buf_get_data(payload, &cmd) != DOCA_SUCCESS ||
	    doca_buf_get_data_len(payload, &cmd_len) != DOCA_SUCCESS || cmd == NULL || cmd_len < 16 ||
	    doca_buf_get_data(response, &bytes) != DOCA_SUCCESS ||
	    doca_buf_get_data_len(response, &a->len) != DOCA_SUCCESS) {
		DOCA_LOG_ERR("sandbox %s: the command task lost its payload or response buffer", type_name(type));
		a->result = DOCA_ERROR_UNEXPECTED;
		return false;
	}
	a->cmd = cmd;
	a->bytes = bytes;
	if (a->len == 0 && a->task_status != DOCA_SUCCESS) {
		DOCA_LOG_DBG("sandbox %s: refused: %s", type_name(type), doca_error_get_name(a->task_status));
		return false;
	}
	if (a->len < fixed || bytes == NULL) {
		DOCA_LOG_ERR("sandbox %s: the answer is %zu bytes, at least %zu expected", type_name(type), a->len,
			     fixed);
		a->result = DOCA_ERROR_UNEXPECTED;
		return false;
	}
	if (urom_load_le64(a->bytes) != type) {
		DOCA_LOG_ERR("sandbox %s: the answer is of type %lu", type_name(type),
			     (unsigned long)urom_load_le64(a->bytes));
		a->result = DOCA_ERROR_UNEXPECTED;
		return false;
	}
	if (urom_load_le64(a->bytes + 8) != urom_load_le64(a->cmd + 8)) {
		DOCA_LOG_ERR("sandbox %s: the answer's context 0x%lx is not the command's 0x%lx", type_name(type),
			     (unsigned long)urom_load_le64(a->bytes + 8), (unsigned long)urom_load_le64(a->cmd + 8));
		a->result = DOCA_ERROR_UNEXPECTED;
		return false;
	}
	return true;
}

static void release(struct doca_urom_worker_cmd_task *task, const char *what)
{
	doca_error_t status = doca_urom_worker_cmd_task_release(task);

	if (status != DOCA_SUCCESS)
		DOCA_LOG_ERR("sandbox %s: releasing the command task failed: %s", what, doca_error_get_name(status));
}

/* The context the program gave, from the command (or 0 when the command is gone). */
static union doca_data context_of(const struct answer *a)
{
	union doca_data context = {.u64 = a->cmd != NULL ? urom_load_le64(a->cmd + 8) : 0};

	return context;
}

static void send_completed(struct doca_urom_worker_cmd_task *task, union doca_data task_user_data,
			   union doca_data ctx_user_data)
{
	struct sandbox_task_data td;
	struct answer a;
	union doca_data context;
	doca_error_t status;

	(void)task_user_data;
	(void)ctx_user_data;
	memcpy(&td, doca_urom_worker_cmd_task_get_user_data(task), sizeof(td));
	if (!read_answer(task, UROM_SANDBOX_TAG_SEND, UROM_SANDBOX_TAG_SEND_NOTIF_BYTES, &a)) {
		status = a.result;
	} else if (a.len != UROM_SANDBOX_TAG_SEND_NOTIF_BYTES || !read_status(a.bytes + 16, &status)) {
		DOCA_LOG_ERR("sandbox TAG_SEND: the answer is %zu bytes with status field %u, %d bytes expected", a.len,
			     urom_load_le32(a.bytes + 16), UROM_SANDBOX_TAG_SEND_NOTIF_BYTES);
		a.result = status = DOCA_ERROR_UNEXPECTED;
	}
	context = context_of(&a);
	release(task, "TAG_SEND");
	td.cb.send(a.result, td.cookie, context, status);
}

static void recv_completed(struct doca_urom_worker_cmd_task *task, union doca_data task_user_data,
			   union doca_data ctx_user_data)
{
	struct sandbox_task_data td;
	struct answer a;
	union doca_data context;
	doca_error_t status;
	uint64_t count = 0, sender_tag = 0, room, memh_id;
	void *buffer = NULL, *host_buffer;
	bool inline_data;
	size_t expected;

	(void)task_user_data;
	(void)ctx_user_data;
	memcpy(&td, doca_urom_worker_cmd_task_get_user_data(task), sizeof(td));
	if (!read_answer(task, UROM_SANDBOX_TAG_RECV, UROM_SANDBOX_TAG_RECV_NOTIF_BYTES, &a)) {
		status = a.result;
		goto done;
	}
	room = urom_load_le64(a.cmd + 24);
	memh_id = urom_load_le64(a.cmd + 48);
	host_buffer = (void *)(uintptr_t)urom_load_le64(a.cmd + 16);
	count = urom_load_le64(a.bytes + 24);
	sender_tag = urom_load_le64(a.bytes + 32);
	if (!read_status(a.bytes + 40, &status)) {
		DOCA_LOG_ERR("sandbox TAG_RECV: the answer's status field %u is no DOCA status",
			     urom_load_le32(a.bytes + 40));
		goto malformed;
	}
	inline_data = memh_id == 0 && status == DOCA_SUCCESS;
	expected = UROM_SANDBOX_TAG_RECV_NOTIF_BYTES + (inline_data && count <= room ? (size_t)count : 0);
	if (count > room || a.len != expected) {
		DOCA_LOG_ERR(
			"sandbox TAG_RECV: the answer is %zu bytes for %lu received bytes (room for %lu), %zu expected",
			a.len, (unsigned long)count, (unsigned long)room, expected);
		goto malformed;
	}
	if (inline_data) {
		if (count != 0)
			memcpy(host_buffer, a.bytes + UROM_SANDBOX_TAG_RECV_NOTIF_BYTES, (size_t)count);
		buffer = host_buffer;
	}
	goto done;
malformed:
	a.result = status = DOCA_ERROR_UNEXPECTED;
	count = sender_tag = 0;
done:
	context = context_of(&a);
	release(task, "TAG_RECV");
	td.cb.recv(a.result, td.cookie, context, buffer, count, sender_tag, status);
}

static void mem_map_completed(struct doca_urom_worker_cmd_task *task, union doca_data task_user_data,
			      union doca_data ctx_user_data)
{
	struct sandbox_task_data td;
	struct answer a;
	union doca_data context;
	uint64_t memh_id = 0;

	(void)task_user_data;
	(void)ctx_user_data;
	memcpy(&td, doca_urom_worker_cmd_task_get_user_data(task), sizeof(td));
	if (read_answer(task, UROM_SANDBOX_MEM_MAP, UROM_SANDBOX_MEM_MAP_NOTIF_BYTES, &a)) {
		memh_id = urom_load_le64(a.bytes + 16);
		if (a.len != UROM_SANDBOX_MEM_MAP_NOTIF_BYTES || (a.result == DOCA_SUCCESS && memh_id == 0)) {
			DOCA_LOG_ERR("sandbox MEM_MAP: the answer is %zu bytes with memh_id %lu, %d bytes and an id "
				     "expected",
				     a.len, (unsigned long)memh_id, UROM_SANDBOX_MEM_MAP_NOTIF_BYTES);
			a.result = DOCA_ERROR_UNEXPECTED;
		}
	}
	if (a.result != DOCA_SUCCESS)
		memh_id = 0;
	context = context_of(&a);
	release(task, "MEM_MAP");
	td.cb.mem_map(a.result, td.cookie, context, memh_id);
}

/* A command task of the sandbox plugin whose payload can hold len bytes, and where they go. */
static doca_error_t new_task(struct doca_urom_worker *worker, uint64_t type, size_t len,
			     struct doca_urom_worker_cmd_task **task, uint8_t **cmd)
{
	struct doca_buf *payload;
	size_t capacity = 0;
	void *head = NULL;
	doca_error_t status;

	if (sandbox_plugin_id == 0) {
		DOCA_LOG_ERR("sandbox %s: urom_sandbox_init() has not been called", type_name(type));
		return DOCA_ERROR_BAD_STATE;
	}
	status = doca_urom_worker_cmd_task_allocate_init(worker, sandbox_plugin_id, task);
	if (status != DOCA_SUCCESS) {
		DOCA_LOG_ERR("sandbox %s: allocating a command task failed: %s", type_name(type),
			     doca_error_get_name(status));
		return status;
	}
	payload = doca_urom_worker_cmd_task_get_payload(*task);
	status = doca_buf_get_data(payload, &head);
	if (status == DOCA_SUCCESS)
		status = doca_buf_get_data_len(payload, &capacity);
	if (status == DOCA_SUCCESS && len > capacity) {
		DOCA_LOG_ERR("sandbox %s: the command is %zu bytes, the task's payload holds %zu", type_name(type), len,
			     capacity);
		status = DOCA_ERROR_TOO_BIG;
	}
	if (status != DOCA_SUCCESS) {
		release(*task, type_name(type));
		*task = NULL;
		return status;
	}
	*cmd = head;
	urom_store_le64(*cmd, type);
	return DOCA_SUCCESS;
}

static doca_error_t submit(struct doca_urom_worker_cmd_task *task, uint8_t *cmd, size_t len,
			   const struct sandbox_task_data *td, doca_urom_worker_cmd_task_completion_cb_t completed)
{
	const char *what = type_name(urom_load_le64(cmd));
	doca_error_t status = doca_buf_set_data(doca_urom_worker_cmd_task_get_payload(task), cmd, len);

	if (status == DOCA_SUCCESS) {
		memcpy(doca_urom_worker_cmd_task_get_user_data(task), td, sizeof(*td));
		doca_urom_worker_cmd_task_set_cb(task, completed);
		status = doca_task_submit(doca_urom_worker_cmd_task_as_task(task));
	}
	if (status != DOCA_SUCCESS) {
		/* AGAIN is the worker's in-flight limit: the program retries after progress, no error. */
		if (status != DOCA_ERROR_AGAIN)
			DOCA_LOG_ERR("sandbox %s: submitting the command failed: %s", what,
				     doca_error_get_name(status));
		release(task, what);
	}
	return status;
}

doca_error_t urom_sandbox_tag_task_send(struct doca_urom_worker *worker_ctx, union doca_data cookie,
					union doca_data context, uint64_t dest, uint64_t buffer, uint64_t count,
					uint64_t tag, uint64_t memh_id, urom_sandbox_send_finished cb)
{
	struct sandbox_task_data td = {.cookie = cookie, .cb.send = cb};
	struct doca_urom_worker_cmd_task *task;
	size_t len = UROM_SANDBOX_TAG_CMD_BYTES;
	doca_error_t status;
	uint8_t *cmd;

	if (worker_ctx == NULL || cb == NULL || (memh_id == 0 && buffer == 0 && count != 0))
		return DOCA_ERROR_INVALID_VALUE;
	if (memh_id == 0) {
		if (count > SIZE_MAX - UROM_SANDBOX_TAG_CMD_BYTES) {
			DOCA_LOG_ERR("sandbox TAG_SEND: %lu inline bytes do not fit a command", (unsigned long)count);
			return DOCA_ERROR_TOO_BIG;
		}
		len += (size_t)count;
	}
	status = new_task(worker_ctx, UROM_SANDBOX_TAG_SEND, len, &task, &cmd);
	if (status != DOCA_SUCCESS)
		return status;
	urom_store_le64(cmd + 8, context.u64);
	urom_store_le64(cmd + 16, dest);
	urom_store_le64(cmd + 24, buffer);
	urom_store_le64(cmd + 32, count);
	urom_store_le64(cmd + 40, tag);
	urom_store_le64(cmd + 48, memh_id);
	if (memh_id == 0 && count != 0)
		memcpy(cmd + UROM_SANDBOX_TAG_CMD_BYTES, (const void *)(uintptr_t)buffer, (size_t)count);
	return submit(task, cmd, len, &td, send_completed);
}

doca_error_t urom_sandbox_tag_task_recv(struct doca_urom_worker *worker_ctx, union doca_data cookie,
					union doca_data context, uint64_t buffer, uint64_t count, uint64_t tag,
					uint64_t tag_mask, uint64_t memh_id, urom_sandbox_recv_finished cb)
{
	struct sandbox_task_data td = {.cookie = cookie, .cb.recv = cb};
	struct doca_urom_worker_cmd_task *task;
	doca_error_t status;
	uint8_t *cmd;

	if (worker_ctx == NULL || cb == NULL || (memh_id == 0 && buffer == 0 && count != 0))
		return DOCA_ERROR_INVALID_VALUE;
	status = new_task(worker_ctx, UROM_SANDBOX_TAG_RECV, UROM_SANDBOX_TAG_CMD_BYTES, &task, &cmd);
	if (status != DOCA_SUCCESS)
		return status;
	urom_store_le64(cmd + 8, context.u64);
	urom_store_le64(cmd + 16, buffer);
	urom_store_le64(cmd + 24, count);
	urom_store_le64(cmd + 32, tag);
	urom_store_le64(cmd + 40, tag_mask);
	urom_store_le64(cmd + 48, memh_id);
	return submit(task, cmd, UROM_SANDBOX_TAG_CMD_BYTES, &td, recv_completed);
}

doca_error_t urom_sandbox_task_mem_map(struct doca_urom_worker *worker_ctx, union doca_data cookie,
				       union doca_data context, const char *path, uint64_t length,
				       urom_sandbox_mem_map_finished cb)
{
	struct sandbox_task_data td = {.cookie = cookie, .cb.mem_map = cb};
	struct doca_urom_worker_cmd_task *task;
	doca_error_t status;
	size_t path_len;
	uint8_t *cmd;

	if (worker_ctx == NULL || cb == NULL || path == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	path_len = strlen(path);
	if (path_len > SIZE_MAX - UROM_SANDBOX_MEM_MAP_CMD_BYTES)
		return DOCA_ERROR_TOO_BIG;
	status = new_task(worker_ctx, UROM_SANDBOX_MEM_MAP, UROM_SANDBOX_MEM_MAP_CMD_BYTES + path_len, &task, &cmd);
	if (status != DOCA_SUCCESS)
		return status;
	urom_store_le64(cmd + 8, context.u64);
	urom_store_le64(cmd + 16, length);
	urom_store_le64(cmd + 24, path_len);
	memcpy(cmd + UROM_SANDBOX_MEM_MAP_CMD_BYTES, path, path_len);
	return submit(task, cmd, UROM_SANDBOX_MEM_MAP_CMD_BYTES + path_len, &td, mem_map_completed);
}
