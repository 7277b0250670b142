/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom-java C sample: MPI ranks that offload collectives to their workers through the coll
 * plugin's C helper. Every rank starts one worker, the ranks' workers form a domain (MPI is its
 * allgather) and a team; then
 *   - the check runs every collective (each datatype and operation of allreduce, in place, a team of
 *     the even ranks) and compares every result with what MPI computes for the same input;
 *   - the benchmark (--bench) measures, the OSU way, each collective's pure latency and how much of
 *     a computation of that length it overlaps, offloaded and (--impl) through MPI's own
 *     non-blocking collectives.
 * Rank 0 prints the results; each rank prints a line for a failure. The exit status is 0 only if
 * every check passed. With --skip-check --impl mpi no service is used at all.
 */
#ifndef COLL_H_
#define COLL_H_

#include <stdbool.h>
#include <stdint.h>

#include <doca_dev.h>
#include <doca_error.h>

#define COLL_PLUGIN_DEFAULT "worker_coll"
#define COLL_DEFAULT_COLLS "allreduce,alltoall,allgather,bcast"

/* What the benchmark measures. */
enum coll_impl {
	COLL_IMPL_OFFLOAD = 1,
	COLL_IMPL_MPI = 2,
	COLL_IMPL_BOTH = 3,
};

struct coll_config {
	char device[DOCA_DEVINFO_IBDEV_NAME_SIZE]; /* the service file's device; empty: the first */
	char plugin[64];                           /* worker_coll or worker_coll_java */
	bool skip_check;
	bool bench;
	enum coll_impl impl;
	char colls[128];               /* the benchmark's collectives, comma-separated */
	uint64_t min_bytes, max_bytes; /* the benchmark's sizes, powers of two between */
	int iterations;                /* 0: 1000 up to 8 KiB, 100 above (OSU's) */
	int warmup;                    /* 0: 100 up to 8 KiB, 10 above */
	char json[256];                /* rank 0 writes the results there; empty: none */
	char label[64];                /* names this run in the JSON (placement) */
};

/* This rank's part. */
doca_error_t coll_sample(const struct coll_config *cfg, int rank, int size);

#endif /* COLL_H_ */
