/* SPDX-License-Identifier: Apache-2.0 */
/*
 * liburom_mpi's test program: an ordinary MPI program, run under mpirun with the library preloaded
 * (or not). Every collective it makes through MPI_* is compared byte for byte with the same call
 * made through PMPI_*, which no preloaded library intercepts: MPI's own result.
 *
 *   um_check all        every collective, datatype and operation, IN_PLACE, dup, split and
 *                       overlapping communicators, many in flight, mixed arrays, Request_free,
 *                       Request_get_status, and calls that must fall back
 *   um_check basic      the same without MPI_Request_free of active requests and MPI_Comm_free
 *                       with a collective pending (for runs that fall back: Open MPI 4.1 refuses
 *                       the first and crashes in the second for its own collectives)
 *   um_check blocking   the blocking forms (offloaded only with UROM_MPI_BLOCKING=1)
 *   um_check fallback   only calls that must fall back (derived type, user op, inter-communicator)
 *   um_check subfirst   the first collectives on a split communicator, before any on all ranks
 *   um_check kill       loops on allreduce until it fails: run_tests.sh kills a worker meanwhile
 *   um_check error      ranks that disagree on a count: an error of class MPI_ERR_OTHER, then a
 *                       correct collective still works
 *
 * In the environment: UM_CHECK_THREAD=multiple initializes with MPI_THREAD_MULTIPLE;
 * UM_CHECK_RANK0_ENV=NAME=value sets one variable in rank 0 alone (Open MPI's rank variable) before
 * MPI_Init, so that the ranks' settings differ.
 *
 * Each check prints "check NAME: FAILED ..." on a mismatch; rank 0 ends with
 * "um_check MODE: N checks, F failed"; the exit status is 0 only when nothing failed.
 */
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define K 16
#define N 5000

static int rank, size, checks, failures;

static void check(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void check(int ok, const char *fmt, ...)
{
	va_list ap;

	checks++;
	if (ok)
		return;
	failures++;
	printf("rank %d: check ", rank);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(": FAILED\n");
	fflush(stdout);
}

struct dt {
	MPI_Datatype type;
	const char *name;
	int is_float, is_byte;
};

static const struct dt *types(int *n)
{
	static struct dt t[16];
	int i = 0;

	t[i++] = (struct dt){MPI_INT, "INT", 0, 0};
	t[i++] = (struct dt){MPI_DOUBLE, "DOUBLE", 1, 0};
	t[i++] = (struct dt){MPI_FLOAT, "FLOAT", 1, 0};
	t[i++] = (struct dt){MPI_LONG, "LONG", 0, 0};
	t[i++] = (struct dt){MPI_SHORT, "SHORT", 0, 0};
	t[i++] = (struct dt){MPI_UNSIGNED, "UNSIGNED", 0, 0};
	t[i++] = (struct dt){MPI_INT8_T, "INT8_T", 0, 0};
	t[i++] = (struct dt){MPI_UINT16_T, "UINT16_T", 0, 0};
	t[i++] = (struct dt){MPI_UINT64_T, "UINT64_T", 0, 0};
	t[i++] = (struct dt){MPI_LONG_LONG, "LONG_LONG", 0, 0};
	t[i++] = (struct dt){MPI_BYTE, "BYTE", 0, 1};
	*n = i;
	return t;
}

static int tsize(MPI_Datatype t)
{
	int s;

	PMPI_Type_size(t, &s);
	return s;
}

/*
 * Deterministic contents: whole numbers (floating-point sums are then exact in any order), small ones
 * for PROD, and for 1- and 2-byte integers ones whose sums cannot overflow: Open MPI 4.1's AVX
 * reductions saturate there (127 for an int8 sum of 63 and 66) where C, and the plugin, wrap.
 */
static void fill(void *buf, const struct dt *d, size_t count, int seed, int small)
{
	size_t es = (size_t)tsize(d->type);

	for (size_t i = 0; i < count; i++) {
		int64_t v = small ? 1 + (int64_t)((seed + i) % 3)
				  : (int64_t)((seed * 2654435761u + i * 40503u) % 2000) - 1000;

		if (!small && !d->is_float && es <= 2)
			v = (v + 1000) % 30;
		unsigned char *p = (unsigned char *)buf + i * es;

		if (d->is_float && es == 4) {
			float f = (float)v;
			memcpy(p, &f, 4);
		} else if (d->is_float) {
			double f = (double)v;
			memcpy(p, &f, 8);
		} else {
			memcpy(p, &v, es); /* little-endian: the low bytes */
		}
	}
}

static void *alloc(size_t n)
{
	void *p = calloc(n ? n : 1, 1);

	if (p == NULL) {
		fprintf(stderr, "um_check: out of memory\n");
		PMPI_Abort(MPI_COMM_WORLD, 2);
	}
	return p;
}

static const char *op_name(MPI_Op op)
{
	return op == MPI_SUM    ? "SUM"
	       : op == MPI_PROD ? "PROD"
	       : op == MPI_MIN  ? "MIN"
	       : op == MPI_MAX  ? "MAX"
	       : op == MPI_BAND ? "BAND"
	       : op == MPI_BOR  ? "BOR"
	       : op == MPI_BXOR ? "BXOR"
				: "user";
}

static int wait_ok(MPI_Request *r)
{
	return MPI_Wait(r, MPI_STATUS_IGNORE) == MPI_SUCCESS;
}

/* ------------------------------------------------------------------------- one collective */

static void allreduce(MPI_Comm comm, const struct dt *d, MPI_Op op, int count, int in_place, const char *cname)
{
	size_t n = (size_t)count * (size_t)tsize(d->type);
	char *src = alloc(n), *got = alloc(n), *want = alloc(n);
	MPI_Request r;
	int ok;

	fill(src, d, (size_t)count, rank + 1, op == MPI_PROD);
	if (in_place) {
		memcpy(got, src, n);
		ok = MPI_Iallreduce(MPI_IN_PLACE, got, count, d->type, op, comm, &r) == MPI_SUCCESS && wait_ok(&r);
	} else {
		ok = MPI_Iallreduce(src, got, count, d->type, op, comm, &r) == MPI_SUCCESS && wait_ok(&r);
	}
	PMPI_Allreduce(src, want, count, d->type, op, comm);
	check(ok && memcmp(got, want, n) == 0, "allreduce %s %s count %d%s on %s", d->name, op_name(op), count,
	      in_place ? " IN_PLACE" : "", cname);
	free(src);
	free(got);
	free(want);
}

static void reduce(MPI_Comm comm, const struct dt *d, MPI_Op op, int count, int root, int in_place, const char *cname)
{
	size_t n = (size_t)count * (size_t)tsize(d->type);
	char *src = alloc(n), *got = alloc(n), *want = alloc(n);
	MPI_Request r;
	int me, ok;

	PMPI_Comm_rank(comm, &me);
	fill(src, d, (size_t)count, rank + 3, op == MPI_PROD);
	if (in_place && me == root) {
		memcpy(got, src, n);
		ok = MPI_Ireduce(MPI_IN_PLACE, got, count, d->type, op, root, comm, &r) == MPI_SUCCESS && wait_ok(&r);
	} else {
		ok = MPI_Ireduce(src, got, count, d->type, op, root, comm, &r) == MPI_SUCCESS && wait_ok(&r);
	}
	PMPI_Reduce(src, want, count, d->type, op, root, comm);
	check(ok && (me != root || memcmp(got, want, n) == 0), "reduce %s %s count %d root %d%s on %s", d->name,
	      op_name(op), count, root, in_place ? " IN_PLACE" : "", cname);
	free(src);
	free(got);
	free(want);
}

static void blocks(int alltoall, MPI_Comm comm, const struct dt *d, int count, int in_place, const char *cname)
{
	int p, me;
	size_t n, es = (size_t)tsize(d->type);
	char *src, *got, *want;
	MPI_Request r;
	int ok;

	PMPI_Comm_size(comm, &p);
	PMPI_Comm_rank(comm, &me);
	n = (size_t)count * es;
	src = alloc(n * (size_t)p);
	got = alloc(n * (size_t)p);
	want = alloc(n * (size_t)p);
	fill(src, d, (size_t)count * (size_t)(alltoall ? p : 1), rank + 5, 0);
	if (alltoall) {
		if (in_place) {
			memcpy(got, src, n * (size_t)p);
			ok = MPI_Ialltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, got, count, d->type, comm, &r) ==
			     MPI_SUCCESS;
		} else {
			ok = MPI_Ialltoall(src, count, d->type, got, count, d->type, comm, &r) == MPI_SUCCESS;
		}
		ok = ok && wait_ok(&r);
		PMPI_Alltoall(src, count, d->type, want, count, d->type, comm);
	} else {
		if (in_place) {
			memcpy(got + (size_t)me * n, src, n);
			ok = MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, got, count, d->type, comm, &r) ==
			     MPI_SUCCESS;
		} else {
			ok = MPI_Iallgather(src, count, d->type, got, count, d->type, comm, &r) == MPI_SUCCESS;
		}
		ok = ok && wait_ok(&r);
		PMPI_Allgather(src, count, d->type, want, count, d->type, comm);
	}
	check(ok && memcmp(got, want, n * (size_t)p) == 0, "%s %s count %d%s on %s",
	      alltoall ? "alltoall" : "allgather", d->name, count, in_place ? " IN_PLACE" : "", cname);
	free(src);
	free(got);
	free(want);
}

static void bcast(MPI_Comm comm, const struct dt *d, int count, int root, const char *cname)
{
	size_t n = (size_t)count * (size_t)tsize(d->type);
	char *got = alloc(n), *want = alloc(n);
	MPI_Request r;
	int me, ok;

	PMPI_Comm_rank(comm, &me);
	fill(got, d, (size_t)count, me == root ? 77 : rank + 9, 0);
	memcpy(want, got, n);
	ok = MPI_Ibcast(got, count, d->type, root, comm, &r) == MPI_SUCCESS && wait_ok(&r);
	PMPI_Bcast(want, count, d->type, root, comm);
	check(ok && memcmp(got, want, n) == 0, "bcast %s count %d root %d on %s", d->name, count, root, cname);
	free(got);
	free(want);
}

static void barrier(MPI_Comm comm, const char *cname)
{
	MPI_Request r;

	check(MPI_Ibarrier(comm, &r) == MPI_SUCCESS && wait_ok(&r), "barrier on %s", cname);
}

/* Every collective once on comm, with a few datatypes. */
static void each_coll(MPI_Comm comm, const char *cname, int count)
{
	const struct dt d[] = {{MPI_INT, "INT", 0, 0}, {MPI_DOUBLE, "DOUBLE", 1, 0}};
	int p;

	PMPI_Comm_size(comm, &p);
	for (int i = 0; i < 2; i++) {
		allreduce(comm, &d[i], MPI_SUM, count, 0, cname);
		reduce(comm, &d[i], MPI_MAX, count, p - 1, 0, cname);
		blocks(0, comm, &d[i], count, 0, cname);
		blocks(1, comm, &d[i], count, 0, cname);
		bcast(comm, &d[i], count, p / 2, cname);
	}
	barrier(comm, cname);
}

/* ------------------------------------------------------------------------------ the groups */

static void datatypes_and_ops(void)
{
	const MPI_Op ops[] = {MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX, MPI_BAND, MPI_BOR, MPI_BXOR};
	const int counts[] = {1, 3000};
	int nt;
	const struct dt *t = types(&nt);

	for (int i = 0; i < nt; i++) {
		for (int c = 0; c < 2; c++) {
			for (int o = 0; o < 7; o++) {
				if ((t[i].is_float && o >= 4) || (t[i].is_byte && o < 4))
					continue;
				allreduce(MPI_COMM_WORLD, &t[i], ops[o], counts[c], 0, "WORLD");
				if (o % 2 == c)
					reduce(MPI_COMM_WORLD, &t[i], ops[o], counts[c], (i + o) % size, 0, "WORLD");
			}
			blocks(0, MPI_COMM_WORLD, &t[i], counts[c], 0, "WORLD");
			blocks(1, MPI_COMM_WORLD, &t[i], counts[c], 0, "WORLD");
			bcast(MPI_COMM_WORLD, &t[i], counts[c], i % size, "WORLD");
		}
	}
	barrier(MPI_COMM_WORLD, "WORLD");
	/* Large enough for the pipelined algorithms (above the plugin's 16 KiB and 64 KiB chunks). */
	each_coll(MPI_COMM_WORLD, "WORLD", 50000);
	each_coll(MPI_COMM_WORLD, "WORLD", 0);
}

static void in_place(void)
{
	const struct dt d = {MPI_INT, "INT", 0, 0};
	const struct dt f = {MPI_DOUBLE, "DOUBLE", 1, 0};

	allreduce(MPI_COMM_WORLD, &d, MPI_SUM, 1000, 1, "WORLD");
	allreduce(MPI_COMM_WORLD, &f, MPI_MAX, 20000, 1, "WORLD");
	for (int root = 0; root < size; root++)
		reduce(MPI_COMM_WORLD, &d, MPI_SUM, 1000, root, 1, "WORLD");
	blocks(0, MPI_COMM_WORLD, &d, 1000, 1, "WORLD");
	blocks(1, MPI_COMM_WORLD, &d, 1000, 1, "WORLD");
	blocks(1, MPI_COMM_WORLD, &f, 9000, 1, "WORLD");
}

static void communicators(int with_free)
{
	MPI_Comm dup, parity, reversed, half, dup2;

	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &parity);
	MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &reversed);
	MPI_Comm_split(MPI_COMM_WORLD, rank < (size + 1) / 2, rank, &half);
	each_coll(dup, "dup", 700);
	each_coll(reversed, "reversed", 700);
	/* Overlapping communicators in alternation. */
	for (int i = 0; i < 3; i++) {
		each_coll(parity, "parity", 500 + i);
		each_coll(half, "half", 500 + i);
		each_coll(MPI_COMM_WORLD, "WORLD", 300 + i);
	}
	/* Freed with a collective pending: the collective completes first. (Open MPI 4.1's own
	 * non-blocking collectives crash there: runs that fall back skip it.) */
	if (with_free) {
		static int src[N], got[N], want[N];
		MPI_Request r;

		for (int i = 0; i < N; i++)
			src[i] = i * (rank + 2);
		MPI_Iallreduce(src, got, N, MPI_INT, MPI_SUM, dup, &r);
		MPI_Comm_free(&dup);
		check(wait_ok(&r), "collective pending at MPI_Comm_free");
		PMPI_Allreduce(src, want, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
		check(memcmp(got, want, sizeof(want)) == 0, "collective pending at MPI_Comm_free: result");
	}
	/* A freed communicator's team goes; a new one takes its place. */
	MPI_Comm_dup(parity, &dup2);
	each_coll(dup2, "dup of parity", 100);
	MPI_Comm_free(&dup2);
	for (int i = 0; i < 20; i++) {
		MPI_Comm c;

		MPI_Comm_dup(MPI_COMM_WORLD, &c);
		if (i % 5 == 0)
			each_coll(c, "short-lived dup", 64);
		else
			barrier(c, "short-lived dup");
		MPI_Comm_free(&c);
	}
	MPI_Comm_free(&parity);
	MPI_Comm_free(&reversed);
	MPI_Comm_free(&half);
}

/* Many in flight on one communicator and another, completed out of order. */
static void in_flight(void)
{
	static int src[K][N], got[K][N], want[K][N];
	MPI_Request r[K];
	MPI_Comm dup;
	int index, outcount, idx[K], seen[K] = {0}, done = 0;

	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	for (int k = 0; k < K; k++) {
		for (int i = 0; i < N; i++)
			src[k][i] = rank * 1000 + k * 10 + i;
		MPI_Iallreduce(src[k], got[k], N, MPI_INT, MPI_SUM, k % 2 ? dup : MPI_COMM_WORLD, &r[k]);
	}
	for (int k = 0; k < K; k++)
		PMPI_Allreduce(src[k], want[k], N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	/* Waitany from the end of the array. */
	for (int k = 0; k < K / 2; k++) {
		check(MPI_Waitany(K, r, &index, MPI_STATUS_IGNORE) == MPI_SUCCESS && index != MPI_UNDEFINED,
		      "Waitany %d", k);
		if (index != MPI_UNDEFINED) {
			check(!seen[index] && memcmp(got[index], want[index], sizeof(want[0])) == 0,
			      "Waitany result %d", index);
			seen[index] = 1;
			done++;
		}
	}
	while (done < K) {
		if (MPI_Testsome(K, r, &outcount, idx, MPI_STATUSES_IGNORE) != MPI_SUCCESS || outcount == MPI_UNDEFINED)
			break;
		for (int j = 0; j < outcount; j++) {
			check(!seen[idx[j]] && memcmp(got[idx[j]], want[idx[j]], sizeof(want[0])) == 0,
			      "Testsome result %d", idx[j]);
			seen[idx[j]] = 1;
			done++;
		}
	}
	check(done == K, "in flight: %d of %d completed", done, K);
	/* The same, with Waitsome and Testany. */
	for (int k = 0; k < K; k++)
		MPI_Iallgather(src[k], N / size, MPI_INT, got[k], N / size, MPI_INT, k % 3 ? dup : MPI_COMM_WORLD,
			       &r[k]);
	for (int k = 0; k < K; k++)
		PMPI_Allgather(src[k], N / size, MPI_INT, want[k], N / size, MPI_INT, MPI_COMM_WORLD);
	done = 0;
	while (done < K / 2) {
		MPI_Waitsome(K, r, &outcount, idx, MPI_STATUSES_IGNORE);
		done += outcount;
	}
	while (done < K) {
		int flag = 0;

		MPI_Testany(K, r, &index, &flag, MPI_STATUS_IGNORE);
		if (flag && index != MPI_UNDEFINED)
			done++;
	}
	for (int k = 0; k < K; k++)
		check(memcmp(got[k], want[k], (size_t)(N / size) * (size_t)size * sizeof(int)) == 0,
		      "Waitsome/Testany %d", k);
	MPI_Comm_free(&dup);
}

static void user_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
	(void)type;
	for (int i = 0; i < *len * 2; i++)
		((int *)inout)[i] += ((int *)in)[i];
}

/* Offloaded, point-to-point and fallen-back requests in one array. */
static void mixed(void)
{
	static int a[N], b[N], wa[N], pair[2 * 100], pair_got[2 * 100], pair_want[2 * 100], bc[N], wbc[N];
	int sendv = rank, recvv = -1, flag = 0, outcount, idx[6];
	MPI_Request r[6];
	MPI_Datatype two;
	MPI_Op op;

	MPI_Type_contiguous(2, MPI_INT, &two);
	MPI_Type_commit(&two);
	MPI_Op_create(user_sum, 1, &op);
	for (int i = 0; i < N; i++)
		a[i] = i ^ rank;
	for (int i = 0; i < 200; i++)
		pair[i] = i + rank;
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < N; i++)
			bc[i] = rank == 0 ? i * 3 + round : -1;
		memcpy(wbc, bc, sizeof(bc));
		MPI_Irecv(&recvv, 1, MPI_INT, (rank + size - 1) % size, 7, MPI_COMM_WORLD, &r[0]);
		MPI_Iallreduce(a, b, N, MPI_INT, MPI_BXOR, MPI_COMM_WORLD, &r[1]);
		MPI_Iallreduce(pair, pair_got, 100, two, op, MPI_COMM_WORLD, &r[2]);
		MPI_Isend(&sendv, 1, MPI_INT, (rank + 1) % size, 7, MPI_COMM_WORLD, &r[3]);
		MPI_Ibarrier(MPI_COMM_WORLD, &r[4]);
		MPI_Ibcast(bc, N, MPI_INT, 0, MPI_COMM_WORLD, &r[5]);
		if (round == 0) {
			check(MPI_Waitall(6, r, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "mixed Waitall");
		} else if (round == 1) {
			while (!flag)
				MPI_Testall(6, r, &flag, MPI_STATUSES_IGNORE);
			flag = 0;
		} else {
			int done = 0;

			while (done < 6) {
				MPI_Waitsome(6, r, &outcount, idx, MPI_STATUSES_IGNORE);
				if (outcount == MPI_UNDEFINED)
					break;
				done += outcount;
			}
			check(done == 6, "mixed Waitsome: %d of 6", done);
		}
		PMPI_Allreduce(a, wa, N, MPI_INT, MPI_BXOR, MPI_COMM_WORLD);
		PMPI_Allreduce(pair, pair_want, 100, two, op, MPI_COMM_WORLD);
		PMPI_Bcast(wbc, N, MPI_INT, 0, MPI_COMM_WORLD);
		check(recvv == (rank + size - 1) % size, "mixed round %d: point-to-point", round);
		check(memcmp(b, wa, sizeof(wa)) == 0, "mixed round %d: allreduce", round);
		check(memcmp(pair_got, pair_want, sizeof(pair_want)) == 0, "mixed round %d: derived type, user op",
		      round);
		check(memcmp(bc, wbc, sizeof(wbc)) == 0, "mixed round %d: bcast", round);
	}
	MPI_Op_free(&op);
	MPI_Type_free(&two);
}

/*
 * A freed request's collective still completes; Request_get_status sees completion. Open MPI 4.1
 * refuses MPI_Request_free of its own active collective requests, so runs that fall back skip it.
 */
static void request_calls(int with_free)
{
	static int buf[N], want[N], src[N], got[N], ref[N];
	MPI_Request r;
	int flag = 0;

	for (int i = 0; i < N; i++) {
		buf[i] = rank == 0 ? 5 * i : 0;
		src[i] = i + rank;
	}
	memcpy(want, buf, sizeof(buf));
	MPI_Ibcast(buf, N, MPI_INT, 0, MPI_COMM_WORLD, &r);
	if (with_free)
		check(MPI_Request_free(&r) == MPI_SUCCESS && r == MPI_REQUEST_NULL, "Request_free");
	else
		wait_ok(&r);
	/* Completes after the bcast on this rank: a team runs its collectives in order. */
	MPI_Iallreduce(src, got, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
	wait_ok(&r);
	PMPI_Bcast(want, N, MPI_INT, 0, MPI_COMM_WORLD);
	check(memcmp(buf, want, sizeof(want)) == 0, "freed bcast's buffer");
	MPI_Iallreduce(src, got, N, MPI_INT, MPI_MIN, MPI_COMM_WORLD, &r);
	while (!flag)
		if (MPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS)
			break;
	check(flag, "Request_get_status");
	check(MPI_Test(&r, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && flag && r == MPI_REQUEST_NULL,
	      "Test after get_status");
	PMPI_Allreduce(src, ref, N, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	check(memcmp(got, ref, sizeof(ref)) == 0, "Request_get_status result");
	if (with_free) {
		/* One still in flight at MPI_Finalize: the library drains it. */
		MPI_Ibarrier(MPI_COMM_WORLD, &r);
		MPI_Request_free(&r);
	}
}

/* Calls that must go to MPI: derived type, user op, inter-communicator. */
static void fallback_calls(void)
{
	static int a[2 * N], b[2 * N], w[2 * N];
	MPI_Datatype two;
	MPI_Op op;
	MPI_Request r;

	MPI_Type_contiguous(2, MPI_INT, &two);
	MPI_Type_commit(&two);
	MPI_Op_create(user_sum, 1, &op);
	for (int i = 0; i < 2 * N; i++)
		a[i] = i * (rank + 1);
	memcpy(b, a, sizeof(a));
	memcpy(w, a, sizeof(a));
	MPI_Ibcast(b, N, two, size - 1, MPI_COMM_WORLD, &r);
	wait_ok(&r);
	PMPI_Bcast(w, N, two, size - 1, MPI_COMM_WORLD);
	check(memcmp(b, w, sizeof(w)) == 0, "derived type bcast");
	MPI_Iallreduce(a, b, N, two, op, MPI_COMM_WORLD, &r);
	wait_ok(&r);
	PMPI_Allreduce(a, w, N, two, op, MPI_COMM_WORLD);
	check(memcmp(b, w, sizeof(w)) == 0, "user op allreduce");
	MPI_Iallgather(a, 2, MPI_INT, b, 1, two, MPI_COMM_WORLD, &r);
	wait_ok(&r);
	PMPI_Allgather(a, 2, MPI_INT, w, 1, two, MPI_COMM_WORLD);
	check(memcmp(b, w, (size_t)size * 2 * sizeof(int)) == 0, "allgather with different send and receive types");
	if (size >= 2) {
		MPI_Comm local, inter;

		MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &local);
		MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 9, &inter);
		check(MPI_Ibarrier(inter, &r) == MPI_SUCCESS && wait_ok(&r), "inter-communicator barrier");
		MPI_Comm_free(&inter);
		MPI_Comm_free(&local);
	}
	MPI_Op_free(&op);
	MPI_Type_free(&two);
}

/* The blocking forms (offloaded only with UROM_MPI_BLOCKING=1), on WORLD and a split. */
static void blocking_calls(void)
{
	static double a[N], b[N], w[N];
	static int g[4 * N], wg[4 * N];
	MPI_Comm parity;

	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &parity);
	for (int i = 0; i < N; i++)
		a[i] = (double)(i % 100 + rank);
	for (int round = 0; round < 2; round++) {
		MPI_Comm comm = round ? parity : MPI_COMM_WORLD;
		int p, me;

		PMPI_Comm_size(comm, &p);
		PMPI_Comm_rank(comm, &me);
		check(MPI_Allreduce(a, b, N, MPI_DOUBLE, MPI_SUM, comm) == MPI_SUCCESS, "blocking allreduce");
		PMPI_Allreduce(a, w, N, MPI_DOUBLE, MPI_SUM, comm);
		check(memcmp(b, w, sizeof(w)) == 0, "blocking allreduce result");
		check(MPI_Reduce(a, b, N, MPI_DOUBLE, MPI_MIN, p - 1, comm) == MPI_SUCCESS, "blocking reduce");
		PMPI_Reduce(a, w, N, MPI_DOUBLE, MPI_MIN, p - 1, comm);
		check(me != p - 1 || memcmp(b, w, sizeof(w)) == 0, "blocking reduce result");
		check(MPI_Allgather(a, N / 4, MPI_INT, g, N / 4, MPI_INT, comm) == MPI_SUCCESS, "blocking allgather");
		PMPI_Allgather(a, N / 4, MPI_INT, wg, N / 4, MPI_INT, comm);
		check(memcmp(g, wg, (size_t)p * (N / 4) * sizeof(int)) == 0, "blocking allgather result");
		check(MPI_Alltoall(a, N / 4, MPI_INT, g, N / 4, MPI_INT, comm) == MPI_SUCCESS, "blocking alltoall");
		PMPI_Alltoall(a, N / 4, MPI_INT, wg, N / 4, MPI_INT, comm);
		check(memcmp(g, wg, (size_t)p * (N / 4) * sizeof(int)) == 0, "blocking alltoall result");
		memcpy(b, a, sizeof(a));
		memcpy(w, a, sizeof(a));
		check(MPI_Bcast(b, N, MPI_DOUBLE, 0, comm) == MPI_SUCCESS, "blocking bcast");
		PMPI_Bcast(w, N, MPI_DOUBLE, 0, comm);
		check(memcmp(b, w, sizeof(w)) == 0, "blocking bcast result");
		check(MPI_Allreduce(MPI_IN_PLACE, b, N, MPI_DOUBLE, MPI_MAX, comm) == MPI_SUCCESS, "blocking IN_PLACE");
		PMPI_Allreduce(MPI_IN_PLACE, w, N, MPI_DOUBLE, MPI_MAX, comm);
		check(memcmp(b, w, sizeof(w)) == 0, "blocking IN_PLACE result");
		check(MPI_Barrier(comm) == MPI_SUCCESS, "blocking barrier");
	}
	MPI_Comm_free(&parity);
}

/* Ranks that disagree on a count: the offloaded collective fails on every rank, with an error. */
static void error_case(void)
{
	static int a[2 * N], b[2 * N], w[N];
	char text[MPI_MAX_ERROR_STRING];
	MPI_Request r;
	int rc, cls = -1, len = 0;

	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	for (int i = 0; i < 2 * N; i++)
		a[i] = i;
	rc = MPI_Iallreduce(a, b, rank == 0 ? N : 2 * N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
	if (rc == MPI_SUCCESS)
		rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
	text[0] = '\0';
	if (rc != MPI_SUCCESS) {
		MPI_Error_class(rc, &cls);
		MPI_Error_string(rc, text, &len);
	}
	printf("rank %d: mismatched allreduce: %s\n", rank, rc == MPI_SUCCESS ? "no error" : text);
	check(rc != MPI_SUCCESS && cls == MPI_ERR_OTHER, "mismatched allreduce fails with MPI_ERR_OTHER (class %d)",
	      cls);
	/* A mismatch leaves the team usable. */
	rc = MPI_Iallreduce(a, b, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
	check(rc == MPI_SUCCESS && wait_ok(&r), "allreduce after the mismatch");
	PMPI_Allreduce(a, w, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	check(memcmp(b, w, sizeof(w)) == 0, "allreduce after the mismatch: result");
}

/*
 * The first offloadable collective on a communicator smaller than MPI_COMM_WORLD: connecting is
 * collective over MPI_COMM_WORLD, so it falls back until a call on all ranks has connected.
 */
static void sub_first(void)
{
	MPI_Comm parity;

	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &parity);
	each_coll(parity, "parity before connecting", 1000);
	each_coll(MPI_COMM_WORLD, "WORLD", 1000);
	each_coll(parity, "parity after connecting", 1000);
	MPI_Comm_free(&parity);
}

/*
 * A worker killed mid-collective (run_tests.sh kills one after the "ready" line): every rank's
 * offloaded collectives fail with an error, none hangs, and the program still finalizes.
 */
static void kill_case(void)
{
	enum { M = 1 << 20 };
	int *a = alloc(M * sizeof(int)), *b = alloc(M * sizeof(int));
	char text[MPI_MAX_ERROR_STRING];
	double deadline;
	MPI_Request r;
	int rc = MPI_SUCCESS, len, k = 0;

	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Iallreduce(a, b, 16, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
	check(wait_ok(&r), "allreduce before the kill");
	PMPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		printf("um_check kill: ready\n");
		fflush(stdout);
	}
	deadline = MPI_Wtime() + 120;
	while (rc == MPI_SUCCESS && MPI_Wtime() < deadline) {
		rc = MPI_Iallreduce(a, b, M, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
		if (rc == MPI_SUCCESS)
			rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
		k++;
	}
	text[0] = '\0';
	if (rc != MPI_SUCCESS)
		MPI_Error_string(rc, text, &len);
	printf("rank %d: collective %d after the kill: %s\n", rank, k, rc == MPI_SUCCESS ? "no error" : text);
	check(rc != MPI_SUCCESS, "a collective fails once a worker is killed");
	free(a);
	free(b);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "all";
	int all_failures = 0;

	/* Before MPI_Init: mpirun starts every rank with the same environment. */
	if (getenv("UM_CHECK_RANK0_ENV") != NULL && getenv("OMPI_COMM_WORLD_RANK") != NULL &&
	    strcmp(getenv("OMPI_COMM_WORLD_RANK"), "0") == 0)
		putenv(getenv("UM_CHECK_RANK0_ENV"));
	if (getenv("UM_CHECK_THREAD") != NULL && strcmp(getenv("UM_CHECK_THREAD"), "multiple") == 0) {
		int provided;

		MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	} else {
		MPI_Init(&argc, &argv);
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (strcmp(mode, "all") == 0 || strcmp(mode, "basic") == 0) {
		datatypes_and_ops();
		in_place();
		communicators(strcmp(mode, "all") == 0);
		in_flight();
		mixed();
		fallback_calls();
		request_calls(strcmp(mode, "all") == 0);
	} else if (strcmp(mode, "blocking") == 0) {
		blocking_calls();
	} else if (strcmp(mode, "subfirst") == 0) {
		sub_first();
	} else if (strcmp(mode, "kill") == 0) {
		kill_case();
	} else if (strcmp(mode, "fallback") == 0) {
		fallback_calls();
	} else if (strcmp(mode, "error") == 0) {
		error_case();
	} else {
		if (rank == 0)
			fprintf(stderr,
				"um_check: unknown mode %s (all, basic, blocking, subfirst, fallback, error, kill)\n",
				mode);
		failures = 1;
	}
	PMPI_Allreduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("um_check %s: %d checks, %d failed\n", mode, checks, all_failures);
	fflush(stdout);
	MPI_Finalize();
	return all_failures == 0 ? 0 : 1;
}
