/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom-java C samples: a domain whose out-of-band allgather is MPI's (MPI_Iallgather, completed with
 * MPI_Test from inside doca_pe_progress()), for the samples that run as MPI ranks.
 */
#ifndef UROM_SAMPLE_MPI_H_
#define UROM_SAMPLE_MPI_H_

#include <mpi.h>

#include <doca_error.h>
#include <doca_pe.h>
#include <doca_urom.h>

/* The allgather's communicator; must outlive the domain's start. */
struct sample_mpi_oob {
	MPI_Comm comm;
};

/*
 * Creates the domain of this rank's worker, in which the worker's domain id is the rank, and
 * progresses pe until it is RUNNING. On failure nothing is left behind.
 */
doca_error_t sample_start_mpi_domain(struct doca_pe *pe, struct doca_urom_worker *worker, struct sample_mpi_oob *mpi,
				     int rank, int size, struct doca_urom_domain **domain);

/* Stops and destroys a domain. */
doca_error_t sample_stop_domain(struct doca_pe *pe, struct doca_urom_domain *domain);

#endif /* UROM_SAMPLE_MPI_H_ */
