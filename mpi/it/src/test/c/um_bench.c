/* SPDX-License-Identifier: Apache-2.0 */
/*
 * liburom_mpi's measuring program (built with the tests, run by hand): what a generalized request
 * costs by itself, and MPI_Iallreduce's latency and overlap at a few sizes, with or without the
 * library (compare a run with UROM_MPI=0, or without LD_PRELOAD, under the same mpirun).
 *   mpirun -np P [-x LD_PRELOAD=<urom>/lib/liburom_mpi.so -x UROM_MPI_MIN_BYTES=0 ...] um_bench [ITERS]
 * Overlap is computed as OSU's benchmarks do: 100 * (1 - (total - compute) / pure), where pure is
 * the latency alone and total the time of post, compute for `pure', wait.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int query(void *extra, MPI_Status *status)
{
	(void)extra;
	PMPI_Status_set_elements(status, MPI_BYTE, 0);
	PMPI_Status_set_cancelled(status, 0);
	status->MPI_SOURCE = MPI_UNDEFINED;
	status->MPI_TAG = MPI_UNDEFINED;
	status->MPI_ERROR = MPI_SUCCESS;
	return MPI_SUCCESS;
}

static int nofree(void *extra)
{
	(void)extra;
	return MPI_SUCCESS;
}

static int nocancel(void *extra, int complete)
{
	(void)extra;
	(void)complete;
	return MPI_SUCCESS;
}

static volatile double sink;

/* Busy work for about `seconds'. */
static void compute(double seconds)
{
	double end = MPI_Wtime() + seconds, x = 1.0;

	while (MPI_Wtime() < end)
		for (int i = 0; i < 100; i++)
			x = x * 1.0000001 + 1e-9;
	sink = x;
}

int main(int argc, char **argv)
{
	const int sizes[] = {8, 1024, 65536, 1048576, 4194304};
	int iters = argc > 1 ? atoi(argv[1]) : 50, rank;
	double t0, t;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	t0 = MPI_Wtime();
	for (int i = 0; i < 100000; i++) {
		MPI_Request r;

		PMPI_Grequest_start(query, nofree, nocancel, NULL, &r);
		PMPI_Grequest_complete(r);
		PMPI_Wait(&r, MPI_STATUS_IGNORE);
	}
	t = MPI_Wtime() - t0;
	if (rank == 0)
		printf("generalized request start+complete+wait: %.0f ns\n", t / 100000 * 1e9);
	if (rank == 0)
		printf("%10s %12s %12s %10s\n", "bytes", "latency_us", "total_us", "overlap_%");
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		int count = sizes[s] / 4, n = sizes[s] >= 1048576 ? iters / 5 + 1 : iters;
		int *a = calloc((size_t)count, 4), *b = calloc((size_t)count, 4);
		double pure = 0, total = 0, maxp, maxt;
		MPI_Request r;

		for (int i = -2; i < n; i++) {
			MPI_Barrier(MPI_COMM_WORLD);
			t0 = MPI_Wtime();
			MPI_Iallreduce(a, b, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
			MPI_Wait(&r, MPI_STATUS_IGNORE);
			if (i >= 0)
				pure += MPI_Wtime() - t0;
		}
		pure /= n;
		MPI_Allreduce(&pure, &maxp, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
		for (int i = 0; i < n; i++) {
			MPI_Barrier(MPI_COMM_WORLD);
			t0 = MPI_Wtime();
			MPI_Iallreduce(a, b, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
			compute(maxp);
			MPI_Wait(&r, MPI_STATUS_IGNORE);
			total += MPI_Wtime() - t0;
		}
		total /= n;
		MPI_Allreduce(&total, &maxt, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
		if (rank == 0) {
			double overlap = 100.0 * (1.0 - (maxt - maxp) / maxp);

			printf("%10d %12.1f %12.1f %10.1f\n", sizes[s], maxp * 1e6, maxt * 1e6,
			       overlap < 0 ? 0 : overlap);
		}
		free(a);
		free(b);
	}
	fflush(stdout);
	MPI_Finalize();
	return 0;
}
