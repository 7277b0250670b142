/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom-java C sample coll: one rank's set-up (device, service, worker, domain, teams) and tear-down
 * around the check and the benchmark.
 */
#include <stdio.h>
#include <string.h>

#include <doca_ctx.h>
#include <doca_log.h>

#include "coll_run.h"
#include "urom_sample_common.h"
#include "urom_sample_mpi.h"

DOCA_LOG_REGISTER(UROM::SAMPLE::COLL);

static const char *const type_names[UROM_COLL_TYPE_COUNT] = {"BARRIER",   "BCAST",     "REDUCE",
							     "ALLREDUCE", "ALLGATHER", "ALLTOALL"};
static const char *const dtype_names[UROM_COLL_DTYPE_COUNT] = {"INT8",   "INT16",  "INT32",  "INT64",   "UINT8",
							       "UINT16", "UINT32", "UINT64", "FLOAT32", "FLOAT64"};
static const char *const op_names[UROM_COLL_OP_COUNT] = {"SUM", "PROD", "MIN", "MAX", "BAND", "BOR", "BXOR"};

const char *coll_type_name(enum urom_coll_type coll)
{
	return (unsigned)coll < UROM_COLL_TYPE_COUNT ? type_names[coll] : "unknown";
}

const char *coll_dtype_name(enum urom_coll_dtype dtype)
{
	return (unsigned)dtype < UROM_COLL_DTYPE_COUNT ? dtype_names[dtype] : "unknown";
}

const char *coll_op_name(enum urom_coll_op op)
{
	return (unsigned)op < UROM_COLL_OP_COUNT ? op_names[op] : "unknown";
}

doca_error_t coll_wait(struct coll_run *run, struct urom_coll_request *request)
{
	int64_t deadline = sample_now_ms() + SAMPLE_STEP_TIMEOUT_MS;

	while (!urom_coll_test(request)) {
		if (!doca_pe_progress(run->pe) && sample_now_ms() > deadline)
			return DOCA_ERROR_TIME_OUT;
	}
	return request->status;
}

static void print_failure(struct coll_run *run, const char *what, const struct urom_coll_request *request,
			  doca_error_t result)
{
	printf("rank %d: %s: FAILED (%s, reason %s, detail %u)\n", run->rank, what, doca_error_get_descr(result),
	       urom_coll_reason_name(request->reason), request->detail);
}

doca_error_t coll_post_wait(struct coll_run *run, uint32_t team, const struct urom_coll_args *args)
{
	struct urom_coll_request request = {0};
	char what[96];
	doca_error_t result;

	snprintf(what, sizeof(what), "%s %s %s count %lu on team %u", coll_type_name(args->coll),
		 coll_dtype_name(args->dtype), coll_op_name(args->op), (unsigned long)args->count, team);
	result = urom_coll_post(run->worker, team, args, &request);
	if (result == DOCA_SUCCESS)
		result = coll_wait(run, &request);
	if (result != DOCA_SUCCESS)
		print_failure(run, what, &request, result);
	return result;
}

/* Creates a team of `size' members, rank i at domain id start + i * stride, and waits for it. */
static doca_error_t create_team(struct coll_run *run, uint32_t team, uint32_t size, uint32_t rank, uint64_t start,
				uint64_t stride)
{
	struct urom_coll_team_params params = {
		.team_id = team,
		.size = size,
		.rank = rank,
		.members = UROM_COLL_MEMBERS_RANGE,
		.start = start,
		.stride = stride,
	};
	struct urom_coll_request request = {0};
	char what[64];
	doca_error_t result;

	snprintf(what, sizeof(what), "creating team %u (%u ranks)", team, size);
	result = urom_coll_team_create(run->worker, &params, &request);
	if (result == DOCA_SUCCESS)
		result = coll_wait(run, &request);
	if (result != DOCA_SUCCESS)
		print_failure(run, what, &request, result);
	return result;
}

static doca_error_t destroy_team(struct coll_run *run, uint32_t team)
{
	struct urom_coll_request request = {0};
	doca_error_t result = urom_coll_team_destroy(run->worker, team, &request);

	if (result == DOCA_SUCCESS)
		result = coll_wait(run, &request);
	if (result != DOCA_SUCCESS)
		print_failure(run, "destroying a team", &request, result);
	return result;
}

/* The teams: every rank; the even ranks (domain ids 0, 2, ...); this rank alone. */
static doca_error_t create_teams(struct coll_run *run)
{
	doca_error_t result = create_team(run, COLL_TEAM_ALL, (uint32_t)run->size, (uint32_t)run->rank, 0, 1);

	if (result == DOCA_SUCCESS && run->rank % 2 == 0)
		result = create_team(run, COLL_TEAM_EVEN, (uint32_t)(run->size + 1) / 2, (uint32_t)run->rank / 2, 0, 2);
	if (result == DOCA_SUCCESS)
		result = create_team(run, COLL_TEAM_SELF, 1, 0, (uint64_t)run->rank, 1);
	return result;
}

static doca_error_t destroy_teams(struct coll_run *run)
{
	doca_error_t result = destroy_team(run, COLL_TEAM_ALL), end;

	if (run->rank % 2 == 0) {
		end = destroy_team(run, COLL_TEAM_EVEN);
		if (result == DOCA_SUCCESS)
			result = end;
	}
	end = destroy_team(run, COLL_TEAM_SELF);
	return result == DOCA_SUCCESS ? end : result;
}

/* Every rank's verdict: DOCA_SUCCESS only if all ranks' results are. */
static doca_error_t all_ranks(doca_error_t mine)
{
	int ok = mine == DOCA_SUCCESS, all = 0;

	if (MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD) != MPI_SUCCESS)
		return DOCA_ERROR_IO_FAILED;
	return all ? DOCA_SUCCESS : (mine != DOCA_SUCCESS ? mine : DOCA_ERROR_UNEXPECTED);
}

doca_error_t coll_sample(const struct coll_config *cfg, int rank, int size)
{
	struct sample_mpi_oob mpi = {.comm = MPI_COMM_WORLD};
	struct coll_run run = {.rank = rank, .size = size, .plugin = cfg->plugin};
	struct doca_urom_service *service = NULL;
	struct doca_urom_domain *domain = NULL;
	struct doca_dev *dev = NULL;
	uint64_t plugin_id, plugin_version;
	doca_error_t result, end;

	if (cfg->skip_check && cfg->impl == COLL_IMPL_MPI) {
		/* MPI's collectives alone: no service, no worker takes a CPU from them. */
		result = all_ranks(coll_bench(&run, cfg));
		goto out;
	}
	result = sample_open_device(cfg->device, &dev);
	if (result != DOCA_SUCCESS)
		goto out;
	result = doca_pe_create(&run.pe);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Creating the progress engine failed: %s", doca_error_get_descr(result));
		goto close_dev;
	}
	result = sample_start_service(run.pe, dev, &service);
	if (result != DOCA_SUCCESS)
		goto destroy_pe;
	result = sample_find_plugin(service, cfg->plugin, &plugin_id, &plugin_version);
	if (result == DOCA_SUCCESS) {
		result = urom_coll_init(plugin_id, plugin_version);
		if (result != DOCA_SUCCESS)
			DOCA_LOG_ERR("The coll helper refused plugin version %lu: %s", (unsigned long)plugin_version,
				     doca_error_get_descr(result));
	} else {
		printf("rank %d: the service has no plugin named %s: FAILED\n", rank, cfg->plugin);
	}
	if (result != DOCA_SUCCESS)
		goto stop_service;
	result = sample_start_worker(run.pe, service, DOCA_UROM_WORKER_ID_ANY, 0, plugin_id, NULL, &run.worker);
	if (result != DOCA_SUCCESS)
		goto stop_service;
	printf("rank %d: a worker running the %s plugin\n", rank, cfg->plugin);
	result = all_ranks(sample_start_mpi_domain(run.pe, run.worker, &mpi, rank, size, &domain));
	if (result != DOCA_SUCCESS)
		goto stop_worker;
	result = all_ranks(create_teams(&run));
	if (result == DOCA_SUCCESS && rank == 0)
		printf("rank 0: %d ranks in one team\n", size);
	if (result == DOCA_SUCCESS && !cfg->skip_check)
		result = all_ranks(coll_check(&run));
	if (result == DOCA_SUCCESS && cfg->bench)
		result = all_ranks(coll_bench(&run, cfg));
	/* No rank takes its worker away while another may still need it. */
	if (MPI_Barrier(MPI_COMM_WORLD) != MPI_SUCCESS && result == DOCA_SUCCESS)
		result = DOCA_ERROR_IO_FAILED;
	end = destroy_teams(&run);
	if (result == DOCA_SUCCESS)
		result = end;
	end = sample_stop_domain(run.pe, domain);
	if (result == DOCA_SUCCESS)
		result = end;
stop_worker:
	end = sample_stop_worker(run.pe, run.worker);
	if (result == DOCA_SUCCESS)
		result = end;
stop_service:
	end = sample_stop_service(run.pe, service);
	if (result == DOCA_SUCCESS)
		result = end;
destroy_pe:
	doca_pe_destroy(run.pe);
close_dev:
	doca_dev_close(dev);
out:
	if (result == DOCA_SUCCESS)
		printf("rank %d: coll done\n", rank);
	else
		printf("rank %d: coll FAILED (%s)\n", rank, doca_error_get_descr(result));
	return result;
}
