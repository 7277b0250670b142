/* SPDX-License-Identifier: Apache-2.0 */
/*
 * UCP tagged messages (struct coll_msg): every send and receive owns its buffer and always ends on
 * ctx->done, by UCX's callback or, for one UCX completes at once (no callback then), here; progress() hands it to
 * its owner. A receive matches its whole tag (full mask) and expects exactly its length: a longer or
 * shorter message fails it.
 */
#include <stdlib.h>
#include <string.h>

#include <urom_log.h>

#include "coll.h"

UROM_LOG_SOURCE(UROM::WORKER::COLL);

void coll_fail_set(struct coll_fail *fail, urom_status_t status, uint32_t reason, uint32_t detail)
{
	fail->status = status;
	fail->reason = reason;
	fail->detail = detail;
}

void coll_fail_transport(struct coll_fail *fail, ucs_status_t status)
{
	coll_fail_set(fail, UROM_ERR_DRIVER, UROM_COLL_R_TRANSPORT, (uint32_t)(-(int32_t)status));
}

static struct coll_msg *msg_new(struct coll_ctx *ctx, uint8_t *buf, size_t len)
{
	struct coll_msg *msg = calloc(1, sizeof(*msg));

	if (msg == NULL)
		return NULL;
	urom_list_init(&msg->link);
	msg->ctx = ctx;
	msg->buf = buf;
	msg->length = len;
	msg->status = UCS_INPROGRESS;
	return msg;
}

void coll_msg_free(struct coll_msg *msg)
{
	urom_list_del(&msg->link);
	free(msg->buf);
	free(msg);
}

static void msg_completed(struct coll_msg *msg, ucs_status_t status)
{
	msg->status = status;
	msg->request = NULL;
	urom_list_del(&msg->link);
	urom_list_add_tail(&msg->ctx->done, &msg->link);
}

static void send_cb(void *request, ucs_status_t status, void *user_data)
{
	struct coll_msg *msg = user_data;

	ucp_request_free(request);
	msg_completed(msg, status);
}

/* May run inside ucp_tag_recv_nbx (a queued message); the request is freed here either way. */
static void recv_cb(void *request, ucs_status_t status, const ucp_tag_recv_info_t *info, void *user_data)
{
	struct coll_msg *msg = user_data;

	if (status == UCS_OK && info != NULL) {
		msg->received = info->length;
		if (info->length != msg->length)
			status = UCS_ERR_MESSAGE_TRUNCATED;
	}
	ucp_request_free(request);
	msg_completed(msg, status);
}

struct coll_msg *coll_msg_send_owned(struct coll_ctx *ctx, ucp_ep_h ep, uint64_t tag, uint8_t *buf, size_t len,
				     struct coll_fail *fail)
{
	struct coll_msg *msg = msg_new(ctx, buf, len);
	ucp_request_param_t param;
	void *request;

	if (msg == NULL) {
		free(buf);
		coll_fail_set(fail, UROM_ERR_NO_MEMORY, UROM_COLL_R_NO_MEMORY, 0);
		return NULL;
	}
	memset(&param, 0, sizeof(param));
	param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_MEMORY_TYPE;
	param.cb.send = send_cb;
	param.user_data = msg;
	param.memory_type = UCS_MEMORY_TYPE_HOST;
	urom_list_add_tail(&ctx->inflight, &msg->link);
	request = ucp_tag_send_nbx(ep, buf, len, tag, &param);
	if (UCS_PTR_IS_ERR(request)) {
		coll_fail_transport(fail, UCS_PTR_STATUS(request));
		UROM_LOG_WARN("a send failed at once: %s", ucs_status_string(UCS_PTR_STATUS(request)));
		coll_msg_free(msg);
		return NULL;
	}
	if (request == NULL)
		msg_completed(msg, UCS_OK);
	else if (msg->status == UCS_INPROGRESS)
		msg->request = request;
	return msg;
}

struct coll_msg *coll_msg_send(struct coll_ctx *ctx, ucp_ep_h ep, uint64_t tag, const void *data, size_t len,
			       struct coll_fail *fail)
{
	uint8_t *buf = malloc(len == 0 ? 1 : len);

	if (buf == NULL) {
		coll_fail_set(fail, UROM_ERR_NO_MEMORY, UROM_COLL_R_NO_MEMORY, 0);
		return NULL;
	}
	memcpy(buf, data, len);
	return coll_msg_send_owned(ctx, ep, tag, buf, len, fail);
}

struct coll_msg *coll_msg_recv(struct coll_ctx *ctx, uint64_t tag, size_t len, struct coll_fail *fail)
{
	uint8_t *buf = malloc(len == 0 ? 1 : len);
	struct coll_msg *msg = buf == NULL ? NULL : msg_new(ctx, buf, len);
	ucp_request_param_t param;
	void *request;

	if (msg == NULL) {
		free(buf);
		coll_fail_set(fail, UROM_ERR_NO_MEMORY, UROM_COLL_R_NO_MEMORY, 0);
		return NULL;
	}
	memset(&param, 0, sizeof(param));
	param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_MEMORY_TYPE;
	/* UCX 1.13 completes a queued message at once without its length: the callback always runs */
	param.op_attr_mask |= UCP_OP_ATTR_FLAG_NO_IMM_CMPL;
	param.cb.recv = recv_cb;
	param.user_data = msg;
	param.memory_type = UCS_MEMORY_TYPE_HOST;
	urom_list_add_tail(&ctx->inflight, &msg->link);
	request = ucp_tag_recv_nbx(ctx->worker, buf, len, tag, UINT64_MAX, &param);
	if (UCS_PTR_IS_ERR(request)) {
		coll_fail_transport(fail, UCS_PTR_STATUS(request));
		coll_msg_free(msg);
		return NULL;
	}
	if (msg->status == UCS_INPROGRESS) {
		msg->request = request;
	}
	return msg;
}

void coll_msg_orphan(struct coll_ctx *ctx, struct coll_team *team, struct coll_op *op)
{
	urom_list_link_t *it;
	/* a cancelled receive may complete at once, moving to ctx->done: the next one is taken first */
	urom_list_link_t *next;

	for (it = ctx->inflight.next; it != &ctx->inflight; it = next) {
		struct coll_msg *msg = UROM_LIST_ENTRY(it, struct coll_msg, link);

		next = it->next;
		if ((op != NULL && msg->op == op) || (op == NULL && team != NULL && msg->team == team)) {
			msg->op = NULL;
			msg->team = NULL;
			if ((msg->role == COLL_MSG_HELLO_RECV || msg->role == COLL_MSG_AGREE_RECV ||
			     msg->role == COLL_MSG_DATA_RECV) &&
			    msg->request != NULL)
				ucp_request_cancel(ctx->worker, msg->request);
		}
	}
	/* completed, not yet handled: freed now */
	it = ctx->done.next;
	while (it != &ctx->done) {
		struct coll_msg *msg = UROM_LIST_ENTRY(it, struct coll_msg, link);

		it = it->next;
		if ((op != NULL && msg->op == op) || (op == NULL && team != NULL && msg->team == team))
			coll_msg_free(msg);
	}
}

int coll_msg_failed(const struct coll_msg *msg, struct coll_fail *fail)
{
	if (msg->status == UCS_OK)
		return 0;
	coll_fail_transport(fail, msg->status);
	return 1;
}
