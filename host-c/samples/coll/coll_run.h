/* SPDX-License-Identifier: Apache-2.0 */
/* urom-java C sample coll: what its check and its benchmark share. */
#ifndef COLL_RUN_H_
#define COLL_RUN_H_

#include <stdint.h>

#include <mpi.h>

#include <doca_error.h>
#include <doca_pe.h>
#include <doca_urom.h>

#include "coll.h"
#include "urom_coll_host.h"

/* Team ids of the sample: every rank, the even ranks, each rank alone. */
#define COLL_TEAM_ALL 1
#define COLL_TEAM_EVEN 2
#define COLL_TEAM_SELF 3

/* One rank's running worker and teams. */
struct coll_run {
	struct doca_pe *pe;
	struct doca_urom_worker *worker;
	int rank;
	int size;
	const char *plugin;
};

/* Progresses until the request completes or the sample's step timeout passes (TIME_OUT). */
doca_error_t coll_wait(struct coll_run *run, struct urom_coll_request *request);

/* Posts one collective on team and waits for it; prints a line naming what failed. */
doca_error_t coll_post_wait(struct coll_run *run, uint32_t team, const struct urom_coll_args *args);

/* Every check; returns DOCA_SUCCESS only if every result on every rank matched MPI's. */
doca_error_t coll_check(struct coll_run *run);

/* The benchmark (rank 0 prints and writes the JSON). */
doca_error_t coll_bench(struct coll_run *run, const struct coll_config *cfg);

/* The name of a collective, datatype and operation, as the protocol spells them. */
const char *coll_type_name(enum urom_coll_type coll);
const char *coll_dtype_name(enum urom_coll_dtype dtype);
const char *coll_op_name(enum urom_coll_op op);

#endif /* COLL_RUN_H_ */
