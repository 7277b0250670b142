/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Commands in, notifications out: each command is checked for its header and exact length, then
 * handed to its handler; each gets exactly one notification, queued on ctx->notifications. A command
 * that fails a check is answered with the reason (BAD_COMMAND for a malformed one), never dropped.
 */
#include <stdlib.h>
#include <string.h>

#include <urom_log.h>

#include "coll.h"

UROM_LOG_SOURCE(UROM::WORKER::COLL);

urom_status_t coll_reason_status(uint32_t reason)
{
	switch (reason) {
	case UROM_COLL_R_NONE:
		return UROM_SUCCESS;
	case UROM_COLL_R_NOT_MAPPED:
	case UROM_COLL_R_NOT_READABLE:
	case UROM_COLL_R_NOT_WRITABLE:
	case UROM_COLL_R_BAD_MEMH:
	case UROM_COLL_R_HOST_UNREACHABLE:
		return UROM_ERR_NOT_PERMITTED;
	case UROM_COLL_R_TEAM_UNKNOWN:
	case UROM_COLL_R_NO_DOMAIN:
		return UROM_ERR_NOT_FOUND;
	case UROM_COLL_R_TEAM_EXISTS:
		return UROM_ERR_ALREADY_EXIST;
	case UROM_COLL_R_TOO_MANY:
		return UROM_ERR_FULL;
	case UROM_COLL_R_PEER_FAILED:
	case UROM_COLL_R_TEAM_FAILED:
		return UROM_ERR_CONNECTION_ABORTED;
	case UROM_COLL_R_TIMEOUT:
		return UROM_ERR_TIME_OUT;
	case UROM_COLL_R_TEAM_DESTROYED:
	case UROM_COLL_R_HOST_GONE:
		return UROM_ERR_SHUTDOWN;
	case UROM_COLL_R_NO_MEMORY:
		return UROM_ERR_NO_MEMORY;
	case UROM_COLL_R_TRANSPORT:
		return UROM_ERR_DRIVER;
	default:
		return UROM_ERR_INVALID_VALUE;
	}
}

void coll_notify(struct coll_ctx *ctx, const struct coll_reply *reply, const struct coll_fail *fail, const void *body,
		 size_t body_len)
{
	size_t len = sizeof(struct urom_coll_notif_hdr) + body_len;
	struct urom_worker_notif_desc *desc = malloc(sizeof(*desc) + len);
	struct urom_coll_notif_hdr hdr;

	if (desc == NULL) {
		UROM_LOG_ERR("cannot allocate a notification of %zu bytes: the host's command %u goes unanswered", len,
			     (unsigned)reply->cmd);
		return;
	}
	desc->dest_id = reply->dest_id;
	desc->worker_notif.type = reply->type;
	desc->worker_notif.urom_context = reply->urom_context;
	desc->worker_notif.len = len;
	desc->worker_notif.status = UROM_SUCCESS;
	desc->worker_notif.reserved = 0;
	memset(&hdr, 0, sizeof(hdr));
	hdr.type = reply->cmd;
	hdr.version = UROM_COLL_PROTOCOL_VERSION;
	hdr.cookie = reply->cookie;
	if (fail != NULL) {
		hdr.status = (int32_t)fail->status;
		hdr.reason = fail->reason;
		hdr.detail = fail->detail;
	}
	memcpy(desc->worker_notif.plugin_notif, &hdr, sizeof(hdr));
	if (body_len > 0)
		memcpy(desc->worker_notif.plugin_notif + sizeof(hdr), body, body_len);
	urom_list_add_tail(&ctx->notifications, &desc->entry);
}

void coll_notify_post(struct coll_ctx *ctx, const struct coll_reply *reply, const struct coll_fail *fail,
		      uint32_t team_id, uint64_t sequence)
{
	struct urom_coll_notif_post body;

	memset(&body, 0, sizeof(body));
	body.team_id = team_id;
	body.sequence = sequence;
	coll_notify(ctx, reply, fail, (uint8_t *)&body + sizeof(body.hdr), sizeof(body) - sizeof(body.hdr));
}

/* The answer's body size of a command type (the whole notification less its header). */
static size_t body_size(uint16_t type)
{
	switch (type) {
	case UROM_COLL_CMD_TEAM_CREATE:
		return sizeof(struct urom_coll_notif_team_create) - sizeof(struct urom_coll_notif_hdr);
	case UROM_COLL_CMD_TEAM_DESTROY:
		return sizeof(struct urom_coll_notif_team_destroy) - sizeof(struct urom_coll_notif_hdr);
	case UROM_COLL_CMD_MEM_MAP:
		return sizeof(struct urom_coll_notif_mem_map) - sizeof(struct urom_coll_notif_hdr);
	case UROM_COLL_CMD_POST:
		return sizeof(struct urom_coll_notif_post) - sizeof(struct urom_coll_notif_hdr);
	default:
		return 0;
	}
}

static void refuse(struct coll_ctx *ctx, const struct coll_reply *reply, const char *why)
{
	static const uint8_t zeros[16];
	struct coll_fail fail;

	UROM_LOG_WARN("command type %u refused: %s", (unsigned)reply->cmd, why);
	coll_fail_set(&fail, UROM_ERR_INVALID_VALUE, UROM_COLL_R_BAD_COMMAND, 0);
	coll_notify(ctx, reply, &fail, zeros, body_size(reply->cmd));
}

/* The exact length of a command of this type; 0 for an unknown type (TEAM_CREATE: its fixed part). */
static size_t command_size(uint16_t type)
{
	switch (type) {
	case UROM_COLL_CMD_TEAM_CREATE:
		return sizeof(struct urom_coll_cmd_team_create);
	case UROM_COLL_CMD_TEAM_DESTROY:
		return sizeof(struct urom_coll_cmd_team_destroy);
	case UROM_COLL_CMD_MEM_MAP:
		return sizeof(struct urom_coll_cmd_mem_map);
	case UROM_COLL_CMD_MEM_UNMAP:
		return sizeof(struct urom_coll_cmd_mem_unmap);
	case UROM_COLL_CMD_POST:
		return sizeof(struct urom_coll_cmd_post);
	default:
		return 0;
	}
}

void coll_run_command(struct coll_ctx *ctx, struct urom_worker_cmd_desc *desc)
{
	const uint8_t *bytes = desc->worker_cmd.plugin_cmd;
	size_t len = desc->worker_cmd.len;
	struct urom_coll_cmd_hdr hdr;
	struct coll_reply reply;
	size_t expected;

	memset(&hdr, 0, sizeof(hdr));
	memcpy(&hdr, bytes, len < sizeof(hdr) ? len : sizeof(hdr));
	reply.dest_id = desc->dest_id;
	reply.type = desc->worker_cmd.type;
	reply.urom_context = desc->worker_cmd.urom_context;
	reply.cookie = len >= sizeof(hdr) ? hdr.cookie : 0;
	reply.cmd = hdr.type;
	expected = command_size(hdr.type);
	if (len < sizeof(hdr)) {
		refuse(ctx, &reply, "shorter than the command header");
		return;
	}
	if (expected == 0) {
		refuse(ctx, &reply, "unknown command type");
		return;
	}
	if (hdr.version != UROM_COLL_PROTOCOL_VERSION) {
		refuse(ctx, &reply, "unknown protocol version");
		return;
	}
	if (hdr.reserved != 0) {
		refuse(ctx, &reply, "reserved header word set");
		return;
	}
	if (hdr.type == UROM_COLL_CMD_TEAM_CREATE ? len < expected : len != expected) {
		refuse(ctx, &reply, "wrong length");
		return;
	}
	switch (hdr.type) {
	case UROM_COLL_CMD_TEAM_CREATE: {
		struct urom_coll_cmd_team_create *cmd = malloc(len);

		if (cmd == NULL) {
			struct coll_fail fail;

			coll_fail_set(&fail, UROM_ERR_NO_MEMORY, UROM_COLL_R_NO_MEMORY, 0);
			coll_notify(ctx, &reply, &fail, (const uint8_t[16]){0}, body_size(hdr.type));
			return;
		}
		memcpy(cmd, bytes, len);
		coll_team_create(ctx, &reply, cmd, len);
		free(cmd);
		return;
	}
	case UROM_COLL_CMD_TEAM_DESTROY: {
		struct urom_coll_cmd_team_destroy cmd;

		memcpy(&cmd, bytes, sizeof(cmd));
		if (cmd.reserved != 0) {
			refuse(ctx, &reply, "reserved field set");
			return;
		}
		coll_team_destroy_cmd(ctx, &reply, cmd.team_id);
		return;
	}
	case UROM_COLL_CMD_MEM_MAP: {
		struct urom_coll_cmd_mem_map cmd;

		memcpy(&cmd, bytes, sizeof(cmd));
		coll_mem_map(ctx, &reply, &cmd);
		return;
	}
	case UROM_COLL_CMD_MEM_UNMAP: {
		struct urom_coll_cmd_mem_unmap cmd;

		memcpy(&cmd, bytes, sizeof(cmd));
		coll_mem_unmap(ctx, &reply, &cmd);
		return;
	}
	default: {
		struct urom_coll_cmd_post cmd;

		memcpy(&cmd, bytes, sizeof(cmd));
		coll_post(ctx, &reply, &cmd);
		return;
	}
	}
}
