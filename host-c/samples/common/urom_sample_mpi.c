/* SPDX-License-Identifier: Apache-2.0 */
/* urom-java C samples: a domain over MPI (urom_sample_mpi.h). */
#include "urom_sample_mpi.h"

#include <limits.h>
#include <stdlib.h>

#include <doca_ctx.h>
#include <doca_log.h>

#include "urom_sample_common.h"

DOCA_LOG_REGISTER(UROM::SAMPLE::MPI);

static doca_error_t mpi_allgather(void *sbuf, void *rbuf, size_t msglen, void *coll_info, void **req)
{
	struct sample_mpi_oob *oob = coll_info;
	MPI_Request *request;

	if (msglen > INT_MAX) {
		DOCA_LOG_ERR("An allgather of %zu bytes per rank exceeds what one MPI call carries", msglen);
		return DOCA_ERROR_TOO_BIG;
	}
	request = malloc(sizeof(*request));
	if (request == NULL)
		return DOCA_ERROR_NO_MEMORY;
	if (MPI_Iallgather(sbuf, (int)msglen, MPI_BYTE, rbuf, (int)msglen, MPI_BYTE, oob->comm, request) !=
	    MPI_SUCCESS) {
		DOCA_LOG_ERR("MPI_Iallgather failed");
		free(request);
		return DOCA_ERROR_IO_FAILED;
	}
	*req = request;
	return DOCA_SUCCESS;
}

static doca_error_t mpi_req_test(void *req)
{
	int done = 0;

	if (MPI_Test(req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
		DOCA_LOG_ERR("MPI_Test failed");
		return DOCA_ERROR_IO_FAILED;
	}
	return done ? DOCA_SUCCESS : DOCA_ERROR_IN_PROGRESS;
}

static doca_error_t mpi_req_free(void *req)
{
	free(req);
	return DOCA_SUCCESS;
}

doca_error_t sample_start_mpi_domain(struct doca_pe *pe, struct doca_urom_worker *worker, struct sample_mpi_oob *mpi,
				     int rank, int size, struct doca_urom_domain **domain)
{
	struct doca_urom_domain_oob_coll oob = {
		.allgather = mpi_allgather,
		.req_test = mpi_req_test,
		.req_free = mpi_req_free,
		.coll_info = mpi,
		.n_oob_indexes = (uint32_t)size,
		.oob_index = (uint32_t)rank,
	};
	uint64_t domain_id = (uint64_t)rank;
	struct doca_urom_domain *d;
	enum doca_ctx_states state;
	doca_error_t result;

	result = doca_urom_domain_create(&d);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Creating the domain failed: %s", doca_error_get_descr(result));
		return result;
	}
	result = doca_urom_domain_set_oob(d, &oob);
	if (result == DOCA_SUCCESS)
		result = doca_urom_domain_set_workers(d, &domain_id, &worker, 1);
	if (result == DOCA_SUCCESS)
		result = doca_pe_connect_ctx(pe, doca_urom_domain_as_ctx(d));
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Setting up the domain failed: %s", doca_error_get_descr(result));
		doca_urom_domain_destroy(d);
		return result;
	}
	result = doca_ctx_start(doca_urom_domain_as_ctx(d));
	if (result == DOCA_ERROR_IN_PROGRESS)
		result = sample_wait_state(pe, doca_urom_domain_as_ctx(d), DOCA_CTX_STATE_STARTING,
					   SAMPLE_STEP_TIMEOUT_MS, &state);
	else if (result == DOCA_SUCCESS)
		doca_ctx_get_state(doca_urom_domain_as_ctx(d), &state);
	if (result == DOCA_SUCCESS && state != DOCA_CTX_STATE_RUNNING)
		result = DOCA_ERROR_BAD_STATE;
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("The domain did not start: %s", doca_error_get_descr(result));
		doca_ctx_get_state(doca_urom_domain_as_ctx(d), &state);
		if (state != DOCA_CTX_STATE_IDLE)
			doca_ctx_stop(doca_urom_domain_as_ctx(d));
		while (doca_pe_progress(pe))
			;
		doca_urom_domain_destroy(d);
		return result;
	}
	*domain = d;
	return DOCA_SUCCESS;
}

doca_error_t sample_stop_domain(struct doca_pe *pe, struct doca_urom_domain *domain)
{
	doca_error_t result = sample_stop_ctx(pe, doca_urom_domain_as_ctx(domain), "the domain");

	if (result != DOCA_SUCCESS)
		return result;
	result = doca_urom_domain_destroy(domain);
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Destroying the domain failed: %s", doca_error_get_descr(result));
	return result;
}
