/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom-java C sample coll: the benchmark, the OSU Micro-Benchmarks' method for non-blocking
 * collectives. For each collective and size:
 *   1. pure latency: post, wait at once (after a barrier), averaged over the iterations;
 *   2. overlap: post, compute for as long as the pure latency (a busy loop that calls nothing),
 *      wait; overall = post to the end of the wait;
 *      overlap % = max(0, 100 - 100 * (overall - compute) / pure).
 * Each rank measures its own; rank 0 prints and writes the averages over the ranks. Offloaded
 * collectives use buffers registered once (MEM_MAP); MPI's use its non-blocking collectives.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "coll_run.h"

/* The collectives the benchmark knows, as the OSU programs name them. */
struct bench_coll {
	const char *name;
	enum urom_coll_type coll;
};

static const struct bench_coll bench_colls[] = {
	{"allreduce", UROM_COLL_ALLREDUCE},
	{"alltoall", UROM_COLL_ALLTOALL},
	{"allgather", UROM_COLL_ALLGATHER},
	{"bcast", UROM_COLL_BCAST},
};

/* One rank's figures for one collective, implementation and size, in microseconds. */
struct figures {
	double pure, overall, compute, overlap;
};

/* What a run needs to post one collective either way. */
struct bench_buffers {
	void *src, *dst;
	size_t len; /* bytes of each buffer */
	uint64_t src_memh, dst_memh;
};

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

/* Busy for `us' microseconds doing arithmetic, calling nothing else. */
static volatile double compute_sink;

static void compute(double us)
{
	double end = now_us() + us, x = 1.0;

	while (now_us() < end)
		for (int i = 0; i < 64; i++)
			x = x * 1.0000001 + 0.0000001;
	compute_sink = x;
}

static void *alloc_aligned(size_t len)
{
	void *p = NULL;

	if (posix_memalign(&p, 4096, len == 0 ? 4096 : len) != 0) {
		fprintf(stderr, "coll: out of memory for %zu bytes\n", len);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	memset(p, 1, len);
	return p;
}

static doca_error_t map(struct coll_run *run, void *p, size_t len, uint32_t access, uint64_t *memh)
{
	struct urom_coll_request request = {0};
	doca_error_t result = urom_coll_mem_map(run->worker, p, len, access, &request);

	if (result == DOCA_SUCCESS)
		result = coll_wait(run, &request);
	if (result != DOCA_SUCCESS)
		printf("rank %d: registering %zu bytes: FAILED (%s, %s)\n", run->rank, len,
		       doca_error_get_descr(result), urom_coll_reason_name(request.reason));
	*memh = request.memh;
	return result;
}

static doca_error_t unmap(struct coll_run *run, uint64_t memh)
{
	struct urom_coll_request request = {0};
	doca_error_t result = urom_coll_mem_unmap(run->worker, memh, &request);

	return result == DOCA_SUCCESS ? coll_wait(run, &request) : result;
}

/* The offloaded arguments of `coll' for `bytes' bytes (per rank for allgather and alltoall). */
static struct urom_coll_args offload_args(enum urom_coll_type coll, size_t bytes, const struct bench_buffers *b)
{
	struct urom_coll_args a = {
		.coll = coll, .src = b->src, .dst = b->dst, .src_memh = b->src_memh, .dst_memh = b->dst_memh};

	if (coll == UROM_COLL_ALLREDUCE) {
		a.dtype = UROM_COLL_FLOAT32;
		a.op = UROM_COLL_SUM;
		a.count = bytes / sizeof(float);
	} else {
		a.dtype = UROM_COLL_UINT8;
		a.count = bytes;
	}
	if (coll == UROM_COLL_BCAST) {
		a.src = NULL;
		a.src_memh = 0;
	}
	return a;
}

static int mpi_post(enum urom_coll_type coll, size_t bytes, const struct bench_buffers *b, MPI_Request *req)
{
	switch (coll) {
	case UROM_COLL_ALLREDUCE:
		return MPI_Iallreduce(b->src, b->dst, (int)(bytes / sizeof(float)), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD,
				      req);
	case UROM_COLL_ALLTOALL:
		return MPI_Ialltoall(b->src, (int)bytes, MPI_BYTE, b->dst, (int)bytes, MPI_BYTE, MPI_COMM_WORLD, req);
	case UROM_COLL_ALLGATHER:
		return MPI_Iallgather(b->src, (int)bytes, MPI_BYTE, b->dst, (int)bytes, MPI_BYTE, MPI_COMM_WORLD, req);
	default:
		return MPI_Ibcast(b->dst, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD, req);
	}
}

/*
 * One post and wait, with `compute_us' of computation between (0: none); adds the time from post
 * to the wait's end to *overall and the computation's to *computed.
 */
static doca_error_t one(struct coll_run *run, bool offload, enum urom_coll_type coll, size_t bytes,
			const struct bench_buffers *b, double compute_us, double *overall, double *computed)
{
	struct urom_coll_request request = {0};
	struct urom_coll_args args;
	MPI_Request mpi_request;
	doca_error_t result = DOCA_SUCCESS;
	double t0, c0, c1;

	t0 = now_us();
	if (offload) {
		args = offload_args(coll, bytes, b);
		result = urom_coll_post(run->worker, COLL_TEAM_ALL, &args, &request);
		if (result != DOCA_SUCCESS)
			return result;
	} else if (mpi_post(coll, bytes, b, &mpi_request) != MPI_SUCCESS) {
		return DOCA_ERROR_IO_FAILED;
	}
	c0 = now_us();
	if (compute_us > 0)
		compute(compute_us);
	c1 = now_us();
	if (offload)
		result = coll_wait(run, &request);
	else if (MPI_Wait(&mpi_request, MPI_STATUS_IGNORE) != MPI_SUCCESS)
		result = DOCA_ERROR_IO_FAILED;
	*overall += now_us() - t0;
	*computed += c1 - c0;
	if (result != DOCA_SUCCESS)
		printf("rank %d: %s %zu B: FAILED (%s, %s)\n", run->rank, coll_type_name(coll), bytes,
		       doca_error_get_descr(result), urom_coll_reason_name(request.reason));
	return result;
}

static doca_error_t measure(struct coll_run *run, const struct coll_config *cfg, bool offload, enum urom_coll_type coll,
			    size_t bytes, const struct bench_buffers *b, struct figures *f)
{
	int iterations = cfg->iterations > 0 ? cfg->iterations : (bytes <= 8192 ? 1000 : 100);
	int warmup = cfg->warmup > 0 ? cfg->warmup : cfg->warmup < 0 ? 0 : (bytes <= 8192 ? 100 : 10);
	double pure = 0, overall = 0, computed = 0, ignored = 0;
	doca_error_t result = DOCA_SUCCESS;

	for (int i = 0; i < warmup + iterations && result == DOCA_SUCCESS; i++) {
		double o = 0;

		MPI_Barrier(MPI_COMM_WORLD);
		result = one(run, offload, coll, bytes, b, 0, &o, &ignored);
		if (i >= warmup)
			pure += o;
	}
	pure /= iterations;
	for (int i = 0; i < warmup + iterations && result == DOCA_SUCCESS; i++) {
		double o = 0, c = 0;

		MPI_Barrier(MPI_COMM_WORLD);
		result = one(run, offload, coll, bytes, b, pure, &o, &c);
		if (i >= warmup) {
			overall += o;
			computed += c;
		}
	}
	overall /= iterations;
	computed /= iterations;
	f->pure = pure;
	f->overall = overall;
	f->compute = computed;
	f->overlap = 100.0 - 100.0 * (overall - computed) / pure;
	if (f->overlap < 0)
		f->overlap = 0;
	return result;
}

/* The average of each figure over the ranks, at rank 0. */
static void average(struct coll_run *run, const struct figures *mine, struct figures *avg)
{
	double in[4] = {mine->pure, mine->overall, mine->compute, mine->overlap}, out[4] = {0};

	MPI_Reduce(in, out, 4, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
	avg->pure = out[0] / run->size;
	avg->overall = out[1] / run->size;
	avg->compute = out[2] / run->size;
	avg->overlap = out[3] / run->size;
}

/* A host-to-worker command's round trip: a barrier on the team of this rank alone. */
static doca_error_t roundtrip(struct coll_run *run, double *us)
{
	struct urom_coll_args barrier = {.coll = UROM_COLL_BARRIER};
	doca_error_t result = DOCA_SUCCESS;
	double t0 = 0;
	double mine;
	const int n = 1000, warm = 100;

	for (int i = 0; i < warm + n && result == DOCA_SUCCESS; i++) {
		struct urom_coll_request request = {0};

		if (i == warm)
			t0 = now_us();
		result = urom_coll_post(run->worker, COLL_TEAM_SELF, &barrier, &request);
		if (result == DOCA_SUCCESS)
			result = coll_wait(run, &request);
	}
	mine = (now_us() - t0) / n;
	MPI_Reduce(&mine, us, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
	*us /= run->size;
	return result;
}

static const char *impl_name(struct coll_run *run, bool offload)
{
	if (!offload)
		return "mpi";
	return strstr(run->plugin, "java") != NULL ? "offload-java" : "offload-c";
}

static bool wanted(const struct coll_config *cfg, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = cfg->colls; (p = strstr(p, name)) != NULL; p += n)
		if ((p == cfg->colls || p[-1] == ',') && (p[n] == '\0' || p[n] == ','))
			return true;
	return false;
}

doca_error_t coll_bench(struct coll_run *run, const struct coll_config *cfg)
{
	struct bench_buffers b = {0};
	doca_error_t result = DOCA_SUCCESS;
	FILE *json = NULL;
	double rt = 0;
	bool first = true;

	b.len = (size_t)cfg->max_bytes * (size_t)run->size;
	b.src = alloc_aligned(b.len);
	b.dst = alloc_aligned(b.len);
	if (cfg->impl & COLL_IMPL_OFFLOAD) {
		result = map(run, b.src, b.len, UROM_COLL_ACCESS_READ, &b.src_memh);
		if (result == DOCA_SUCCESS)
			result = map(run, b.dst, b.len, UROM_COLL_ACCESS_READ | UROM_COLL_ACCESS_WRITE, &b.dst_memh);
		if (result == DOCA_SUCCESS)
			result = roundtrip(run, &rt);
	}
	if (run->rank == 0 && cfg->json[0] != '\0') {
		json = fopen(cfg->json, "w");
		if (json == NULL) {
			printf("rank 0: cannot write %s: FAILED\n", cfg->json);
			result = DOCA_ERROR_IO_FAILED;
		} else {
			fprintf(json,
				"{\"label\": \"%s\", \"ranks\": %d, \"plugin\": \"%s\", \"roundtrip_us\": %.3f, "
				"\"results\": [",
				cfg->label, run->size, (cfg->impl & COLL_IMPL_OFFLOAD) ? run->plugin : "none", rt);
		}
	}
	if (run->rank == 0) {
		if (cfg->impl & COLL_IMPL_OFFLOAD)
			printf("rank 0: host-to-worker command round trip %.2f us\n", rt);
		printf("rank 0: %-10s %-13s %10s %12s %12s %12s %9s\n", "collective", "impl", "bytes", "pure us",
		       "overall us", "compute us", "overlap %");
	}
	for (size_t c = 0; c < sizeof(bench_colls) / sizeof(bench_colls[0]) && result == DOCA_SUCCESS; c++) {
		if (!wanted(cfg, bench_colls[c].name))
			continue;
		for (uint64_t bytes = cfg->min_bytes; bytes <= cfg->max_bytes && result == DOCA_SUCCESS; bytes *= 2) {
			for (int impl = 0; impl < 2 && result == DOCA_SUCCESS; impl++) {
				bool offload = impl == 0;
				struct figures mine = {0}, avg;

				if (!(cfg->impl & (offload ? COLL_IMPL_OFFLOAD : COLL_IMPL_MPI)))
					continue;
				if (bench_colls[c].coll == UROM_COLL_ALLREDUCE && bytes < sizeof(float))
					continue;
				result = measure(run, cfg, offload, bench_colls[c].coll, (size_t)bytes, &b, &mine);
				average(run, &mine, &avg);
				if (run->rank != 0)
					continue;
				printf("rank 0: %-10s %-13s %10lu %12.2f %12.2f %12.2f %9.1f\n", bench_colls[c].name,
				       impl_name(run, offload), (unsigned long)bytes, avg.pure, avg.overall,
				       avg.compute, avg.overlap);
				if (json != NULL) {
					fprintf(json,
						"%s\n  {\"collective\": \"%s\", \"impl\": \"%s\", \"bytes\": %lu, "
						"\"pure_us\": %.3f, "
						"\"overall_us\": %.3f, \"compute_us\": %.3f, \"overlap_pct\": %.2f}",
						first ? "" : ",", bench_colls[c].name, impl_name(run, offload),
						(unsigned long)bytes, avg.pure, avg.overall, avg.compute, avg.overlap);
					first = false;
				}
			}
		}
	}
	if (json != NULL) {
		fprintf(json, "\n]}\n");
		fclose(json);
	}
	if (b.src_memh != 0)
		unmap(run, b.src_memh);
	if (b.dst_memh != 0)
		unmap(run, b.dst_memh);
	free(b.src);
	free(b.dst);
	return result;
}
