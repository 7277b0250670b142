/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom-java C sample coll: the check. Each case fills the same input on every rank, offloads the
 * collective, has MPI compute it from the same input, and compares the bytes. The inputs keep
 * floating-point results exact (small integers), so MPI's order of reduction and the plugin's give
 * the same bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_run.h"

/* Element counts of the reductions: one element, an odd count, more than one chunk of 64 KiB. */
static const uint64_t reduce_counts[] = {1, 4099, 70001};

static const MPI_Datatype *mpi_type(enum urom_coll_dtype dtype)
{
	static MPI_Datatype types[UROM_COLL_DTYPE_COUNT];

	types[UROM_COLL_INT8] = MPI_INT8_T;
	types[UROM_COLL_INT16] = MPI_INT16_T;
	types[UROM_COLL_INT32] = MPI_INT32_T;
	types[UROM_COLL_INT64] = MPI_INT64_T;
	types[UROM_COLL_UINT8] = MPI_UINT8_T;
	types[UROM_COLL_UINT16] = MPI_UINT16_T;
	types[UROM_COLL_UINT32] = MPI_UINT32_T;
	types[UROM_COLL_UINT64] = MPI_UINT64_T;
	types[UROM_COLL_FLOAT32] = MPI_FLOAT;
	types[UROM_COLL_FLOAT64] = MPI_DOUBLE;
	return &types[dtype];
}

static MPI_Op mpi_op(enum urom_coll_op op)
{
	switch (op) {
	case UROM_COLL_SUM:
		return MPI_SUM;
	case UROM_COLL_PROD:
		return MPI_PROD;
	case UROM_COLL_MIN:
		return MPI_MIN;
	case UROM_COLL_MAX:
		return MPI_MAX;
	case UROM_COLL_BAND:
		return MPI_BAND;
	case UROM_COLL_BOR:
		return MPI_BOR;
	default:
		return MPI_BXOR;
	}
}

static size_t dtype_size(enum urom_coll_dtype dtype)
{
	static const size_t sizes[UROM_COLL_DTYPE_COUNT] = {1, 2, 4, 8, 1, 2, 4, 8, 4, 8};

	return sizes[dtype];
}

static bool is_float(enum urom_coll_dtype dtype)
{
	return dtype == UROM_COLL_FLOAT32 || dtype == UROM_COLL_FLOAT64;
}

static bool is_signed(enum urom_coll_dtype dtype)
{
	return dtype <= UROM_COLL_INT64 || is_float(dtype);
}

static void store(void *buf, enum urom_coll_dtype dtype, uint64_t i, int64_t v)
{
	switch (dtype) {
	case UROM_COLL_INT8:
	case UROM_COLL_UINT8:
		((uint8_t *)buf)[i] = (uint8_t)v;
		break;
	case UROM_COLL_INT16:
	case UROM_COLL_UINT16:
		((uint16_t *)buf)[i] = (uint16_t)v;
		break;
	case UROM_COLL_INT32:
	case UROM_COLL_UINT32:
		((uint32_t *)buf)[i] = (uint32_t)v;
		break;
	case UROM_COLL_INT64:
	case UROM_COLL_UINT64:
		((uint64_t *)buf)[i] = (uint64_t)v;
		break;
	case UROM_COLL_FLOAT32:
		((float *)buf)[i] = (float)v;
		break;
	case UROM_COLL_FLOAT64:
		((double *)buf)[i] = (double)v;
		break;
	}
}

/* Rank `rank''s input for a reduction: small values, so that every order of reduction is exact. */
static void fill_reduction(void *buf, enum urom_coll_dtype dtype, enum urom_coll_op op, int rank, uint64_t count)
{
	for (uint64_t i = 0; i < count; i++) {
		int64_t v;

		switch (op) {
		case UROM_COLL_SUM:
			v = (int64_t)((rank + i) % 7);
			break;
		case UROM_COLL_PROD:
			v = 1 + (int64_t)((rank + i) % 2);
			break;
		case UROM_COLL_MIN:
		case UROM_COLL_MAX:
			v = (int64_t)((rank * 31 + i * 17) % 200) - (is_signed(dtype) ? 100 : 0);
			break;
		default:
			v = (int64_t)((rank * 37 + i * 11) % 128);
			break;
		}
		store(buf, dtype, i, v);
	}
}

/* Bytes that differ from one rank to another and one element to the next. */
static void fill_bytes(void *buf, size_t len, int rank, unsigned salt)
{
	for (size_t i = 0; i < len; i++)
		((uint8_t *)buf)[i] = (uint8_t)(rank * 131 + i * 7 + salt);
}

static void *alloc_or_die(size_t len)
{
	void *p = calloc(len == 0 ? 1 : len, 1);

	if (p == NULL) {
		fprintf(stderr, "coll: out of memory for %zu bytes\n", len);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	return p;
}

static doca_error_t compare(struct coll_run *run, const char *what, const void *got, const void *expected, size_t len)
{
	const uint8_t *g = got, *e = expected;

	for (size_t i = 0; i < len; i++) {
		if (g[i] != e[i]) {
			printf("rank %d: %s: byte %zu is 0x%02x, MPI says 0x%02x: FAILED\n", run->rank, what, i, g[i],
			       e[i]);
			return DOCA_ERROR_UNEXPECTED;
		}
	}
	return DOCA_SUCCESS;
}

static doca_error_t check_allreduce(struct coll_run *run, enum urom_coll_dtype dtype, enum urom_coll_op op,
				    uint64_t count, bool in_place)
{
	size_t len = (size_t)count * dtype_size(dtype);
	void *src = alloc_or_die(len), *dst = alloc_or_die(len), *expected = alloc_or_die(len);
	struct urom_coll_args args = {.coll = UROM_COLL_ALLREDUCE, .dtype = dtype, .op = op, .count = count};
	char what[96];
	doca_error_t result;

	snprintf(what, sizeof(what), "ALLREDUCE %s %s count %lu%s", coll_dtype_name(dtype), coll_op_name(op),
		 (unsigned long)count, in_place ? " in place" : "");
	fill_reduction(src, dtype, op, run->rank, count);
	MPI_Allreduce(src, expected, (int)count, *mpi_type(dtype), mpi_op(op), MPI_COMM_WORLD);
	if (in_place) {
		memcpy(dst, src, len);
		args.flags = UROM_COLL_IN_PLACE;
	} else {
		args.src = src;
	}
	args.dst = dst;
	result = coll_post_wait(run, COLL_TEAM_ALL, &args);
	if (result == DOCA_SUCCESS)
		result = compare(run, what, dst, expected, len);
	free(src);
	free(dst);
	free(expected);
	return result;
}

static doca_error_t check_reduce(struct coll_run *run, enum urom_coll_dtype dtype, enum urom_coll_op op, uint64_t count,
				 int root)
{
	size_t len = (size_t)count * dtype_size(dtype);
	void *src = alloc_or_die(len), *dst = alloc_or_die(len), *expected = alloc_or_die(len);
	struct urom_coll_args args = {
		.coll = UROM_COLL_REDUCE, .dtype = dtype, .op = op, .count = count, .root = (uint32_t)root, .src = src};
	char what[96];
	doca_error_t result;

	snprintf(what, sizeof(what), "REDUCE %s %s count %lu root %d", coll_dtype_name(dtype), coll_op_name(op),
		 (unsigned long)count, root);
	fill_reduction(src, dtype, op, run->rank, count);
	MPI_Reduce(src, expected, (int)count, *mpi_type(dtype), mpi_op(op), root, MPI_COMM_WORLD);
	if (run->rank == root)
		args.dst = dst;
	result = coll_post_wait(run, COLL_TEAM_ALL, &args);
	if (result == DOCA_SUCCESS && run->rank == root)
		result = compare(run, what, dst, expected, len);
	free(src);
	free(dst);
	free(expected);
	return result;
}

static doca_error_t check_bcast(struct coll_run *run, enum urom_coll_dtype dtype, uint64_t count, int root)
{
	size_t len = (size_t)count * dtype_size(dtype);
	void *buf = alloc_or_die(len), *expected = alloc_or_die(len);
	struct urom_coll_args args = {
		.coll = UROM_COLL_BCAST, .dtype = dtype, .count = count, .root = (uint32_t)root, .dst = buf};
	char what[96];
	doca_error_t result;

	snprintf(what, sizeof(what), "BCAST %s count %lu root %d", coll_dtype_name(dtype), (unsigned long)count, root);
	fill_bytes(expected, len, root, 3);
	if (run->rank == root)
		memcpy(buf, expected, len);
	result = coll_post_wait(run, COLL_TEAM_ALL, &args);
	if (result == DOCA_SUCCESS)
		result = compare(run, what, buf, expected, len);
	free(buf);
	free(expected);
	return result;
}

static doca_error_t check_allgather(struct coll_run *run, enum urom_coll_dtype dtype, uint64_t count, bool in_place)
{
	size_t block = (size_t)count * dtype_size(dtype), len = block * (size_t)run->size;
	void *src = alloc_or_die(block), *dst = alloc_or_die(len), *expected = alloc_or_die(len);
	struct urom_coll_args args = {.coll = UROM_COLL_ALLGATHER, .dtype = dtype, .count = count, .dst = dst};
	char what[96];
	doca_error_t result;

	snprintf(what, sizeof(what), "ALLGATHER %s count %lu%s", coll_dtype_name(dtype), (unsigned long)count,
		 in_place ? " in place" : "");
	fill_bytes(src, block, run->rank, 5);
	MPI_Allgather(src, (int)block, MPI_BYTE, expected, (int)block, MPI_BYTE, MPI_COMM_WORLD);
	if (in_place) {
		memcpy((uint8_t *)dst + block * (size_t)run->rank, src, block);
		args.flags = UROM_COLL_IN_PLACE;
	} else {
		args.src = src;
	}
	result = coll_post_wait(run, COLL_TEAM_ALL, &args);
	if (result == DOCA_SUCCESS)
		result = compare(run, what, dst, expected, len);
	free(src);
	free(dst);
	free(expected);
	return result;
}

static doca_error_t check_alltoall(struct coll_run *run, enum urom_coll_dtype dtype, uint64_t count, bool in_place)
{
	size_t block = (size_t)count * dtype_size(dtype), len = block * (size_t)run->size;
	void *src = alloc_or_die(len), *dst = alloc_or_die(len), *expected = alloc_or_die(len);
	struct urom_coll_args args = {.coll = UROM_COLL_ALLTOALL, .dtype = dtype, .count = count, .dst = dst};
	char what[96];
	doca_error_t result;

	snprintf(what, sizeof(what), "ALLTOALL %s count %lu%s", coll_dtype_name(dtype), (unsigned long)count,
		 in_place ? " in place" : "");
	fill_bytes(src, len, run->rank, 9);
	MPI_Alltoall(src, (int)block, MPI_BYTE, expected, (int)block, MPI_BYTE, MPI_COMM_WORLD);
	if (in_place) {
		memcpy(dst, src, len);
		args.flags = UROM_COLL_IN_PLACE;
	} else {
		args.src = src;
	}
	result = coll_post_wait(run, COLL_TEAM_ALL, &args);
	if (result == DOCA_SUCCESS)
		result = compare(run, what, dst, expected, len);
	free(src);
	free(dst);
	free(expected);
	return result;
}

/* An allreduce on the team of the even ranks against MPI's on the same ranks. */
static doca_error_t check_even_team(struct coll_run *run)
{
	const uint64_t count = 1000;
	size_t len = count * sizeof(int32_t);
	void *src = alloc_or_die(len), *dst = alloc_or_die(len), *expected = alloc_or_die(len);
	struct urom_coll_args args = {.coll = UROM_COLL_ALLREDUCE,
				      .dtype = UROM_COLL_INT32,
				      .op = UROM_COLL_SUM,
				      .count = count,
				      .src = src,
				      .dst = dst};
	doca_error_t result = DOCA_SUCCESS;
	MPI_Comm even;

	fill_reduction(src, UROM_COLL_INT32, UROM_COLL_SUM, run->rank, count);
	MPI_Comm_split(MPI_COMM_WORLD, run->rank % 2, run->rank, &even);
	MPI_Allreduce(src, expected, (int)count, MPI_INT32_T, MPI_SUM, even);
	if (run->rank % 2 == 0) {
		result = coll_post_wait(run, COLL_TEAM_EVEN, &args);
		if (result == DOCA_SUCCESS)
			result = compare(run, "ALLREDUCE INT32 SUM on the team of the even ranks", dst, expected, len);
	}
	MPI_Comm_free(&even);
	free(src);
	free(dst);
	free(expected);
	return result;
}

/* Rank 0 prints one line per group of cases: how many passed on every rank. */
static doca_error_t report(struct coll_run *run, const char *group, int cases, int failed)
{
	int all_failed = 0;

	MPI_Allreduce(&failed, &all_failed, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (run->rank == 0)
		printf("rank 0: %-44s %3d cases, %s\n", group, cases,
		       all_failed == 0 ? "every result matches MPI's" : "FAILED");
	return all_failed == 0 ? DOCA_SUCCESS : DOCA_ERROR_UNEXPECTED;
}

doca_error_t coll_check(struct coll_run *run)
{
	struct urom_coll_args barrier = {.coll = UROM_COLL_BARRIER};
	doca_error_t result = DOCA_SUCCESS, r;
	int cases = 0, failed = 0;
	int root = run->size - 1;

	for (int dtype = 0; dtype < UROM_COLL_DTYPE_COUNT; dtype++)
		for (int op = 0; op < UROM_COLL_OP_COUNT; op++) {
			if (op >= UROM_COLL_BAND && is_float((enum urom_coll_dtype)dtype))
				continue;
			for (size_t c = 0; c < sizeof(reduce_counts) / sizeof(reduce_counts[0]); c++) {
				cases++;
				failed += check_allreduce(run, (enum urom_coll_dtype)dtype, (enum urom_coll_op)op,
							  reduce_counts[c], false) != DOCA_SUCCESS;
			}
		}
	r = report(run, "ALLREDUCE, every datatype and operation", cases, failed);
	result = result == DOCA_SUCCESS ? r : result;

	cases = failed = 0;
	for (int dtype = 0; dtype < UROM_COLL_DTYPE_COUNT; dtype++, cases++)
		failed += check_allreduce(run, (enum urom_coll_dtype)dtype, UROM_COLL_SUM, 4099, true) != DOCA_SUCCESS;
	cases++;
	failed += check_allreduce(run, UROM_COLL_FLOAT64, UROM_COLL_SUM, 0, false) != DOCA_SUCCESS;
	r = report(run, "ALLREDUCE in place, and of 0 elements", cases, failed);
	result = result == DOCA_SUCCESS ? r : result;

	cases = failed = 0;
	for (size_t c = 0; c < sizeof(reduce_counts) / sizeof(reduce_counts[0]); c++, cases += 2) {
		failed += check_reduce(run, UROM_COLL_FLOAT32, UROM_COLL_SUM, reduce_counts[c], root) != DOCA_SUCCESS;
		failed += check_reduce(run, UROM_COLL_INT64, UROM_COLL_MAX, reduce_counts[c], 0) != DOCA_SUCCESS;
	}
	r = report(run, "REDUCE, to the last rank and to rank 0", cases, failed);
	result = result == DOCA_SUCCESS ? r : result;

	cases = 3;
	failed = (check_bcast(run, UROM_COLL_UINT8, 1, 1 % run->size) != DOCA_SUCCESS) +
		 (check_bcast(run, UROM_COLL_UINT8, 70001, 0) != DOCA_SUCCESS) +
		 (check_bcast(run, UROM_COLL_FLOAT64, 300000, root) != DOCA_SUCCESS);
	r = report(run, "BCAST, small and pipelined", cases, failed);
	result = result == DOCA_SUCCESS ? r : result;

	cases = 4;
	failed = (check_allgather(run, UROM_COLL_INT32, 1, false) != DOCA_SUCCESS) +
		 (check_allgather(run, UROM_COLL_INT32, 5000, false) != DOCA_SUCCESS) +
		 (check_allgather(run, UROM_COLL_UINT8, 100003, false) != DOCA_SUCCESS) +
		 (check_allgather(run, UROM_COLL_INT32, 5000, true) != DOCA_SUCCESS);
	r = report(run, "ALLGATHER, small, ring, in place", cases, failed);
	result = result == DOCA_SUCCESS ? r : result;

	cases = 4;
	failed = (check_alltoall(run, UROM_COLL_INT32, 1, false) != DOCA_SUCCESS) +
		 (check_alltoall(run, UROM_COLL_INT32, 5000, false) != DOCA_SUCCESS) +
		 (check_alltoall(run, UROM_COLL_UINT8, 100003, false) != DOCA_SUCCESS) +
		 (check_alltoall(run, UROM_COLL_INT32, 5000, true) != DOCA_SUCCESS);
	r = report(run, "ALLTOALL, small, large, in place", cases, failed);
	result = result == DOCA_SUCCESS ? r : result;

	cases = 2;
	failed =
		(coll_post_wait(run, COLL_TEAM_ALL, &barrier) != DOCA_SUCCESS) + (check_even_team(run) != DOCA_SUCCESS);
	r = report(run, "BARRIER, and a team of the even ranks", cases, failed);
	return result == DOCA_SUCCESS ? r : result;
}
