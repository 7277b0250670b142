/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A collective's life: POST (sequence number, argument checks), the team's queue (one runs at a
 * time, in sequence order), the agreement (dissemination of struct urom_coll_agree), the data phase
 * (coll_small.c or coll_stream.c), the time limit, and the answer. Every op ends in coll_op_finish,
 * which answers the host once and frees it; its messages still in flight are orphaned.
 */
#include <stdlib.h>
#include <string.h>

#include <urom_log.h>

#include "coll.h"
#include "coll_op.h"
#include "coll_reduce.h"

UROM_LOG_SOURCE(UROM::WORKER::COLL);

uint64_t coll_op_data_tag(const struct coll_op *op, uint32_t step, uint32_t sender)
{
	return urom_coll_tag(UROM_COLL_MSG_DATA, op->team->id, op->sequence, step, sender);
}

void coll_op_finish(struct coll_op *op, const struct coll_fail *fail)
{
	struct coll_team *team = op->team;
	struct coll_ctx *ctx = team->ctx;

	coll_notify_post(ctx, &op->reply, fail, team->id, op->sequence);
	coll_msg_orphan(ctx, NULL, op);
	while (!urom_list_is_empty(&op->deferred))
		coll_msg_free(UROM_LIST_ENTRY(op->deferred.next, struct coll_msg, link));
	urom_list_del(&op->link);
	team->posted--;
	coll_stream_free(op);
	free(op->acc);
	free(op->tmp);
	free(op);
}

int coll_op_abort(struct coll_op *op, urom_status_t status, uint32_t reason, uint32_t detail)
{
	struct coll_team *team = op->team;
	/* out of step with the other ranks: the team cannot go on */
	int breaks_team = op->state == COLL_OP_DATA || reason == UROM_COLL_R_TIMEOUT || reason == UROM_COLL_R_HOST_GONE;
	struct coll_fail fail;

	coll_fail_set(&fail, status, reason, detail);
	coll_op_finish(op, &fail);
	if (breaks_team)
		coll_team_fail(team, &fail, team->rank);
	return -1;
}

/* ---- POST ---- */

static int is_rooted(uint16_t coll)
{
	return coll == UROM_COLL_BCAST || coll == UROM_COLL_REDUCE;
}

static int is_reduction(uint16_t coll)
{
	return coll == UROM_COLL_REDUCE || coll == UROM_COLL_ALLREDUCE;
}

/* The argument checks of docs/collectives.md, in its order; 0 or the reason this rank refuses. */
static uint32_t check_args(struct coll_op *op)
{
	const struct urom_coll_cmd_post *a = &op->args;
	struct coll_team *team = op->team;
	uint64_t p = team->size;
	uint64_t n, total;
	int in_place = (a->flags & UROM_COLL_IN_PLACE) != 0;
	struct coll_range ranges[3];
	int nranges = 0;

	if (a->coll >= UROM_COLL_TYPE_COUNT)
		return UROM_COLL_R_UNKNOWN_COLL;
	if (a->coll == UROM_COLL_BARRIER) {
		if (a->flags != 0)
			return UROM_COLL_R_BAD_FLAGS;
		return 0;
	}
	op->esize = coll_dtype_size(a->dtype);
	if (op->esize == 0)
		return UROM_COLL_R_UNKNOWN_DTYPE;
	if (is_reduction(a->coll)) {
		if (a->op >= UROM_COLL_OP_COUNT)
			return UROM_COLL_R_UNKNOWN_OP;
		if (!coll_op_valid(a->dtype, a->op))
			return UROM_COLL_R_OP_NOT_FOR_DTYPE;
	}
	if (is_rooted(a->coll) && a->root >= p)
		return UROM_COLL_R_BAD_ROOT;
	if ((a->flags & ~UROM_COLL_IN_PLACE) != 0)
		return UROM_COLL_R_BAD_FLAGS;
	if (in_place && (a->coll == UROM_COLL_BCAST || (a->coll == UROM_COLL_REDUCE && team->rank != a->root)))
		return UROM_COLL_R_BAD_FLAGS;
	if (a->count > (uint64_t)INT64_MAX / op->esize)
		return UROM_COLL_R_COUNT_OVERFLOW;
	n = a->count * op->esize;
	total = n;
	if (a->coll == UROM_COLL_ALLGATHER || a->coll == UROM_COLL_ALLTOALL) {
		if (n > (uint64_t)INT64_MAX / p)
			return UROM_COLL_R_COUNT_OVERFLOW;
		total = n * p;
	}
	op->nbytes = n;
	op->chunk = team->chunk_bytes - team->chunk_bytes % op->esize;
	if (n == 0)
		return 0;
	switch (a->coll) {
	case UROM_COLL_BCAST:
		ranges[nranges++] = (struct coll_range){
			a->dst, n, team->rank == a->root ? UROM_COLL_ACCESS_READ : UROM_COLL_ACCESS_WRITE, a->dst_memh};
		break;
	case UROM_COLL_REDUCE:
	case UROM_COLL_ALLREDUCE:
	case UROM_COLL_ALLTOALL:
		if (in_place) {
			ranges[nranges++] = (struct coll_range){
				a->dst, total, UROM_COLL_ACCESS_READ | UROM_COLL_ACCESS_WRITE, a->dst_memh};
			break;
		}
		ranges[nranges++] = (struct coll_range){a->src, total, UROM_COLL_ACCESS_READ, a->src_memh};
		if (a->coll != UROM_COLL_REDUCE || team->rank == a->root)
			ranges[nranges++] = (struct coll_range){a->dst, total, UROM_COLL_ACCESS_WRITE, a->dst_memh};
		break;
	default: /* ALLGATHER */
		if (in_place) {
			ranges[nranges++] =
				(struct coll_range){a->dst + team->rank * n, n, UROM_COLL_ACCESS_READ, a->dst_memh};
		} else {
			ranges[nranges++] = (struct coll_range){a->src, n, UROM_COLL_ACCESS_READ, a->src_memh};
		}
		ranges[nranges++] = (struct coll_range){a->dst, total, UROM_COLL_ACCESS_WRITE, a->dst_memh};
		break;
	}
	if (!in_place && nranges == 2) {
		uint64_t s0 = ranges[0].address, e0 = s0 + ranges[0].length;
		uint64_t s1 = ranges[1].address, e1 = s1 + ranges[1].length;

		if (e0 >= s0 && e1 >= s1 && s0 < e1 && s1 < e0)
			return UROM_COLL_R_OVERLAP;
	}
	return coll_host_check(team->ctx, team->host, ranges, nranges);
}

void coll_post(struct coll_ctx *ctx, const struct coll_reply *reply, const struct urom_coll_cmd_post *cmd)
{
	struct coll_team *team = coll_team_find(ctx, cmd->team_id);
	struct coll_fail fail;
	struct coll_op *op;

	if (team == NULL || team->dest_id != reply->dest_id || team->state == COLL_TEAM_CREATING) {
		coll_fail_set(&fail, UROM_ERR_NOT_FOUND, UROM_COLL_R_TEAM_UNKNOWN, 0);
		coll_notify_post(ctx, reply, &fail, cmd->team_id, 0);
		return;
	}
	if (team->state == COLL_TEAM_FAILED) {
		coll_notify_post(ctx, reply, &team->failure, cmd->team_id, 0);
		return;
	}
	if (team->posted >= UROM_COLL_INFLIGHT_MAX) {
		coll_fail_set(&fail, UROM_ERR_FULL, UROM_COLL_R_TOO_MANY, 0);
		coll_notify_post(ctx, reply, &fail, cmd->team_id, 0);
		return;
	}
	op = calloc(1, sizeof(*op));
	if (op == NULL) {
		coll_fail_set(&fail, UROM_ERR_NO_MEMORY, UROM_COLL_R_NO_MEMORY, 0);
		coll_notify_post(ctx, reply, &fail, cmd->team_id, 0);
		return;
	}
	op->team = team;
	op->reply = *reply;
	op->args = *cmd;
	op->esize = 1;
	op->sequence = team->next_sequence++;
	op->state = COLL_OP_QUEUED;
	urom_list_init(&op->deferred);
	op->refused = check_args(op);
	if (op->refused != 0)
		UROM_LOG_DBG("team %u sequence %llu: refused, reason %u", team->id, (unsigned long long)op->sequence,
			     op->refused);
	urom_list_add_tail(&team->ops, &op->link);
	team->posted++;
}

/* ---- agreement ---- */

static void agree_fields(const struct coll_op *op, uint64_t fields[5])
{
	const struct urom_coll_cmd_post *a = &op->args;

	memset(fields, 0, 5 * sizeof(uint64_t));
	fields[0] = a->coll;
	if (a->coll == UROM_COLL_BARRIER || a->coll >= UROM_COLL_TYPE_COUNT)
		return;
	fields[1] = a->dtype;
	fields[2] = is_reduction(a->coll) ? a->op : 0;
	fields[3] = is_rooted(a->coll) ? a->root : 0;
	fields[4] = a->count;
}

static int agree_post_round(struct coll_op *op)
{
	struct coll_team *team = op->team;
	uint32_t p = team->size, r = team->rank;
	uint32_t d = 1u << op->round;
	uint32_t to = (uint32_t)(((uint64_t)r + d) % p);
	uint32_t from = (uint32_t)(((uint64_t)r + p - d % p) % p);
	struct coll_fail fail;
	struct coll_msg *msg;

	msg = coll_msg_recv(team->ctx, urom_coll_tag(UROM_COLL_MSG_AGREE, team->id, op->sequence, op->round, from),
			    sizeof(struct urom_coll_agree), &fail);
	if (msg == NULL)
		return coll_op_abort(op, fail.status, fail.reason, fail.detail);
	msg->op = op;
	msg->role = COLL_MSG_AGREE_RECV;
	msg->peer = from;
	op->pending++;
	msg = coll_msg_send(team->ctx, team->peers[to]->ep,
			    urom_coll_tag(UROM_COLL_MSG_AGREE, team->id, op->sequence, op->round, r), &op->agree,
			    sizeof(op->agree), &fail);
	if (msg == NULL)
		return coll_op_abort(op, fail.status, fail.reason, fail.detail);
	msg->op = op;
	msg->role = COLL_MSG_AGREE_SEND;
	msg->peer = to;
	op->pending++;
	return 0;
}

static void agree_merge(struct urom_coll_agree *into, const struct urom_coll_agree *in)
{
	for (int i = 0; i < 5; i++) {
		if (in->min[i] < into->min[i])
			into->min[i] = in->min[i];
		if (in->max[i] > into->max[i])
			into->max[i] = in->max[i];
	}
	if (in->refused != 0 && (into->refused == 0 || in->refused < into->refused)) {
		into->refused = in->refused;
		into->refused_reason = in->refused_reason;
	}
}

static int data_start(struct coll_op *op)
{
	const struct urom_coll_cmd_post *a = &op->args;

	op->state = COLL_OP_DATA;
	if (a->coll == UROM_COLL_BARRIER) {
		coll_op_finish(op, NULL);
		return 1;
	}
	op->small = a->coll != UROM_COLL_ALLTOALL && op->nbytes <= op->team->small_bytes;
	return op->small ? coll_small_start(op) : coll_stream_start(op);
}

/* The agreement's verdict once every round is done; -1 when the op ended. */
static int agree_conclude(struct coll_op *op)
{
	const struct urom_coll_agree *st = &op->agree;

	if (st->refused != 0) {
		if (op->refused != 0)
			return coll_op_abort(op, coll_reason_status(op->refused), op->refused, 0);
		return coll_op_abort(op, UROM_ERR_INVALID_VALUE, UROM_COLL_R_PEER_REFUSED, st->refused - 1);
	}
	for (int i = 0; i < 5; i++)
		if (st->min[i] != st->max[i])
			return coll_op_abort(op, UROM_ERR_INVALID_VALUE, UROM_COLL_R_MISMATCH, (uint32_t)i + 1);
	return data_start(op);
}

static int agree_start(struct coll_op *op, int64_t now)
{
	uint64_t fields[5];
	uint32_t p = op->team->size;

	op->state = COLL_OP_AGREE;
	op->deadline = now + (int64_t)op->team->timeout_ms * 1000000;
	agree_fields(op, fields);
	memset(&op->agree, 0, sizeof(op->agree));
	memcpy(op->agree.min, fields, sizeof(fields));
	memcpy(op->agree.max, fields, sizeof(fields));
	if (op->refused != 0) {
		op->agree.refused = op->team->rank + 1;
		op->agree.refused_reason = op->refused;
	}
	op->rounds = 0;
	while ((1ull << op->rounds) < p)
		op->rounds++;
	op->round = 0;
	if (op->rounds == 0)
		return agree_conclude(op);
	return agree_post_round(op);
}

/* ---- messages and progress ---- */

void coll_op_msg_done(struct coll_op *op, struct coll_msg *msg)
{
	struct coll_fail fail;

	op->pending--;
	if (coll_msg_failed(msg, &fail)) {
		coll_msg_free(msg);
		if (op->team->peer_failed != 0)
			coll_op_abort(op, UROM_ERR_CONNECTION_ABORTED, UROM_COLL_R_PEER_FAILED,
				      op->team->peer_failed - 1);
		else
			coll_op_abort(op, fail.status, fail.reason, fail.detail);
		return;
	}
	switch (msg->role) {
	case COLL_MSG_AGREE_RECV: {
		struct urom_coll_agree in;

		memcpy(&in, msg->buf, sizeof(in));
		coll_msg_free(msg);
		agree_merge(&op->agree, &in);
		break;
	}
	case COLL_MSG_AGREE_SEND:
		coll_msg_free(msg);
		break;
	default:
		if (op->small)
			coll_small_msg(op, msg);
		else
			coll_stream_msg(op, msg);
		return;
	}
	if (op->pending == 0 && op->state == COLL_OP_AGREE) {
		if (++op->round < op->rounds)
			agree_post_round(op);
		else
			agree_conclude(op);
	}
}

int coll_op_progress(struct coll_team *team, int64_t now)
{
	for (int guard = 0; guard < 64 && !urom_list_is_empty(&team->ops); guard++) {
		struct coll_op *op = UROM_LIST_ENTRY(team->ops.next, struct coll_op, link);
		int done;

		if (op->state == COLL_OP_QUEUED) {
			if (agree_start(op, now) != 0)
				continue;
		}
		if (now > op->deadline) {
			coll_op_abort(op, UROM_ERR_TIME_OUT, UROM_COLL_R_TIMEOUT, 0);
			return 0;
		}
		if (op->state != COLL_OP_DATA)
			return 1;
		if ((op->small ? coll_small_advance(op) : coll_stream_advance(op)) != 0)
			continue;
		done = op->small ? coll_small_done(op) : coll_stream_done(op);
		if (!done)
			return 1;
		coll_op_finish(op, NULL);
	}
	return !urom_list_is_empty(&team->ops);
}
