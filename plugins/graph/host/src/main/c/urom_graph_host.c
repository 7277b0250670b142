/* SPDX-License-Identifier: Apache-2.0 */
/* urom-java: the graph plugin's C host helper (urom_graph_host.h). */
#include "urom_graph_host.h"

#include <string.h>

#include <doca_buf.h>
#include <doca_log.h>
#include <doca_pe.h>
#include <urom_plugin_util.h>

DOCA_LOG_REGISTER(UROM::GRAPH::HOST);

/* 0 until urom_graph_init() succeeds. */
static uint64_t graph_plugin_id;

/* What a loopback task keeps in its command task's 32 bytes of user data. */
struct loopback_task_data {
	union doca_data cookie;
	urom_graph_loopback_finished cb;
};

_Static_assert(sizeof(struct loopback_task_data) <= 32, "the task data must fit the command task's user data");

doca_error_t urom_graph_init(uint64_t plugin_id, uint64_t version)
{
	if (version != UROM_GRAPH_VERSION) {
		DOCA_LOG_ERR("graph plugin: the device side is version %lu, this helper speaks version %d",
			     (unsigned long)version, UROM_GRAPH_VERSION);
		return DOCA_ERROR_UNSUPPORTED_VERSION;
	}
	if (plugin_id == 0) {
		DOCA_LOG_ERR("graph plugin: plugin id 0 names no plugin");
		return DOCA_ERROR_INVALID_VALUE;
	}
	graph_plugin_id = plugin_id;
	return DOCA_SUCCESS;
}

/* The answer's value, or why the answer is not one. */
static doca_error_t read_answer(struct doca_urom_worker_cmd_task *task, uint64_t *data)
{
	doca_error_t status = doca_task_get_status(doca_urom_worker_cmd_task_as_task(task));
	struct doca_buf *response;
	size_t len = 0;
	void *bytes = NULL;
	uint64_t type;

	if (status != DOCA_SUCCESS) {
		DOCA_LOG_ERR("graph loopback: the command failed: %s", doca_error_get_name(status));
		return status;
	}
	response = doca_urom_worker_cmd_task_get_response(task);
	if (response == NULL || doca_buf_get_data_len(response, &len) != DOCA_SUCCESS ||
	    doca_buf_get_data(response, &bytes) != DOCA_SUCCESS || bytes == NULL) {
		DOCA_LOG_ERR("graph loopback: the command task has no response buffer");
		return DOCA_ERROR_UNEXPECTED;
	}
	if (len != UROM_GRAPH_LOOPBACK_BYTES) {
		DOCA_LOG_ERR("graph loopback: the answer is %zu bytes, %d expected", len, UROM_GRAPH_LOOPBACK_BYTES);
		return DOCA_ERROR_UNEXPECTED;
	}
	type = urom_load_le64(bytes);
	if (type != UROM_GRAPH_CMD_LOOPBACK) {
		DOCA_LOG_ERR("graph loopback: the answer is of type %lu, not LOOPBACK", (unsigned long)type);
		return DOCA_ERROR_UNEXPECTED;
	}
	*data = urom_load_le64((const uint8_t *)bytes + 8);
	return DOCA_SUCCESS;
}

static void loopback_completed(struct doca_urom_worker_cmd_task *task, union doca_data task_user_data,
			       union doca_data ctx_user_data)
{
	struct loopback_task_data td;
	uint64_t data = 0;
	doca_error_t result, released;

	(void)task_user_data;
	(void)ctx_user_data;
	memcpy(&td, doca_urom_worker_cmd_task_get_user_data(task), sizeof(td));
	result = read_answer(task, &data);
	if (result != DOCA_SUCCESS)
		data = 0;
	/* Released before the program's callback, which may then submit again at once. */
	released = doca_urom_worker_cmd_task_release(task);
	if (released != DOCA_SUCCESS)
		DOCA_LOG_ERR("graph loopback: releasing the command task failed: %s", doca_error_get_name(released));
	td.cb(result, td.cookie, data);
}

doca_error_t urom_graph_task_loopback(struct doca_urom_worker *worker_ctx, union doca_data cookie, uint64_t data,
				      urom_graph_loopback_finished cb)
{
	struct doca_urom_worker_cmd_task *task;
	struct loopback_task_data td = {.cookie = cookie, .cb = cb};
	struct doca_buf *payload;
	void *head = NULL;
	size_t capacity = 0;
	doca_error_t status;

	if (worker_ctx == NULL || cb == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (graph_plugin_id == 0) {
		DOCA_LOG_ERR("graph loopback: urom_graph_init() has not been called");
		return DOCA_ERROR_BAD_STATE;
	}
	status = doca_urom_worker_cmd_task_allocate_init(worker_ctx, graph_plugin_id, &task);
	if (status != DOCA_SUCCESS) {
		DOCA_LOG_ERR("graph loopback: allocating a command task failed: %s", doca_error_get_name(status));
		return status;
	}
	payload = doca_urom_worker_cmd_task_get_payload(task);
	status = doca_buf_get_data(payload, &head);
	if (status == DOCA_SUCCESS)
		status = doca_buf_get_data_len(payload, &capacity);
	if (status == DOCA_SUCCESS && capacity < UROM_GRAPH_LOOPBACK_BYTES)
		status = DOCA_ERROR_TOO_BIG;
	if (status == DOCA_SUCCESS) {
		urom_store_le64(head, UROM_GRAPH_CMD_LOOPBACK);
		urom_store_le64((uint8_t *)head + 8, data);
		status = doca_buf_set_data(payload, head, UROM_GRAPH_LOOPBACK_BYTES);
	}
	if (status != DOCA_SUCCESS) {
		DOCA_LOG_ERR("graph loopback: the command does not fit the task's payload: %s",
			     doca_error_get_name(status));
		doca_urom_worker_cmd_task_release(task);
		return status;
	}
	memcpy(doca_urom_worker_cmd_task_get_user_data(task), &td, sizeof(td));
	doca_urom_worker_cmd_task_set_cb(task, loopback_completed);
	status = doca_task_submit(doca_urom_worker_cmd_task_as_task(task));
	if (status != DOCA_SUCCESS) {
		/* AGAIN is the worker's in-flight limit: the program retries after progress, no error. */
		if (status != DOCA_ERROR_AGAIN)
			DOCA_LOG_ERR("graph loopback: submitting the command failed: %s", doca_error_get_name(status));
		doca_urom_worker_cmd_task_release(task);
		return status;
	}
	return DOCA_SUCCESS;
}
