/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One posted collective (struct coll_op) and its two data engines, shared by coll_op.c (queue,
 * agreement, end), coll_small.c (the latency-optimal algorithms, whole vectors in worker memory,
 * step by step) and coll_stream.c (the pipelined algorithms, chunks between the host's memory and
 * the network through a few staging chunks per peer). An op belongs to its team's queue; it owns
 * its buffers; its messages in flight are counted in `pending' and orphaned if it ends first.
 */
#ifndef COLL_OP_H_
#define COLL_OP_H_

#include "coll.h"

enum coll_op_state {
	COLL_OP_QUEUED,
	COLL_OP_AGREE,
	COLL_OP_DATA,
};

/* A piece of a stream plan: what one rank sends to, or receives from, one peer under one tag. */
#define COLL_PIECE_HOST 1u   /* send: read the chunks from the host at `host' */
#define COLL_PIECE_REDUCE 2u /* recv: chunk = op(chunk, own), own read from the host at `own' */
#define COLL_PIECE_WRITE 4u  /* recv: write the chunk to the host at `host' */

struct coll_piece {
	uint8_t send;
	uint8_t flags;
	int32_t fwd;  /* recv: the send piece that sends each processed chunk on; -1: none */
	int32_t gate; /* recv: chunk c is posted once this send piece has read its chunk c; -1: none */
	uint32_t peer;
	uint32_t step;
	uint64_t len;
	uint64_t host;
	uint64_t own;
	uint32_t nchunks;
	uint32_t next;    /* send: chunks sent; recv: chunks posted */
	uint32_t handled; /* send: chunks completed; recv: chunks processed */
};

struct coll_op {
	urom_list_link_t link;
	struct coll_team *team;
	struct coll_reply reply;
	uint64_t sequence;
	struct urom_coll_cmd_post args;
	size_t esize;
	uint64_t nbytes;  /* n: count times the element size */
	uint64_t chunk;   /* C: chunk_bytes rounded down to a multiple of esize */
	uint32_t refused; /* this rank's reason, 0 when its arguments passed */
	int state;
	int64_t deadline;
	uint32_t pending; /* messages in flight */

	struct urom_coll_agree agree;
	uint32_t round;
	uint32_t rounds;

	/* small: the stage, and the vectors */
	int small;
	uint32_t stage;
	uint8_t *acc;
	uint8_t *tmp;
	uint8_t *recv_into; /* where this stage's receive lands */

	/* stream */
	struct coll_piece *pieces;
	uint32_t npieces;
	uint16_t *send_inflight;   /* by rank: chunks read from the host, sent, not yet completed */
	uint16_t *recv_posted;     /* by rank */
	uint8_t *blocked;          /* by rank: an earlier receive piece is not fully posted (advance's scratch) */
	uint8_t *scratch;          /* one chunk: the own operand, a local copy */
	urom_list_link_t deferred; /* received chunks waiting for an earlier one of their piece */
};

/* The tag of this op's DATA message at step from sender. */
uint64_t coll_op_data_tag(const struct coll_op *op, uint32_t step, uint32_t sender);
/* Fails the op (and its team when the failure leaves it out of step); returns -1. */
int coll_op_abort(struct coll_op *op, urom_status_t status, uint32_t reason, uint32_t detail);

/* coll_small.c: 0 running or done (op->pending tells), -1 failed (op already finished). */
int coll_small_start(struct coll_op *op);
int coll_small_msg(struct coll_op *op, struct coll_msg *msg);
int coll_small_advance(struct coll_op *op);
int coll_small_done(const struct coll_op *op);

/* coll_stream.c: the same contract. */
int coll_stream_start(struct coll_op *op);
int coll_stream_msg(struct coll_op *op, struct coll_msg *msg);
int coll_stream_advance(struct coll_op *op);
int coll_stream_done(const struct coll_op *op);
void coll_stream_free(struct coll_op *op);

#endif /* COLL_OP_H_ */
