/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Teams: TEAM_CREATE's checks, endpoints (error handling on: a peer's death is reported through
 * struct coll_peer), the HELLO exchange and its time limit, TEAM_DESTROY, and a team's failure.
 * A rank that refuses a team it could reach (knobs out of bounds, its host unreachable) still sends
 * its HELLOs, refused set, so that the others fail at once; it answers its host at once.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <urom_log.h>

#include "coll.h"
#include "coll_op.h"

UROM_LOG_SOURCE(UROM::WORKER::COLL);

struct coll_team *coll_team_find(struct coll_ctx *ctx, uint32_t team_id)
{
	for (urom_list_link_t *it = ctx->teams.next; it != &ctx->teams; it = it->next) {
		struct coll_team *team = UROM_LIST_ENTRY(it, struct coll_team, link);

		if (team->id == team_id && team->state != COLL_TEAM_REFUSING)
			return team;
	}
	return NULL;
}

static uint64_t members_hash(const uint64_t *members, uint32_t size)
{
	uint64_t hash = 0xcbf29ce484222325ull;

	for (uint32_t i = 0; i < size; i++)
		for (int b = 0; b < 8; b++) {
			hash ^= (uint8_t)(members[i] >> (8 * b));
			hash *= 0x100000001b3ull;
		}
	return hash;
}

static void team_answer(struct coll_team *team, const struct coll_fail *fail)
{
	struct urom_coll_notif_team_create body;

	memset(&body, 0, sizeof(body));
	body.team_id = team->id;
	body.rank = team->rank;
	body.size = team->size;
	coll_notify(team->ctx, &team->create_reply, fail, (uint8_t *)&body + sizeof(body.hdr),
		    sizeof(body) - sizeof(body.hdr));
}

static void answer_create(struct coll_ctx *ctx, const struct coll_reply *reply,
			  const struct urom_coll_cmd_team_create *cmd, uint32_t reason, uint32_t detail)
{
	struct urom_coll_notif_team_create body;
	struct coll_fail fail;

	memset(&body, 0, sizeof(body));
	body.team_id = cmd->team_id;
	body.rank = cmd->rank;
	body.size = cmd->size;
	coll_fail_set(&fail, coll_reason_status(reason), reason, detail);
	coll_notify(ctx, reply, &fail, (uint8_t *)&body + sizeof(body.hdr), sizeof(body) - sizeof(body.hdr));
}

/* ---- endpoints ---- */

static void peer_error(void *arg, ucp_ep_h ep, ucs_status_t status)
{
	struct coll_peer *peer = arg;

	(void)ep;
	if (peer->team == NULL)
		return;
	UROM_LOG_WARN("team %u: the endpoint to rank %u failed: %s", peer->team->id, peer->rank,
		      ucs_status_string(status));
	if (peer->team->peer_failed == 0)
		peer->team->peer_failed = peer->rank + 1;
}

static int peer_connect(struct coll_team *team, uint32_t rank, void *address)
{
	struct coll_peer *peer = calloc(1, sizeof(*peer));
	ucp_ep_params_t params;
	ucs_status_t status;

	if (peer == NULL)
		return -1;
	urom_list_init(&peer->link);
	peer->team = team;
	peer->rank = rank;
	memset(&params, 0, sizeof(params));
	params.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
			    UCP_EP_PARAM_FIELD_ERR_HANDLER;
	params.address = address;
	params.err_mode = UCP_ERR_HANDLING_MODE_PEER;
	params.err_handler.cb = peer_error;
	params.err_handler.arg = peer;
	status = ucp_ep_create(team->ctx->worker, &params, &peer->ep);
	if (status != UCS_OK) {
		UROM_LOG_ERR("team %u: cannot create an endpoint to rank %u: %s", team->id, rank,
			     ucs_status_string(status));
		free(peer);
		return -1;
	}
	team->peers[rank] = peer;
	return 0;
}

static void peer_close(struct coll_ctx *ctx, struct coll_peer *peer, int force)
{
	ucp_request_param_t param;
	void *request;

	memset(&param, 0, sizeof(param));
	if (force) {
		param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
		param.flags = UCP_EP_CLOSE_FLAG_FORCE;
	}
	peer->team = NULL;
	request = ucp_ep_close_nbx(peer->ep, &param);
	peer->ep = NULL;
	if (UCS_PTR_IS_PTR(request)) {
		peer->close_request = request;
		urom_list_add_tail(&ctx->closing_eps, &peer->link);
	} else {
		free(peer);
	}
}

void coll_eps_reap(struct coll_ctx *ctx, int force)
{
	urom_list_link_t *it = ctx->closing_eps.next;

	while (it != &ctx->closing_eps) {
		struct coll_peer *peer = UROM_LIST_ENTRY(it, struct coll_peer, link);

		it = it->next;
		if (!force && ucp_request_check_status(peer->close_request) == UCS_INPROGRESS)
			continue;
		ucp_request_free(peer->close_request);
		urom_list_del(&peer->link);
		free(peer);
	}
}

/* ---- life ---- */

void coll_team_free(struct coll_team *team)
{
	struct coll_ctx *ctx = team->ctx;
	int force = team->peer_failed != 0 || ctx->closing;

	while (!urom_list_is_empty(&team->ops))
		coll_op_finish(UROM_LIST_ENTRY(team->ops.next, struct coll_op, link),
			       &(struct coll_fail){UROM_ERR_SHUTDOWN, UROM_COLL_R_TEAM_DESTROYED, 0});
	coll_msg_orphan(ctx, team, NULL);
	if (team->peers != NULL)
		for (uint32_t r = 0; r < team->size; r++)
			if (team->peers[r] != NULL)
				peer_close(ctx, team->peers[r], force);
	coll_host_put(ctx, team->host);
	if (team->counted)
		ctx->nteams--;
	urom_list_del(&team->link);
	free(team->peers);
	free(team->members);
	free(team);
}

void coll_team_fail(struct coll_team *team, const struct coll_fail *fail, uint32_t failed_rank)
{
	if (team->state == COLL_TEAM_FAILED)
		return;
	UROM_LOG_WARN("team %u failed (reason %u, rank %u): its collectives fail", team->id, fail->reason, failed_rank);
	team->state = COLL_TEAM_FAILED;
	coll_fail_set(&team->failure, UROM_ERR_CONNECTION_ABORTED, UROM_COLL_R_TEAM_FAILED, failed_rank);
	while (!urom_list_is_empty(&team->ops))
		coll_op_finish(UROM_LIST_ENTRY(team->ops.next, struct coll_op, link), fail);
}

static void creation_failed(struct coll_team *team, uint32_t reason, uint32_t detail)
{
	struct coll_fail fail;

	coll_fail_set(&fail, coll_reason_status(reason), reason, detail);
	team_answer(team, &fail);
	coll_team_free(team);
}

/* ---- TEAM_CREATE ---- */

/* The members' checks: 0, or BAD_MEMBERS / BAD_COMMAND. */
static uint32_t check_members(const struct urom_coll_cmd_team_create *cmd, size_t len)
{
	if (cmd->reserved != 0 || cmd->members > UROM_COLL_MEMBERS_LIST)
		return UROM_COLL_R_BAD_COMMAND;
	if (cmd->members == UROM_COLL_MEMBERS_LIST) {
		if (cmd->size > UROM_COLL_TEAM_LIST_MAX)
			return UROM_COLL_R_BAD_MEMBERS;
		if (len != sizeof(*cmd) + 8u * cmd->size)
			return UROM_COLL_R_BAD_COMMAND;
	} else if (len != sizeof(*cmd)) {
		return UROM_COLL_R_BAD_COMMAND;
	}
	if (cmd->size == 0 || cmd->size > UROM_COLL_TEAM_SIZE_MAX || cmd->rank >= cmd->size)
		return UROM_COLL_R_BAD_MEMBERS;
	if (cmd->members == UROM_COLL_MEMBERS_RANGE) {
		if (cmd->stride == 0 || (cmd->size > 1 && (UINT64_MAX - cmd->start) / (cmd->size - 1) < cmd->stride))
			return UROM_COLL_R_BAD_MEMBERS;
		return 0;
	}
	for (uint32_t i = 0; i < cmd->size; i++)
		for (uint32_t j = i + 1; j < cmd->size; j++)
			if (cmd->member_ids[i] == cmd->member_ids[j])
				return UROM_COLL_R_BAD_MEMBERS;
	return 0;
}

static int knobs_valid(const struct urom_coll_cmd_team_create *cmd)
{
	return (cmd->chunk_bytes == 0 ||
		(cmd->chunk_bytes >= UROM_COLL_CHUNK_MIN && cmd->chunk_bytes <= UROM_COLL_CHUNK_MAX)) &&
	       cmd->small_bytes <= UROM_COLL_SMALL_MAX && cmd->timeout_ms <= UROM_COLL_TIMEOUT_MS_MAX;
}

static void make_hello(const struct coll_team *team, struct urom_coll_hello *hello)
{
	memset(hello, 0, sizeof(*hello));
	hello->version = UROM_COLL_PROTOCOL_VERSION;
	hello->team_id = team->id;
	hello->size = team->size;
	hello->rank = team->rank;
	hello->members_hash = team->members_hash;
	hello->chunk_bytes = team->chunk_bytes;
	hello->small_bytes = team->small_bytes;
	hello->timeout_ms = team->timeout_ms;
	hello->refused = team->refusal;
}

/* Connects to every other member and sends the HELLOs (and, unless refusing, posts their receives). */
static int exchange_hellos(struct coll_team *team, uint32_t *detail)
{
	struct coll_ctx *ctx = team->ctx;
	struct urom_coll_hello hello;
	struct coll_fail fail;

	for (uint32_t r = 0; r < team->size; r++) {
		void *address = NULL;

		if (r == team->rank)
			continue;
		*detail = r;
		if (ctx->wctx->domain_iface.addr_lookup(ctx->wctx, team->members[r], &address) != UROM_SUCCESS ||
		    address == NULL || (*(const uint8_t *)address & 0x0f) > 1)
			return UROM_COLL_R_NO_DOMAIN;
		if (peer_connect(team, r, address) != 0)
			return UROM_COLL_R_TRANSPORT;
	}
	*detail = 0;
	make_hello(team, &hello);
	for (uint32_t r = 0; r < team->size; r++) {
		struct coll_msg *msg;

		if (r == team->rank)
			continue;
		if (team->refusal == 0) {
			msg = coll_msg_recv(ctx, urom_coll_tag(UROM_COLL_MSG_HELLO, team->id, 0, 0, r), sizeof(hello),
					    &fail);
			if (msg == NULL)
				return fail.reason;
			msg->team = team;
			msg->role = COLL_MSG_HELLO_RECV;
			msg->peer = r;
		}
		msg = coll_msg_send(ctx, team->peers[r]->ep,
				    urom_coll_tag(UROM_COLL_MSG_HELLO, team->id, 0, 0, team->rank), &hello,
				    sizeof(hello), &fail);
		if (msg == NULL)
			return fail.reason;
		msg->team = team;
		msg->role = COLL_MSG_HELLO_SEND;
		msg->peer = r;
		team->hello_sends++;
	}
	return 0;
}

/* This worker's own address must be the one its domain publishes at its rank's id. */
static uint32_t check_own_address(struct coll_ctx *ctx, uint64_t id)
{
	void *address = NULL;

	if (ctx->wctx->domain_iface.addr_lookup(ctx->wctx, id, &address) != UROM_SUCCESS || address == NULL)
		return UROM_COLL_R_NO_DOMAIN;
	return memcmp(address, ctx->address, ctx->address_len) == 0 ? 0 : UROM_COLL_R_BAD_MEMBERS;
}

void coll_team_create(struct coll_ctx *ctx, const struct coll_reply *reply, const struct urom_coll_cmd_team_create *cmd,
		      size_t len)
{
	uint32_t reason = check_members(cmd, len);
	uint32_t refusal = 0;
	uint32_t detail = 0;
	struct coll_fail fail;
	struct coll_team *team;

	if (reason != 0) {
		answer_create(ctx, reply, cmd, reason, 0);
		return;
	}
	if (!knobs_valid(cmd))
		refusal = UROM_COLL_R_KNOBS;
	if (cmd->team_id == 0 || cmd->team_id > UROM_COLL_TEAM_ID_MAX) {
		answer_create(ctx, reply, cmd, refusal != 0 ? refusal : UROM_COLL_R_BAD_COMMAND, 0);
		return;
	}
	if (coll_team_find(ctx, cmd->team_id) != NULL) {
		answer_create(ctx, reply, cmd, refusal != 0 ? refusal : UROM_COLL_R_TEAM_EXISTS, 0);
		return;
	}
	if (ctx->nteams >= UROM_COLL_TEAMS_PER_WORKER) {
		answer_create(ctx, reply, cmd, refusal != 0 ? refusal : UROM_COLL_R_TOO_MANY, 0);
		return;
	}
	if (ctx->wctx->domain_iface.addr_lookup == NULL) {
		answer_create(ctx, reply, cmd, refusal != 0 ? refusal : UROM_COLL_R_NO_DOMAIN, 0);
		return;
	}

	team = calloc(1, sizeof(*team));
	if (team != NULL) {
		team->members = calloc(cmd->size, sizeof(uint64_t));
		team->peers = calloc(cmd->size, sizeof(struct coll_peer *));
	}
	if (team == NULL || team->members == NULL || team->peers == NULL) {
		if (team != NULL) {
			free(team->members);
			free(team->peers);
			free(team);
		}
		answer_create(ctx, reply, cmd, UROM_COLL_R_NO_MEMORY, 0);
		return;
	}
	team->ctx = ctx;
	team->dest_id = reply->dest_id;
	team->id = cmd->team_id;
	team->size = cmd->size;
	team->rank = cmd->rank;
	team->chunk_bytes = cmd->chunk_bytes != 0 ? cmd->chunk_bytes : UROM_COLL_CHUNK_DEFAULT;
	team->small_bytes = cmd->small_bytes != 0 ? cmd->small_bytes : UROM_COLL_SMALL_DEFAULT;
	team->timeout_ms = cmd->timeout_ms != 0 ? cmd->timeout_ms : UROM_COLL_TIMEOUT_MS_DEFAULT;
	team->create_reply = *reply;
	team->state = COLL_TEAM_CREATING;
	urom_list_init(&team->ops);
	for (uint32_t i = 0; i < cmd->size; i++)
		team->members[i] =
			cmd->members == UROM_COLL_MEMBERS_LIST ? cmd->member_ids[i] : cmd->start + i * cmd->stride;
	team->members_hash = members_hash(team->members, team->size);
	urom_list_add_tail(&ctx->teams, &team->link);
	team->counted = 1;
	ctx->nteams++;

	if (refusal == 0) {
		team->host = coll_host_get(ctx, reply->dest_id, &fail);
		if (team->host == NULL)
			refusal = fail.reason;
	}
	reason = check_own_address(ctx, team->members[team->rank]);
	if (reason != 0) {
		creation_failed(team, reason, team->rank);
		return;
	}
	team->refusal = refusal;
	reason = exchange_hellos(team, &detail);
	if (reason != 0) {
		creation_failed(team, refusal != 0 ? refusal : reason, refusal != 0 ? 0 : detail);
		return;
	}
	if (refusal != 0) {
		UROM_LOG_WARN("team %u refused (reason %u): the other members are told", team->id, refusal);
		coll_fail_set(&fail, coll_reason_status(refusal), refusal, 0);
		team_answer(team, &fail);
		team->state = COLL_TEAM_REFUSING;
		team->counted = 0;
		ctx->nteams--;
		if (team->hello_sends == 0)
			coll_team_free(team);
		return;
	}
	team->create_deadline = coll_now_ns() + (int64_t)team->timeout_ms * 1000000;
	if (team->size == 1) {
		team->state = COLL_TEAM_READY;
		team_answer(team, NULL);
	}
}

/* A HELLO message completed (sent, or received and to be checked). */
void coll_team_hello_done(struct coll_team *team, struct coll_msg *msg)
{
	struct urom_coll_hello hello;
	struct coll_fail fail;
	uint32_t peer = msg->peer;

	if (msg->role == COLL_MSG_HELLO_SEND) {
		int failed = coll_msg_failed(msg, &fail);

		team->hello_sends--;
		coll_msg_free(msg);
		if (failed && team->state == COLL_TEAM_CREATING)
			creation_failed(team, fail.reason, fail.detail);
		else if (team->state == COLL_TEAM_REFUSING && team->hello_sends == 0)
			coll_team_free(team);
		return;
	}
	if (coll_msg_failed(msg, &fail)) {
		coll_msg_free(msg);
		if (team->state == COLL_TEAM_CREATING)
			creation_failed(team, fail.reason, fail.detail);
		return;
	}
	memcpy(&hello, msg->buf, sizeof(hello));
	coll_msg_free(msg);
	if (team->state != COLL_TEAM_CREATING)
		return;
	if (hello.refused != 0) {
		creation_failed(team, UROM_COLL_R_PEER_REFUSED, peer);
		return;
	}
	if (hello.version != UROM_COLL_PROTOCOL_VERSION || hello.reserved != 0 || hello.team_id != team->id ||
	    hello.size != team->size || hello.rank != peer || hello.members_hash != team->members_hash) {
		creation_failed(team, UROM_COLL_R_BAD_MEMBERS, peer);
		return;
	}
	if (hello.chunk_bytes != team->chunk_bytes || hello.small_bytes != team->small_bytes ||
	    hello.timeout_ms != team->timeout_ms) {
		creation_failed(team, UROM_COLL_R_KNOBS, peer);
		return;
	}
	if (++team->hellos == team->size - 1) {
		team->state = COLL_TEAM_READY;
		team_answer(team, NULL);
	}
}

/* Failures the endpoints reported, the creation's time limit, a host gone, then the collectives. */
void coll_team_progress(struct coll_team *team, int64_t now)
{
	struct coll_fail fail;

	switch (team->state) {
	case COLL_TEAM_CREATING:
		if (team->peer_failed != 0)
			creation_failed(team, UROM_COLL_R_PEER_FAILED, team->peer_failed - 1);
		else if (now > team->create_deadline)
			creation_failed(team, UROM_COLL_R_TIMEOUT, 0);
		return;
	case COLL_TEAM_READY:
		if (team->peer_failed != 0) {
			coll_fail_set(&fail, UROM_ERR_CONNECTION_ABORTED, UROM_COLL_R_PEER_FAILED,
				      team->peer_failed - 1);
			coll_team_fail(team, &fail, team->peer_failed - 1);
			return;
		}
		if (!urom_list_is_empty(&team->ops) && now >= team->next_host_check) {
			team->next_host_check = now + COLL_HOST_CHECK_NS;
			if (coll_host_gone(team->host)) {
				coll_fail_set(&fail, UROM_ERR_SHUTDOWN, UROM_COLL_R_HOST_GONE, 0);
				coll_team_fail(team, &fail, team->rank);
				return;
			}
		}
		coll_op_progress(team, now);
		return;
	default:
		return;
	}
}

void coll_team_destroy_cmd(struct coll_ctx *ctx, const struct coll_reply *reply, uint32_t team_id)
{
	struct coll_team *team = coll_team_find(ctx, team_id);
	struct urom_coll_notif_team_destroy body;
	struct coll_fail fail;

	memset(&body, 0, sizeof(body));
	body.team_id = team_id;
	if (team == NULL || team->dest_id != reply->dest_id) {
		coll_fail_set(&fail, UROM_ERR_NOT_FOUND, UROM_COLL_R_TEAM_UNKNOWN, 0);
		coll_notify(ctx, reply, &fail, (uint8_t *)&body + sizeof(body.hdr), sizeof(body) - sizeof(body.hdr));
		return;
	}
	if (team->state == COLL_TEAM_CREATING) {
		coll_fail_set(&fail, UROM_ERR_SHUTDOWN, UROM_COLL_R_TEAM_DESTROYED, 0);
		team_answer(team, &fail);
	}
	coll_team_free(team);
	coll_notify(ctx, reply, NULL, (uint8_t *)&body + sizeof(body.hdr), sizeof(body) - sizeof(body.hdr));
}
