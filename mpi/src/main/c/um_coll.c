/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom-java liburom_mpi: the collective wrappers. Each one offloads when the library is active,
 * the collective is enabled, its datatype is a predefined one of the plugin's, its operation one of
 * the plugin's that MPI allows on that datatype, the send and receive sides agree where the plugin
 * needs them to, the message (one rank's block for allgather and alltoall) is at least the
 * collective's threshold, and the communicator has a team; otherwise it calls the PMPI function
 * unchanged. Every test before the team's is a function of the arguments and the settings alone,
 * so that every rank of a correct program decides the same.
 */
#include <string.h>

#include "um.h"

enum kind { K_SIGNED, K_UNSIGNED, K_FLOAT, K_CHAR, K_BYTE };

struct dtype_map {
	MPI_Datatype type;
	enum kind kind;
};

/* Compared by handle; the plugin's datatype follows from the kind and PMPI_Type_size. */
static int map_dtype(MPI_Datatype type, enum urom_coll_dtype *out, enum kind *kind_out)
{
	const struct dtype_map map[] = {
		{MPI_INT, K_SIGNED},
		{MPI_DOUBLE, K_FLOAT},
		{MPI_FLOAT, K_FLOAT},
		{MPI_LONG, K_SIGNED},
		{MPI_LONG_LONG, K_SIGNED},
		{MPI_SHORT, K_SIGNED},
		{MPI_SIGNED_CHAR, K_SIGNED},
		{MPI_INT8_T, K_SIGNED},
		{MPI_INT16_T, K_SIGNED},
		{MPI_INT32_T, K_SIGNED},
		{MPI_INT64_T, K_SIGNED},
		{MPI_UNSIGNED, K_UNSIGNED},
		{MPI_UNSIGNED_LONG, K_UNSIGNED},
		{MPI_UNSIGNED_LONG_LONG, K_UNSIGNED},
		{MPI_UNSIGNED_SHORT, K_UNSIGNED},
		{MPI_UNSIGNED_CHAR, K_UNSIGNED},
		{MPI_UINT8_T, K_UNSIGNED},
		{MPI_UINT16_T, K_UNSIGNED},
		{MPI_UINT32_T, K_UNSIGNED},
		{MPI_UINT64_T, K_UNSIGNED},
		{MPI_CHAR, K_CHAR},
		{MPI_BYTE, K_BYTE},
	};
	int size = 0;

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		if (map[i].type != type)
			continue;
		if (PMPI_Type_size(type, &size) != MPI_SUCCESS)
			return -1;
		*kind_out = map[i].kind;
		if (map[i].kind == K_FLOAT) {
			if (size != 4 && size != 8)
				return -1;
			*out = size == 4 ? UROM_COLL_FLOAT32 : UROM_COLL_FLOAT64;
			return 0;
		}
		switch (size) {
		case 1:
			*out = map[i].kind == K_SIGNED ? UROM_COLL_INT8 : UROM_COLL_UINT8;
			return 0;
		case 2:
			*out = map[i].kind == K_SIGNED ? UROM_COLL_INT16 : UROM_COLL_UINT16;
			return 0;
		case 4:
			*out = map[i].kind == K_SIGNED ? UROM_COLL_INT32 : UROM_COLL_UINT32;
			return 0;
		case 8:
			*out = map[i].kind == K_SIGNED ? UROM_COLL_INT64 : UROM_COLL_UINT64;
			return 0;
		default:
			return -1;
		}
	}
	return -1;
}

/* The plugin's operation, where MPI allows it on a datatype of this kind. */
static int map_op(MPI_Op op, enum kind kind, enum urom_coll_op *out)
{
	const MPI_Op arith[] = {MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX};
	const MPI_Op bits[] = {MPI_BAND, MPI_BOR, MPI_BXOR};

	if (kind == K_CHAR)
		return -1; /* MPI defines no reduction on MPI_CHAR */
	if (kind != K_BYTE)
		for (int i = 0; i < 4; i++)
			if (op == arith[i]) {
				*out = (enum urom_coll_op)(UROM_COLL_SUM + i);
				return 0;
			}
	if (kind != K_FLOAT)
		for (int i = 0; i < 3; i++)
			if (op == bits[i]) {
				*out = (enum urom_coll_op)(UROM_COLL_BAND + i);
				return 0;
			}
	return -1;
}

static int enabled(enum urom_coll_type coll)
{
	return um.active && (um.set.colls & (1u << coll)) != 0;
}

static struct um_team *team_for(MPI_Comm comm)
{
	return comm == MPI_COMM_NULL ? NULL : um_comm_team(comm);
}

/* The plugin's datatype of count elements of type, at least the threshold: 0, else -1. */
static int sized(enum urom_coll_type coll, int count, MPI_Datatype type, enum urom_coll_dtype *dtype, enum kind *kind)
{
	int size = 0;

	if (count < 0 || map_dtype(type, dtype, kind) != 0 || PMPI_Type_size(type, &size) != MPI_SUCCESS)
		return -1;
	return (uint64_t)count * (uint64_t)size >= um.set.min_bytes[coll] ? 0 : -1;
}

static void fallback(void)
{
	um.stats.fallback++;
}

/* Blocking form: offload, then wait (MPI_Wait progresses the engine). */
static int wait_one(int rc, MPI_Request *req)
{
	return rc != MPI_SUCCESS ? rc : MPI_Wait(req, MPI_STATUS_IGNORE);
}

/* ---------------------------------------------------------------------------- allreduce */

static struct um_team *allreduce_args(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
				      MPI_Comm comm, struct urom_coll_args *a)
{
	enum kind kind;

	if (!enabled(UROM_COLL_ALLREDUCE))
		return NULL;
	if (sized(UROM_COLL_ALLREDUCE, count, type, &a->dtype, &kind) != 0 || map_op(op, kind, &a->op) != 0)
		return NULL;
	a->coll = UROM_COLL_ALLREDUCE;
	a->count = (uint64_t)count;
	a->dst = recvbuf;
	if (sendbuf == MPI_IN_PLACE)
		a->flags = UROM_COLL_IN_PLACE;
	else
		a->src = sendbuf;
	return team_for(comm);
}

int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
		   MPI_Request *request)
{
	struct urom_coll_args a = {0};
	struct um_team *t = allreduce_args(sendbuf, recvbuf, count, type, op, comm, &a);

	if (t != NULL)
		return um_op_post(t, &a, request);
	fallback();
	return PMPI_Iallreduce(sendbuf, recvbuf, count, type, op, comm, request);
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
	struct urom_coll_args a = {0};
	struct um_team *t = um.set.blocking ? allreduce_args(sendbuf, recvbuf, count, type, op, comm, &a) : NULL;
	MPI_Request req;

	if (t != NULL)
		return wait_one(um_op_post(t, &a, &req), &req);
	return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
}

/* ------------------------------------------------------------------------------- reduce */

static struct um_team *reduce_args(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
				   int root, MPI_Comm comm, struct urom_coll_args *a)
{
	enum kind kind;
	int rank, size;

	if (!enabled(UROM_COLL_REDUCE) || comm == MPI_COMM_NULL)
		return NULL;
	if (sized(UROM_COLL_REDUCE, count, type, &a->dtype, &kind) != 0 || map_op(op, kind, &a->op) != 0)
		return NULL;
	if (PMPI_Comm_rank(comm, &rank) != MPI_SUCCESS || PMPI_Comm_size(comm, &size) != MPI_SUCCESS || root < 0 ||
	    root >= size)
		return NULL;
	if (sendbuf == MPI_IN_PLACE && rank != root)
		return NULL; /* erroneous in MPI: let MPI say so */
	a->coll = UROM_COLL_REDUCE;
	a->count = (uint64_t)count;
	a->root = (uint32_t)root;
	if (rank == root)
		a->dst = recvbuf;
	if (sendbuf == MPI_IN_PLACE)
		a->flags = UROM_COLL_IN_PLACE;
	else
		a->src = sendbuf;
	return team_for(comm);
}

int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm,
		MPI_Request *request)
{
	struct urom_coll_args a = {0};
	struct um_team *t = reduce_args(sendbuf, recvbuf, count, type, op, root, comm, &a);

	if (t != NULL)
		return um_op_post(t, &a, request);
	fallback();
	return PMPI_Ireduce(sendbuf, recvbuf, count, type, op, root, comm, request);
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm)
{
	struct urom_coll_args a = {0};
	struct um_team *t = um.set.blocking ? reduce_args(sendbuf, recvbuf, count, type, op, root, comm, &a) : NULL;
	MPI_Request req;

	if (t != NULL)
		return wait_one(um_op_post(t, &a, &req), &req);
	return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
}

/* ------------------------------------------------------------------- allgather, alltoall */

/* Both sides the same type and count, or IN_PLACE (the receive side then says all). */
static struct um_team *blocks_args(enum urom_coll_type coll, const void *sendbuf, int scount, MPI_Datatype stype,
				   void *recvbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm,
				   struct urom_coll_args *a)
{
	enum kind kind;

	if (!enabled(coll))
		return NULL;
	if (sendbuf != MPI_IN_PLACE && (stype != rtype || scount != rcount))
		return NULL;
	if (sized(coll, rcount, rtype, &a->dtype, &kind) != 0)
		return NULL;
	a->coll = coll;
	a->count = (uint64_t)rcount;
	a->dst = recvbuf;
	if (sendbuf == MPI_IN_PLACE)
		a->flags = UROM_COLL_IN_PLACE;
	else
		a->src = sendbuf;
	return team_for(comm);
}

int MPI_Iallgather(const void *sendbuf, int scount, MPI_Datatype stype, void *recvbuf, int rcount, MPI_Datatype rtype,
		   MPI_Comm comm, MPI_Request *request)
{
	struct urom_coll_args a = {0};
	struct um_team *t = blocks_args(UROM_COLL_ALLGATHER, sendbuf, scount, stype, recvbuf, rcount, rtype, comm, &a);

	if (t != NULL)
		return um_op_post(t, &a, request);
	fallback();
	return PMPI_Iallgather(sendbuf, scount, stype, recvbuf, rcount, rtype, comm, request);
}

int MPI_Allgather(const void *sendbuf, int scount, MPI_Datatype stype, void *recvbuf, int rcount, MPI_Datatype rtype,
		  MPI_Comm comm)
{
	struct urom_coll_args a = {0};
	struct um_team *t = um.set.blocking ? blocks_args(UROM_COLL_ALLGATHER, sendbuf, scount, stype, recvbuf, rcount,
							  rtype, comm, &a)
					    : NULL;
	MPI_Request req;

	if (t != NULL)
		return wait_one(um_op_post(t, &a, &req), &req);
	return PMPI_Allgather(sendbuf, scount, stype, recvbuf, rcount, rtype, comm);
}

int MPI_Ialltoall(const void *sendbuf, int scount, MPI_Datatype stype, void *recvbuf, int rcount, MPI_Datatype rtype,
		  MPI_Comm comm, MPI_Request *request)
{
	struct urom_coll_args a = {0};
	struct um_team *t = blocks_args(UROM_COLL_ALLTOALL, sendbuf, scount, stype, recvbuf, rcount, rtype, comm, &a);

	if (t != NULL)
		return um_op_post(t, &a, request);
	fallback();
	return PMPI_Ialltoall(sendbuf, scount, stype, recvbuf, rcount, rtype, comm, request);
}

int MPI_Alltoall(const void *sendbuf, int scount, MPI_Datatype stype, void *recvbuf, int rcount, MPI_Datatype rtype,
		 MPI_Comm comm)
{
	struct urom_coll_args a = {0};
	struct um_team *t = um.set.blocking ? blocks_args(UROM_COLL_ALLTOALL, sendbuf, scount, stype, recvbuf, rcount,
							  rtype, comm, &a)
					    : NULL;
	MPI_Request req;

	if (t != NULL)
		return wait_one(um_op_post(t, &a, &req), &req);
	return PMPI_Alltoall(sendbuf, scount, stype, recvbuf, rcount, rtype, comm);
}

/* -------------------------------------------------------------------------- bcast, barrier */

static struct um_team *bcast_args(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
				  struct urom_coll_args *a)
{
	enum kind kind;
	int size;

	if (!enabled(UROM_COLL_BCAST) || comm == MPI_COMM_NULL)
		return NULL;
	if (sized(UROM_COLL_BCAST, count, type, &a->dtype, &kind) != 0)
		return NULL;
	if (PMPI_Comm_size(comm, &size) != MPI_SUCCESS || root < 0 || root >= size)
		return NULL;
	a->coll = UROM_COLL_BCAST;
	a->count = (uint64_t)count;
	a->root = (uint32_t)root;
	a->dst = buf;
	return team_for(comm);
}

int MPI_Ibcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request *request)
{
	struct urom_coll_args a = {0};
	struct um_team *t = bcast_args(buf, count, type, root, comm, &a);

	if (t != NULL)
		return um_op_post(t, &a, request);
	fallback();
	return PMPI_Ibcast(buf, count, type, root, comm, request);
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
	struct urom_coll_args a = {0};
	struct um_team *t = um.set.blocking ? bcast_args(buf, count, type, root, comm, &a) : NULL;
	MPI_Request req;

	if (t != NULL)
		return wait_one(um_op_post(t, &a, &req), &req);
	return PMPI_Bcast(buf, count, type, root, comm);
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
	struct urom_coll_args a = {.coll = UROM_COLL_BARRIER};
	struct um_team *t = enabled(UROM_COLL_BARRIER) ? team_for(comm) : NULL;

	if (t != NULL)
		return um_op_post(t, &a, request);
	fallback();
	return PMPI_Ibarrier(comm, request);
}

int MPI_Barrier(MPI_Comm comm)
{
	struct urom_coll_args a = {.coll = UROM_COLL_BARRIER};
	struct um_team *t = um.set.blocking && enabled(UROM_COLL_BARRIER) ? team_for(comm) : NULL;
	MPI_Request req;

	if (t != NULL)
		return wait_one(um_op_post(t, &a, &req), &req);
	return PMPI_Barrier(comm);
}
