/* SPDX-License-Identifier: Apache-2.0 */
/* urom-java: the collectives plugin's C host helper (urom_coll_host.h). */
#include "urom_coll_host.h"

#include <stdbool.h>
#include <string.h>

#include <doca_buf.h>
#include <doca_log.h>
#include <urom_plugin_util.h>

DOCA_LOG_REGISTER(UROM::COLL::HOST);

/* 0 until urom_coll_init() succeeds. */
static uint64_t coll_plugin_id;

static const char *const reason_names[UROM_COLL_REASON_COUNT] = {
	"NONE",           "BAD_COMMAND",      "UNKNOWN_COLL",   "UNKNOWN_DTYPE", "UNKNOWN_OP",   "OP_NOT_FOR_DTYPE",
	"COUNT_OVERFLOW", "BAD_ROOT",         "BAD_FLAGS",      "NOT_MAPPED",    "NOT_READABLE", "NOT_WRITABLE",
	"OVERLAP",        "BAD_MEMH",         "TEAM_UNKNOWN",   "TEAM_EXISTS",   "BAD_MEMBERS",  "TEAM_FAILED",
	"NO_DOMAIN",      "HOST_UNREACHABLE", "MISMATCH",       "PEER_REFUSED",  "PEER_FAILED",  "TIMEOUT",
	"HOST_GONE",      "TOO_MANY",         "TEAM_DESTROYED", "KNOBS",         "NO_MEMORY",    "TRANSPORT",
};

const char *urom_coll_reason_name(uint32_t reason)
{
	return reason < UROM_COLL_REASON_COUNT ? reason_names[reason] : "unknown";
}

static const char *command_name(uint16_t type)
{
	switch (type) {
	case UROM_COLL_CMD_TEAM_CREATE:
		return "TEAM_CREATE";
	case UROM_COLL_CMD_TEAM_DESTROY:
		return "TEAM_DESTROY";
	case UROM_COLL_CMD_MEM_MAP:
		return "MEM_MAP";
	case UROM_COLL_CMD_MEM_UNMAP:
		return "MEM_UNMAP";
	case UROM_COLL_CMD_POST:
		return "POST";
	default:
		return "unknown";
	}
}

/* The answer's size for each command type. */
static size_t answer_bytes(uint16_t type)
{
	switch (type) {
	case UROM_COLL_CMD_TEAM_CREATE:
		return sizeof(struct urom_coll_notif_team_create);
	case UROM_COLL_CMD_TEAM_DESTROY:
		return sizeof(struct urom_coll_notif_team_destroy);
	case UROM_COLL_CMD_MEM_MAP:
		return sizeof(struct urom_coll_notif_mem_map);
	case UROM_COLL_CMD_MEM_UNMAP:
		return sizeof(struct urom_coll_notif_mem_unmap);
	case UROM_COLL_CMD_POST:
		return sizeof(struct urom_coll_notif_post);
	default:
		return 0;
	}
}

doca_error_t urom_coll_init(uint64_t plugin_id, uint64_t version)
{
	if (version != UROM_COLL_PLUGIN_VERSION) {
		DOCA_LOG_ERR("coll plugin: the device side is version %lu, this helper speaks version %d",
			     (unsigned long)version, UROM_COLL_PLUGIN_VERSION);
		return DOCA_ERROR_UNSUPPORTED_VERSION;
	}
	if (plugin_id == 0) {
		DOCA_LOG_ERR("coll plugin: plugin id 0 names no plugin");
		return DOCA_ERROR_INVALID_VALUE;
	}
	coll_plugin_id = plugin_id;
	return DOCA_SUCCESS;
}

/* Fills the request from a well-formed answer of the given command type; false if it is not one. */
static bool read_answer(uint16_t type, const struct urom_coll_request *request, const uint8_t *a, size_t len,
			struct urom_coll_request *out)
{
	uint32_t status;

	if (len != answer_bytes(type)) {
		DOCA_LOG_ERR("coll %s: the answer is %zu bytes, %zu expected", command_name(type), len,
			     answer_bytes(type));
		return false;
	}
	if (urom_load_le16(a) != type || urom_load_le16(a + 2) != UROM_COLL_PROTOCOL_VERSION) {
		DOCA_LOG_ERR("coll %s: the answer has type %u version %u", command_name(type), urom_load_le16(a),
			     urom_load_le16(a + 2));
		return false;
	}
	if (urom_load_le64(a + 8) != (uint64_t)(uintptr_t)request) {
		DOCA_LOG_ERR("coll %s: the answer's cookie is not the command's", command_name(type));
		return false;
	}
	status = urom_load_le32(a + 4);
	if (status > DOCA_ERROR_DEVICE_FATAL_ERROR) {
		DOCA_LOG_ERR("coll %s: the answer's status %u is no DOCA status", command_name(type), status);
		return false;
	}
	out->status = (doca_error_t)status;
	out->reason = urom_load_le32(a + 16);
	out->detail = urom_load_le32(a + 20);
	switch (type) {
	case UROM_COLL_CMD_TEAM_CREATE:
		out->team_id = urom_load_le32(a + 24);
		out->rank = urom_load_le32(a + 28);
		out->size = urom_load_le32(a + 32);
		break;
	case UROM_COLL_CMD_TEAM_DESTROY:
		out->team_id = urom_load_le32(a + 24);
		break;
	case UROM_COLL_CMD_MEM_MAP:
		out->memh = urom_load_le64(a + 24);
		if (out->status == DOCA_SUCCESS && out->memh == 0) {
			DOCA_LOG_ERR("coll MEM_MAP: a successful answer without a handle");
			return false;
		}
		break;
	case UROM_COLL_CMD_POST:
		out->team_id = urom_load_le32(a + 24);
		out->sequence = urom_load_le64(a + 32);
		break;
	default:
		break;
	}
	return true;
}

static void completed(struct doca_urom_worker_cmd_task *task, union doca_data task_user_data,
		      union doca_data ctx_user_data)
{
	struct urom_coll_request *request;
	struct urom_coll_request outcome;
	doca_error_t task_status = doca_task_get_status(doca_urom_worker_cmd_task_as_task(task));
	struct doca_buf *payload = doca_urom_worker_cmd_task_get_payload(task);
	struct doca_buf *response = doca_urom_worker_cmd_task_get_response(task);
	void *cmd = NULL, *bytes = NULL;
	size_t len = 0;
	uint16_t type = 0;

	(void)task_user_data;
	(void)ctx_user_data;
	memcpy(&request, doca_urom_worker_cmd_task_get_user_data(task), sizeof(request));
	memset(&outcome, 0, sizeof(outcome));
	outcome.status = DOCA_ERROR_UNEXPECTED;
	if (doca_buf_get_data(payload, &cmd) == DOCA_SUCCESS && cmd != NULL &&
	    doca_buf_get_data(response, &bytes) == DOCA_SUCCESS &&
	    doca_buf_get_data_len(response, &len) == DOCA_SUCCESS) {
		type = urom_load_le16(cmd);
		if (len == 0 && task_status != DOCA_SUCCESS) {
			DOCA_LOG_DBG("coll %s: refused by the worker: %s", command_name(type),
				     doca_error_get_name(task_status));
			outcome.status = task_status;
		} else if (!read_answer(type, request, bytes, len, &outcome)) {
			outcome.status = DOCA_ERROR_UNEXPECTED;
		}
	} else {
		DOCA_LOG_ERR("coll: the command task lost its payload or response buffer");
	}
	if (doca_urom_worker_cmd_task_release(task) != DOCA_SUCCESS)
		DOCA_LOG_ERR("coll %s: releasing the command task failed", command_name(type));
	request->status = outcome.status;
	request->reason = outcome.reason;
	request->detail = outcome.detail;
	request->team_id = outcome.team_id;
	request->rank = outcome.rank;
	request->size = outcome.size;
	request->memh = outcome.memh;
	request->sequence = outcome.sequence;
	request->done = 1;
	if (request->cb != NULL)
		request->cb(request);
}

/* A command task whose payload holds len bytes, the header written; *cmd points at it. */
static doca_error_t new_task(struct doca_urom_worker *worker, uint16_t type, size_t len,
			     struct urom_coll_request *request, struct doca_urom_worker_cmd_task **task, uint8_t **cmd)
{
	struct doca_buf *payload;
	size_t capacity = 0;
	void *head = NULL;
	doca_error_t status;

	if (worker == NULL || request == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (coll_plugin_id == 0) {
		DOCA_LOG_ERR("coll %s: urom_coll_init() has not been called", command_name(type));
		return DOCA_ERROR_BAD_STATE;
	}
	status = doca_urom_worker_cmd_task_allocate_init(worker, coll_plugin_id, task);
	if (status != DOCA_SUCCESS) {
		DOCA_LOG_ERR("coll %s: allocating a command task failed: %s", command_name(type),
			     doca_error_get_name(status));
		return status;
	}
	payload = doca_urom_worker_cmd_task_get_payload(*task);
	status = doca_buf_get_data(payload, &head);
	if (status == DOCA_SUCCESS)
		status = doca_buf_get_data_len(payload, &capacity);
	if (status == DOCA_SUCCESS && len > capacity) {
		DOCA_LOG_ERR("coll %s: the command is %zu bytes, the task's payload holds %zu", command_name(type), len,
			     capacity);
		status = DOCA_ERROR_TOO_BIG;
	}
	if (status != DOCA_SUCCESS) {
		doca_urom_worker_cmd_task_release(*task);
		*task = NULL;
		return status;
	}
	*cmd = head;
	memset(*cmd, 0, len);
	urom_store_le16(*cmd, type);
	urom_store_le16(*cmd + 2, UROM_COLL_PROTOCOL_VERSION);
	urom_store_le64(*cmd + 8, (uint64_t)(uintptr_t)request);
	return DOCA_SUCCESS;
}

static doca_error_t submit(struct doca_urom_worker_cmd_task *task, uint8_t *cmd, size_t len,
			   struct urom_coll_request *request)
{
	const char *what = command_name(urom_load_le16(cmd));
	doca_error_t status = doca_buf_set_data(doca_urom_worker_cmd_task_get_payload(task), cmd, len);

	if (status == DOCA_SUCCESS) {
		request->done = 0;
		request->status = DOCA_ERROR_IN_PROGRESS;
		memcpy(doca_urom_worker_cmd_task_get_user_data(task), &request, sizeof(request));
		doca_urom_worker_cmd_task_set_cb(task, completed);
		status = doca_task_submit(doca_urom_worker_cmd_task_as_task(task));
	}
	if (status != DOCA_SUCCESS) {
		if (status != DOCA_ERROR_AGAIN)
			DOCA_LOG_ERR("coll %s: submitting the command failed: %s", what, doca_error_get_name(status));
		doca_urom_worker_cmd_task_release(task);
	}
	return status;
}

doca_error_t urom_coll_team_create(struct doca_urom_worker *worker, const struct urom_coll_team_params *params,
				   struct urom_coll_request *request)
{
	struct doca_urom_worker_cmd_task *task;
	size_t len = sizeof(struct urom_coll_cmd_team_create);
	doca_error_t status;
	uint8_t *cmd;

	if (params == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (params->members == UROM_COLL_MEMBERS_LIST) {
		if (params->member_ids == NULL || params->size > UROM_COLL_TEAM_LIST_MAX) {
			DOCA_LOG_ERR("coll TEAM_CREATE: a member list needs 1 to %u ids", UROM_COLL_TEAM_LIST_MAX);
			return DOCA_ERROR_INVALID_VALUE;
		}
		len += (size_t)params->size * sizeof(uint64_t);
	}
	status = new_task(worker, UROM_COLL_CMD_TEAM_CREATE, len, request, &task, &cmd);
	if (status != DOCA_SUCCESS)
		return status;
	urom_store_le32(cmd + 16, params->team_id);
	urom_store_le32(cmd + 20, params->size);
	urom_store_le32(cmd + 24, params->rank);
	urom_store_le32(cmd + 28, params->members);
	urom_store_le64(cmd + 32, params->start);
	urom_store_le64(cmd + 40, params->stride);
	urom_store_le32(cmd + 48, params->chunk_bytes);
	urom_store_le32(cmd + 52, params->small_bytes);
	urom_store_le32(cmd + 56, params->timeout_ms);
	if (params->members == UROM_COLL_MEMBERS_LIST)
		for (uint32_t i = 0; i < params->size; i++)
			urom_store_le64(cmd + sizeof(struct urom_coll_cmd_team_create) + 8 * (size_t)i,
					params->member_ids[i]);
	return submit(task, cmd, len, request);
}

doca_error_t urom_coll_team_destroy(struct doca_urom_worker *worker, uint32_t team_id,
				    struct urom_coll_request *request)
{
	struct doca_urom_worker_cmd_task *task;
	size_t len = sizeof(struct urom_coll_cmd_team_destroy);
	doca_error_t status;
	uint8_t *cmd;

	status = new_task(worker, UROM_COLL_CMD_TEAM_DESTROY, len, request, &task, &cmd);
	if (status != DOCA_SUCCESS)
		return status;
	urom_store_le32(cmd + 16, team_id);
	return submit(task, cmd, len, request);
}

doca_error_t urom_coll_mem_map(struct doca_urom_worker *worker, const void *address, size_t length, uint32_t access,
			       struct urom_coll_request *request)
{
	struct doca_urom_worker_cmd_task *task;
	size_t len = sizeof(struct urom_coll_cmd_mem_map);
	doca_error_t status;
	uint8_t *cmd;

	status = new_task(worker, UROM_COLL_CMD_MEM_MAP, len, request, &task, &cmd);
	if (status != DOCA_SUCCESS)
		return status;
	urom_store_le64(cmd + 16, (uint64_t)(uintptr_t)address);
	urom_store_le64(cmd + 24, (uint64_t)length);
	urom_store_le32(cmd + 32, access);
	return submit(task, cmd, len, request);
}

doca_error_t urom_coll_mem_unmap(struct doca_urom_worker *worker, uint64_t memh, struct urom_coll_request *request)
{
	struct doca_urom_worker_cmd_task *task;
	size_t len = sizeof(struct urom_coll_cmd_mem_unmap);
	doca_error_t status;
	uint8_t *cmd;

	status = new_task(worker, UROM_COLL_CMD_MEM_UNMAP, len, request, &task, &cmd);
	if (status != DOCA_SUCCESS)
		return status;
	urom_store_le64(cmd + 16, memh);
	return submit(task, cmd, len, request);
}

doca_error_t urom_coll_post(struct doca_urom_worker *worker, uint32_t team_id, const struct urom_coll_args *args,
			    struct urom_coll_request *request)
{
	struct doca_urom_worker_cmd_task *task;
	size_t len = sizeof(struct urom_coll_cmd_post);
	doca_error_t status;
	uint8_t *cmd;

	if (args == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	status = new_task(worker, UROM_COLL_CMD_POST, len, request, &task, &cmd);
	if (status != DOCA_SUCCESS)
		return status;
	urom_store_le32(cmd + 16, team_id);
	urom_store_le16(cmd + 20, (uint16_t)args->coll);
	cmd[22] = (uint8_t)args->dtype;
	cmd[23] = (uint8_t)args->op;
	urom_store_le32(cmd + 24, args->root);
	urom_store_le32(cmd + 28, args->flags);
	urom_store_le64(cmd + 32, args->count);
	urom_store_le64(cmd + 40, (uint64_t)(uintptr_t)args->src);
	urom_store_le64(cmd + 48, (uint64_t)(uintptr_t)args->dst);
	urom_store_le64(cmd + 56, args->src_memh);
	urom_store_le64(cmd + 64, args->dst_memh);
	return submit(task, cmd, len, request);
}

int urom_coll_test(const struct urom_coll_request *request)
{
	return request != NULL && request->done;
}

doca_error_t urom_coll_wait(struct doca_pe *pe, struct urom_coll_request *request)
{
	if (pe == NULL || request == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	while (!request->done)
		doca_pe_progress(pe);
	return request->status;
}
