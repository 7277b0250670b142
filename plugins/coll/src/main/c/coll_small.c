/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The latency-optimal algorithms (n at or below small_bytes): recursive doubling ALLREDUCE, binomial
 * REDUCE and BCAST, Bruck's ALLGATHER, exactly as docs/collectives.md orders them. The vectors live
 * in worker memory (acc, tmp: n bytes; Bruck's W: p·n); each stage posts its sends and receives (a
 * piece as ⌈L/C⌉ messages) and the next stage starts once all of them completed, so a stage's
 * reduction sees whole vectors. Stages are counted in op->stage; nothing recurses.
 */
#include <stdlib.h>
#include <string.h>

#include <urom_log.h>

#include "coll.h"
#include "coll_op.h"
#include "coll_reduce.h"

UROM_LOG_SOURCE(UROM::WORKER::COLL);

/* op->stage once the op has written its result: nothing left to do. */
#define STAGE_DONE 0xffffffffu

static uint32_t rel_to_rank(const struct coll_op *op, uint64_t v)
{
	return (uint32_t)((v + op->args.root) % op->team->size);
}

static int host_failed(struct coll_op *op, uint32_t reason)
{
	return coll_op_abort(op, coll_reason_status(reason), reason, 0);
}

/* Sends len bytes at data to peer under step, as pieces go: ⌈len/C⌉ messages. */
static int small_send(struct coll_op *op, uint32_t peer, uint32_t step, const uint8_t *data, uint64_t len)
{
	struct coll_team *team = op->team;

	for (uint64_t off = 0; off < len; off += op->chunk) {
		uint64_t part = len - off < op->chunk ? len - off : op->chunk;
		struct coll_fail fail;
		struct coll_msg *msg = coll_msg_send(team->ctx, team->peers[peer]->ep,
						     coll_op_data_tag(op, step, team->rank), data + off, part, &fail);

		if (msg == NULL)
			return coll_op_abort(op, fail.status, fail.reason, fail.detail);
		msg->op = op;
		msg->role = COLL_MSG_DATA_SEND;
		msg->peer = peer;
		op->pending++;
	}
	return 0;
}

/* Posts the receives of a piece of len bytes from peer under step, landing at into. */
static int small_recv(struct coll_op *op, uint32_t peer, uint32_t step, uint8_t *into, uint64_t len)
{
	struct coll_team *team = op->team;
	uint32_t chunk = 0;

	op->recv_into = into;
	for (uint64_t off = 0; off < len; off += op->chunk, chunk++) {
		uint64_t part = len - off < op->chunk ? len - off : op->chunk;
		struct coll_fail fail;
		struct coll_msg *msg = coll_msg_recv(team->ctx, coll_op_data_tag(op, step, peer), part, &fail);

		if (msg == NULL)
			return coll_op_abort(op, fail.status, fail.reason, fail.detail);
		msg->op = op;
		msg->role = COLL_MSG_DATA_RECV;
		msg->peer = peer;
		msg->chunk = chunk;
		op->pending++;
	}
	return 0;
}

int coll_small_msg(struct coll_op *op, struct coll_msg *msg)
{
	if (msg->role == COLL_MSG_DATA_RECV)
		memcpy(op->recv_into + (uint64_t)msg->chunk * op->chunk, msg->buf, msg->length);
	coll_msg_free(msg);
	return 0;
}

static int reduce_into_acc(struct coll_op *op, int received_left)
{
	const uint8_t *left = received_left ? op->tmp : op->acc;
	const uint8_t *right = received_left ? op->acc : op->tmp;

	coll_reduce(op->args.dtype, op->args.op, op->acc, left, right, (size_t)op->args.count);
	return 0;
}

/* acc (and tmp) of n bytes, acc read from the host at address. */
static int load_acc(struct coll_op *op, uint64_t address, int read)
{
	uint64_t n = op->nbytes;
	uint32_t reason;

	op->acc = malloc(n == 0 ? 1 : n);
	op->tmp = malloc(n == 0 ? 1 : n);
	if (op->acc == NULL || op->tmp == NULL)
		return coll_op_abort(op, UROM_ERR_NO_MEMORY, UROM_COLL_R_NO_MEMORY, 0);
	if (read && n > 0) {
		reason = coll_host_read(op->team->host, address, op->acc, n);
		if (reason != 0)
			return host_failed(op, reason);
	}
	return 0;
}

static uint64_t source_of(const struct coll_op *op)
{
	return (op->args.flags & UROM_COLL_IN_PLACE) ? op->args.dst : op->args.src;
}

static int write_acc(struct coll_op *op)
{
	uint32_t reason = coll_host_write(op->team->host, op->args.dst, op->acc, op->nbytes);

	op->stage = STAGE_DONE;
	return reason == 0 ? 0 : host_failed(op, reason);
}

/* ---- ALLREDUCE: recursive doubling with the fold ---- */

static int allreduce_stage(struct coll_op *op)
{
	uint32_t p = op->team->size, r = op->team->rank, q = 1, levels = 0;
	uint32_t s = op->stage;

	while ((uint64_t)q * 2 <= p) {
		q *= 2;
		levels++;
	}
	if (s == 0) {
		if (load_acc(op, source_of(op), 1) != 0)
			return -1;
	} else if (s == 1) {
		if (r < p - q)
			reduce_into_acc(op, 0);
	} else if (s <= levels + 1) {
		if (r < q)
			reduce_into_acc(op, (r ^ (1u << (s - 2))) < r);
	}
	op->stage = s + 1;
	if (s == 0) {
		if (r >= q)
			return small_send(op, r - q, 0, op->acc, op->nbytes);
		if (r < p - q)
			return small_recv(op, r + q, 0, op->tmp, op->nbytes);
		return 0;
	}
	if (s <= levels) {
		if (r < q) {
			uint32_t partner = r ^ (1u << (s - 1));

			if (small_send(op, partner, s, op->acc, op->nbytes) != 0)
				return -1;
			return small_recv(op, partner, s, op->tmp, op->nbytes);
		}
		return 0;
	}
	if (s == levels + 1) {
		if (r < p - q)
			return small_send(op, r + q, levels + 1, op->acc, op->nbytes);
		if (r >= q)
			return small_recv(op, r - q, levels + 1, op->acc, op->nbytes);
		return 0;
	}
	return write_acc(op);
}

/* ---- REDUCE: binomial tree on the relative rank ---- */

/* stage: 2k while at bit k, 2k + 1 while receiving at bit k; STAGE_DONE - 1: sent, done when it completes. */
static int reduce_stage(struct coll_op *op)
{
	uint32_t p = op->team->size;
	uint64_t v = ((uint64_t)op->team->rank + p - op->args.root) % p;
	int in_place = (op->args.flags & UROM_COLL_IN_PLACE) != 0;

	if (op->stage == STAGE_DONE - 1) {
		op->stage = STAGE_DONE;
		return 0;
	}
	if (op->acc == NULL && load_acc(op, in_place ? op->args.dst : op->args.src, 1) != 0)
		return -1;
	if (op->stage & 1u) {
		reduce_into_acc(op, 0);
		op->stage++;
	}
	for (uint32_t k = op->stage / 2; k < 32 && (1ull << k) < p; k++) {
		uint64_t bit = 1ull << k;

		op->stage = 2 * k;
		if (v & bit) {
			op->stage = STAGE_DONE - 1;
			return small_send(op, rel_to_rank(op, v - bit), k, op->acc, op->nbytes);
		}
		if (v + bit < p) {
			op->stage = 2 * k + 1;
			return small_recv(op, rel_to_rank(op, v + bit), k, op->tmp, op->nbytes);
		}
	}
	return write_acc(op);
}

/* ---- BCAST: binomial tree on the relative rank ---- */

static int bcast_stage(struct coll_op *op)
{
	uint32_t p = op->team->size;
	uint64_t v = ((uint64_t)op->team->rank + p - op->args.root) % p;

	if (op->stage == 0) {
		op->stage = 1;
		if (load_acc(op, op->args.dst, v == 0) != 0)
			return -1;
		if (v > 0)
			return small_recv(op, rel_to_rank(op, v & (v - 1)), 0, op->acc, op->nbytes);
		return 0;
	}
	if (op->stage == 1) {
		op->stage = 2;
		if (v > 0) {
			uint32_t reason = coll_host_write(op->team->host, op->args.dst, op->acc, op->nbytes);

			if (reason != 0)
				return host_failed(op, reason);
		}
		for (uint32_t k = 0; k < 32 && (1ull << k) < p; k++) {
			uint64_t bit = 1ull << k;

			if (v != 0 && (v & bit))
				break;
			if (v + bit < p && small_send(op, rel_to_rank(op, v + bit), 0, op->acc, op->nbytes) != 0)
				return -1;
		}
		return 0;
	}
	op->stage = STAGE_DONE;
	return 0;
}

/* ---- ALLGATHER: Bruck ---- */

static int allgather_stage(struct coll_op *op)
{
	uint32_t p = op->team->size, r = op->team->rank;
	uint64_t n = op->nbytes;
	uint32_t k = op->stage;
	int in_place = (op->args.flags & UROM_COLL_IN_PLACE) != 0;

	if (k == 0) {
		uint32_t reason;

		op->acc = malloc(n * p == 0 ? 1 : n * p);
		if (op->acc == NULL)
			return coll_op_abort(op, UROM_ERR_NO_MEMORY, UROM_COLL_R_NO_MEMORY, 0);
		reason = n == 0 ? 0
				: coll_host_read(op->team->host, in_place ? op->args.dst + r * n : op->args.src,
						 op->acc, n);
		if (reason != 0)
			return host_failed(op, reason);
	}
	if (k < 32 && (1ull << k) < p) {
		uint32_t d = 1u << k;
		uint32_t c = d < p - d ? d : p - d;

		op->stage = k + 1;
		if (small_send(op, (r + p - d) % p, k, op->acc, (uint64_t)c * n) != 0)
			return -1;
		return small_recv(op, (r + d) % p, k, op->acc + (uint64_t)d * n, (uint64_t)c * n);
	}
	for (uint32_t i = in_place ? 1 : 0; i < p && n > 0; i++) {
		uint32_t reason = coll_host_write(op->team->host, op->args.dst + ((uint64_t)(r + i) % p) * n,
						  op->acc + (uint64_t)i * n, n);

		if (reason != 0)
			return host_failed(op, reason);
	}
	op->stage = STAGE_DONE;
	return 0;
}

int coll_small_start(struct coll_op *op)
{
	op->stage = 0;
	return coll_small_advance(op);
}

int coll_small_advance(struct coll_op *op)
{
	while (op->pending == 0 && op->stage != STAGE_DONE) {
		int result;

		switch (op->args.coll) {
		case UROM_COLL_ALLREDUCE:
			result = allreduce_stage(op);
			break;
		case UROM_COLL_REDUCE:
			result = reduce_stage(op);
			break;
		case UROM_COLL_BCAST:
			result = bcast_stage(op);
			break;
		default:
			result = allgather_stage(op);
			break;
		}
		if (result != 0)
			return -1;
	}
	return 0;
}

int coll_small_done(const struct coll_op *op)
{
	return op->pending == 0 && op->stage == STAGE_DONE;
}
