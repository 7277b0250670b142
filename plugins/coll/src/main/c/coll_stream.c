/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The pipelined algorithms: a plan of pieces (struct coll_piece) moved chunk by chunk between the
 * host's memory and the network. A send piece either reads its chunks from the host (at most
 * COLL_WINDOW of those in flight per peer) or is fed by a receive piece: each chunk received is, in
 * chunk order, reduced with the host's own operand (op(received, own)), written to the host, and sent
 * on from the same buffer at once, so reading, the network and the reduction overlap.
 *
 * Receives are posted per peer in plan order, at most COLL_WINDOW at a time, never held back by
 * sends; chunks sent on never hold back the host's reads. Either would let a ring wait on itself: a
 * chunk sent on completes only once the next rank posts its receive, which may wait for that read.
 *
 * Plans: ALLREDUCE (ring reduce-scatter + allgather), REDUCE (reduce-scatter + gather at the root),
 * BCAST (chain), ALLGATHER (ring), ALLTOALL (pairwise, every step at once). Errors end the op through
 * coll_op_abort; nothing here blocks but the host's own memory copies.
 */
#include <stdlib.h>
#include <string.h>

#include <urom_log.h>

#include "coll.h"
#include "coll_op.h"
#include "coll_reduce.h"

UROM_LOG_SOURCE(UROM::WORKER::COLL);

/* ---- blocks of a vector ---- */

static uint64_t block_elems(const struct coll_op *op, uint32_t b)
{
	uint32_t p = op->team->size;

	return op->args.count / p + (b < op->args.count % p ? 1 : 0);
}

static uint64_t block_off(const struct coll_op *op, uint32_t b)
{
	uint32_t p = op->team->size;
	uint64_t rest = op->args.count % p;

	return (b * (op->args.count / p) + (b < rest ? b : rest)) * op->esize;
}

static uint32_t mod(const struct coll_op *op, int64_t x)
{
	int64_t p = op->team->size;

	return (uint32_t)(((x % p) + p) % p);
}

/* ---- plans ---- */

static int add_piece(struct coll_op *op, int send, uint32_t peer, uint32_t step, uint64_t len, uint8_t flags,
		     uint64_t host, uint64_t own)
{
	struct coll_piece *piece = &op->pieces[op->npieces];

	memset(piece, 0, sizeof(*piece));
	piece->send = (uint8_t)send;
	piece->flags = flags;
	piece->fwd = -1;
	piece->gate = -1;
	piece->peer = peer;
	piece->step = step;
	piece->len = len;
	piece->host = host;
	piece->own = own;
	piece->nchunks = (uint32_t)((len + op->chunk - 1) / op->chunk);
	return (int)op->npieces++;
}

static uint64_t source_of(const struct coll_op *op)
{
	return (op->args.flags & UROM_COLL_IN_PLACE) ? op->args.dst : op->args.src;
}

/*
 * The ring reduce-scatter: S[s] (sends, index first + s) and R[s] (receives, first + p - 1 + s),
 * s = 0..p-2; R[s] feeds S[s + 1]. Returns the index of R[p - 2], whose block is (r + 1) mod p.
 */
static int plan_reduce_scatter(struct coll_op *op)
{
	uint32_t p = op->team->size, r = op->team->rank;
	uint32_t next = mod(op, (int64_t)r + 1), prev = mod(op, (int64_t)r - 1);
	uint64_t src = source_of(op);
	int first = (int)op->npieces;

	for (uint32_t s = 0; s + 1 < p; s++) {
		uint32_t b = mod(op, (int64_t)r - s);

		add_piece(op, 1, next, s, block_elems(op, b) * op->esize, s == 0 ? COLL_PIECE_HOST : 0,
			  src + block_off(op, b), 0);
	}
	for (uint32_t s = 0; s + 1 < p; s++) {
		uint32_t b = mod(op, (int64_t)r - s - 1);
		int i = add_piece(op, 0, prev, s, block_elems(op, b) * op->esize, COLL_PIECE_REDUCE,
				  op->args.dst + block_off(op, b), src + block_off(op, b));

		if (s + 2 < p)
			op->pieces[i].fwd = first + (int)s + 1;
	}
	return first + 2 * (int)(p - 1) - 1;
}

/* The ring allgather of blocks: A[s] sends (tag step base + s), G[s] receives and writes; `feed' feeds A[0]. */
static void plan_ring_gather(struct coll_op *op, uint32_t base, int feed, int64_t first_block, uint64_t block_bytes,
			     int by_blocks)
{
	uint32_t p = op->team->size, r = op->team->rank;
	uint32_t next = mod(op, (int64_t)r + 1), prev = mod(op, (int64_t)r - 1);
	int sends = (int)op->npieces;

	for (uint32_t s = 0; s + 1 < p; s++) {
		uint32_t b = mod(op, first_block - s);
		uint64_t len = by_blocks ? block_elems(op, b) * op->esize : block_bytes;
		uint64_t off = by_blocks ? block_off(op, b) : b * block_bytes;
		int i = add_piece(op, 1, next, base + s, len, feed < 0 && s == 0 ? COLL_PIECE_HOST : 0,
				  feed < 0 && s == 0
					  ? (op->args.flags & UROM_COLL_IN_PLACE ? op->args.dst + off : op->args.src)
					  : 0,
				  0);

		if (s == 0 && feed >= 0)
			op->pieces[feed].fwd = i;
	}
	for (uint32_t s = 0; s + 1 < p; s++) {
		uint32_t b = mod(op, first_block - s - 1);
		uint64_t len = by_blocks ? block_elems(op, b) * op->esize : block_bytes;
		uint64_t off = by_blocks ? block_off(op, b) : b * block_bytes;
		int i = add_piece(op, 0, prev, base + s, len, COLL_PIECE_WRITE, op->args.dst + off, 0);

		if (s + 2 < p)
			op->pieces[i].fwd = sends + (int)s + 1;
	}
}

static void plan_allreduce(struct coll_op *op)
{
	uint32_t p = op->team->size;
	int last = plan_reduce_scatter(op);

	op->pieces[last].flags |= COLL_PIECE_WRITE;
	plan_ring_gather(op, p - 1, last, (int64_t)op->team->rank + 1, 0, 1);
}

static void plan_reduce(struct coll_op *op)
{
	uint32_t p = op->team->size, r = op->team->rank, root = op->args.root;
	int last = plan_reduce_scatter(op);

	if (r == root) {
		op->pieces[last].flags |= COLL_PIECE_WRITE;
		for (uint32_t q = 0; q < p; q++) {
			uint32_t b = mod(op, (int64_t)q + 1);

			if (q != root)
				add_piece(op, 0, q, p - 1, block_elems(op, b) * op->esize, COLL_PIECE_WRITE,
					  op->args.dst + block_off(op, b), 0);
		}
	} else {
		uint32_t b = mod(op, (int64_t)r + 1);

		op->pieces[last].fwd = add_piece(op, 1, root, p - 1, block_elems(op, b) * op->esize, 0, 0, 0);
	}
}

static void plan_bcast(struct coll_op *op)
{
	uint32_t p = op->team->size, root = op->args.root;
	uint32_t v = mod(op, (int64_t)op->team->rank - root);

	if (v == 0) {
		add_piece(op, 1, mod(op, (int64_t)root + 1), 0, op->nbytes, COLL_PIECE_HOST, op->args.dst, 0);
		return;
	}
	int i = add_piece(op, 0, mod(op, (int64_t)root + v - 1), 0, op->nbytes, COLL_PIECE_WRITE, op->args.dst, 0);

	if (v + 1 < p)
		op->pieces[i].fwd = add_piece(op, 1, mod(op, (int64_t)root + v + 1), 0, op->nbytes, 0, 0, 0);
}

static void plan_alltoall(struct coll_op *op)
{
	uint32_t p = op->team->size, r = op->team->rank;
	uint64_t n = op->nbytes;
	uint64_t src = source_of(op);
	int in_place = (op->args.flags & UROM_COLL_IN_PLACE) != 0;

	for (uint32_t s = 1; s < p; s++) {
		uint32_t to = mod(op, (int64_t)r + s);

		add_piece(op, 1, to, s, n, COLL_PIECE_HOST, src + to * n, 0);
	}
	for (uint32_t s = 1; s < p; s++) {
		uint32_t from = mod(op, (int64_t)r - s);
		int i = add_piece(op, 0, from, s, n, COLL_PIECE_WRITE, op->args.dst + from * n, 0);

		if (in_place)
			op->pieces[i].gate = (int)(p - s - 1);
	}
}

/* Copies len bytes of the host from src to dst through the scratch chunk. */
static uint32_t host_copy(struct coll_op *op, uint64_t src, uint64_t dst, uint64_t len)
{
	for (uint64_t off = 0; off < len; off += op->chunk) {
		uint64_t part = len - off < op->chunk ? len - off : op->chunk;
		uint32_t reason = coll_host_read(op->team->host, src + off, op->scratch, part);

		if (reason == 0)
			reason = coll_host_write(op->team->host, dst + off, op->scratch, part);
		if (reason != 0)
			return reason;
	}
	return 0;
}

int coll_stream_start(struct coll_op *op)
{
	uint32_t p = op->team->size, r = op->team->rank;
	int in_place = (op->args.flags & UROM_COLL_IN_PLACE) != 0;
	uint64_t n = op->nbytes;
	uint32_t reason = 0;

	op->pieces = calloc(4 * (size_t)p, sizeof(*op->pieces));
	op->send_inflight = calloc(p, sizeof(uint16_t));
	op->recv_posted = calloc(p, sizeof(uint16_t));
	op->blocked = calloc(p, 1);
	op->scratch = malloc(op->chunk);
	if (op->pieces == NULL || op->send_inflight == NULL || op->recv_posted == NULL || op->blocked == NULL ||
	    op->scratch == NULL)
		return coll_op_abort(op, UROM_ERR_NO_MEMORY, UROM_COLL_R_NO_MEMORY, 0);
	switch (op->args.coll) {
	case UROM_COLL_ALLREDUCE:
		if (p > 1)
			plan_allreduce(op);
		else if (!in_place)
			reason = host_copy(op, op->args.src, op->args.dst, n);
		break;
	case UROM_COLL_REDUCE:
		if (p > 1)
			plan_reduce(op);
		else if (!in_place)
			reason = host_copy(op, op->args.src, op->args.dst, n);
		break;
	case UROM_COLL_BCAST:
		if (p > 1)
			plan_bcast(op);
		break;
	case UROM_COLL_ALLGATHER:
		if (p > 1)
			plan_ring_gather(op, 0, -1, r, n, 0);
		if (!in_place)
			reason = host_copy(op, op->args.src, op->args.dst + r * n, n);
		break;
	default:
		plan_alltoall(op);
		if (!in_place)
			reason = host_copy(op, op->args.src + r * n, op->args.dst + r * n, n);
		break;
	}
	if (reason != 0)
		return coll_op_abort(op, coll_reason_status(reason), reason, 0);
	return coll_stream_advance(op);
}

void coll_stream_free(struct coll_op *op)
{
	free(op->pieces);
	free(op->send_inflight);
	free(op->recv_posted);
	free(op->blocked);
	free(op->scratch);
	op->pieces = NULL;
}

/* ---- chunks ---- */

static uint64_t chunk_len(const struct coll_op *op, const struct coll_piece *piece, uint32_t c)
{
	uint64_t off = (uint64_t)c * op->chunk;

	return piece->len - off < op->chunk ? piece->len - off : op->chunk;
}

static int send_chunk(struct coll_op *op, int index, uint8_t *buf, uint64_t len)
{
	struct coll_piece *piece = &op->pieces[index];
	struct coll_team *team = op->team;
	struct coll_fail fail;
	struct coll_msg *msg = coll_msg_send_owned(team->ctx, team->peers[piece->peer]->ep,
						   coll_op_data_tag(op, piece->step, team->rank), buf, len, &fail);

	if (msg == NULL)
		return coll_op_abort(op, fail.status, fail.reason, fail.detail);
	msg->op = op;
	msg->role = COLL_MSG_DATA_SEND;
	msg->peer = piece->peer;
	msg->piece = (uint32_t)index;
	msg->chunk = piece->next++;
	if (piece->flags & COLL_PIECE_HOST)
		op->send_inflight[piece->peer]++;
	op->pending++;
	return 0;
}

static int post_chunk(struct coll_op *op, int index)
{
	struct coll_piece *piece = &op->pieces[index];
	struct coll_team *team = op->team;
	struct coll_fail fail;
	struct coll_msg *msg = coll_msg_recv(team->ctx, coll_op_data_tag(op, piece->step, piece->peer),
					     chunk_len(op, piece, piece->next), &fail);

	if (msg == NULL)
		return coll_op_abort(op, fail.status, fail.reason, fail.detail);
	msg->op = op;
	msg->role = COLL_MSG_DATA_RECV;
	msg->peer = piece->peer;
	msg->piece = (uint32_t)index;
	msg->chunk = piece->next++;
	op->recv_posted[piece->peer]++;
	op->pending++;
	return 0;
}

int coll_stream_advance(struct coll_op *op)
{
	if (op->npieces > 0)
		memset(op->blocked, 0, op->team->size);
	for (uint32_t i = 0; i < op->npieces; i++) {
		struct coll_piece *piece = &op->pieces[i];

		if (piece->send) {
			while ((piece->flags & COLL_PIECE_HOST) && piece->next < piece->nchunks &&
			       op->send_inflight[piece->peer] < COLL_WINDOW) {
				uint64_t len = chunk_len(op, piece, piece->next);
				uint8_t *buf = malloc(len);
				uint32_t reason;

				if (buf == NULL)
					return coll_op_abort(op, UROM_ERR_NO_MEMORY, UROM_COLL_R_NO_MEMORY, 0);
				reason = coll_host_read(op->team->host, piece->host + (uint64_t)piece->next * op->chunk,
							buf, len);
				if (reason != 0) {
					free(buf);
					return coll_op_abort(op, coll_reason_status(reason), reason, 0);
				}
				if (send_chunk(op, (int)i, buf, len) != 0)
					return -1;
			}
			continue;
		}
		if (op->blocked[piece->peer])
			continue;
		while (piece->next < piece->nchunks && op->recv_posted[piece->peer] < COLL_WINDOW &&
		       (piece->gate < 0 || op->pieces[piece->gate].next > piece->next))
			if (post_chunk(op, (int)i) != 0)
				return -1;
		if (piece->next < piece->nchunks)
			op->blocked[piece->peer] = 1;
	}
	return 0;
}

/* A received chunk, its turn come: reduce, write, send on. */
static int process_chunk(struct coll_op *op, struct coll_msg *msg)
{
	struct coll_piece *piece = &op->pieces[msg->piece];
	uint64_t off = (uint64_t)msg->chunk * op->chunk;
	uint64_t len = msg->length;
	uint32_t reason;

	if (piece->flags & COLL_PIECE_REDUCE) {
		reason = coll_host_read(op->team->host, piece->own + off, op->scratch, len);
		if (reason != 0)
			return coll_op_abort(op, coll_reason_status(reason), reason, 0);
		coll_reduce(op->args.dtype, op->args.op, msg->buf, msg->buf, op->scratch, len / op->esize);
	}
	if (piece->flags & COLL_PIECE_WRITE) {
		reason = coll_host_write(op->team->host, piece->host + off, msg->buf, len);
		if (reason != 0)
			return coll_op_abort(op, coll_reason_status(reason), reason, 0);
	}
	piece->handled++;
	if (piece->fwd >= 0) {
		uint8_t *buf = msg->buf;

		msg->buf = NULL;
		coll_msg_free(msg);
		return send_chunk(op, piece->fwd, buf, len);
	}
	coll_msg_free(msg);
	return 0;
}

int coll_stream_msg(struct coll_op *op, struct coll_msg *msg)
{
	if (msg->role == COLL_MSG_DATA_SEND) {
		op->pieces[msg->piece].handled++;
		if (op->pieces[msg->piece].flags & COLL_PIECE_HOST)
			op->send_inflight[msg->peer]--;
		coll_msg_free(msg);
		return coll_stream_advance(op);
	}
	op->recv_posted[msg->peer]--;
	urom_list_del(&msg->link);
	urom_list_add_tail(&op->deferred, &msg->link);
	for (int found = 1; found;) {
		found = 0;
		for (urom_list_link_t *it = op->deferred.next; it != &op->deferred; it = it->next) {
			struct coll_msg *ready = UROM_LIST_ENTRY(it, struct coll_msg, link);

			if (ready->chunk == op->pieces[ready->piece].handled) {
				if (process_chunk(op, ready) != 0)
					return -1;
				found = 1;
				break;
			}
		}
	}
	return coll_stream_advance(op);
}

int coll_stream_done(const struct coll_op *op)
{
	if (op->pending != 0)
		return 0;
	for (uint32_t i = 0; i < op->npieces; i++)
		if (op->pieces[i].handled < op->pieces[i].nchunks)
			return 0;
	return 1;
}
