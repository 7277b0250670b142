/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom-java: a distributed 2-D FFT, the application kernel that liburom_mpi.so is measured on.
 *
 * An n x n grid of complex doubles is split by rows over the ranks (n / p rows each). The first
 * pass transforms each local row; the transpose that gives every rank whole columns is an
 * all-to-all; the second pass transforms those. The rows are cut into batches: batch b's
 * all-to-all (MPI_Ialltoall) is posted as soon as its rows are transformed, and the program goes
 * on transforming batch b + 1 without calling MPI, so the exchange overlaps the computation only
 * where something other than this rank moves the data. After the last batch it waits for all.
 *
 *   fft2d [-n N] [-b BATCHES] [-i ITERATIONS] [-w WARMUP] [--check]
 *
 * Prints, on rank 0, the mean over the ranks of: the time per iteration, the part spent computing
 * and the part spent waiting for the exchanges. --check compares the result with a 2-D DFT of the
 * same input done by rank 0 alone (small n) and exits 1 on a mismatch.
 */
#include <complex.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct options {
	int n;
	int batches;
	int iterations;
	int warmup;
	int check;
};

static int parse(int argc, char **argv, struct options *o)
{
	*o = (struct options){.n = 2048, .batches = 8, .iterations = 20, .warmup = 3, .check = 0};
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int *target = NULL;

		if (strcmp(a, "--check") == 0) {
			o->check = 1;
			continue;
		}
		if (strcmp(a, "-n") == 0)
			target = &o->n;
		else if (strcmp(a, "-b") == 0)
			target = &o->batches;
		else if (strcmp(a, "-i") == 0)
			target = &o->iterations;
		else if (strcmp(a, "-w") == 0)
			target = &o->warmup;
		if (target == NULL || i + 1 >= argc) {
			fprintf(stderr, "fft2d: unknown option or missing value: %s\n", a);
			return -1;
		}
		*target = atoi(argv[++i]);
	}
	return 0;
}

/* In-place radix-2 FFT of n (a power of two) points with stride 1. */
static void fft(double complex *x, int n)
{
	for (int i = 1, j = 0; i < n; i++) {
		int bit = n >> 1;

		for (; j & bit; bit >>= 1)
			j ^= bit;
		j ^= bit;
		if (i < j) {
			double complex t = x[i];

			x[i] = x[j];
			x[j] = t;
		}
	}
	for (int len = 2; len <= n; len <<= 1) {
		double complex w = cexp(-2.0 * M_PI * I / len);

		for (int i = 0; i < n; i += len) {
			double complex wk = 1.0;

			for (int k = 0; k < len / 2; k++) {
				double complex u = x[i + k], v = x[i + k + len / 2] * wk;

				x[i + k] = u + v;
				x[i + k + len / 2] = u - v;
				wk *= w;
			}
		}
	}
}

/* The input at global (row, col): the same on every run and every rank count. */
static double complex input(int row, int col)
{
	uint32_t h = (uint32_t)row * 2654435761u ^ (uint32_t)col * 40503u;

	return (double)(h % 1000) / 1000.0 + I * (double)((h >> 10) % 1000) / 1000.0;
}

static double now(void)
{
	return MPI_Wtime();
}

/*
 * One 2-D FFT of `rows' (n / p rows, filled from input()) into `cols' (n / p columns, each as a
 * row of n), with `send' and `recv' as the batches' staging. Adds to *compute and *wait.
 */
static void fft2d(const struct options *o, int rank, int p, double complex *rows, double complex *send,
		  double complex *recv, double complex *cols, double *compute, double *wait)
{
	int local = o->n / p, per = local / o->batches;
	MPI_Request *requests = malloc(sizeof(*requests) * (size_t)o->batches);
	double t0 = now(), t1;

	for (int r = 0; r < local; r++)
		for (int c = 0; c < o->n; c++)
			rows[(size_t)r * o->n + c] = input(rank * local + r, c);
	for (int b = 0; b < o->batches; b++) {
		double complex *out = send + (size_t)b * per * o->n;

		for (int r = b * per; r < (b + 1) * per; r++)
			fft(rows + (size_t)r * o->n, o->n);
		/* block for rank q: this batch's rows, columns q*local .. (q+1)*local - 1 */
		for (int q = 0; q < p; q++)
			for (int r = 0; r < per; r++)
				memcpy(out + ((size_t)q * per + r) * local,
				       rows + (size_t)(b * per + r) * o->n + (size_t)q * local,
				       sizeof(double complex) * (size_t)local);
		MPI_Ialltoall(out, 2 * per * local, MPI_DOUBLE, recv + (size_t)b * per * o->n, 2 * per * local,
			      MPI_DOUBLE, MPI_COMM_WORLD, &requests[b]);
	}
	t1 = now();
	MPI_Waitall(o->batches, requests, MPI_STATUSES_IGNORE);
	*wait += now() - t1;
	*compute += t1 - t0;
	t0 = now();
	/* recv: batch b, from rank q, row r of q's batch, my `local' columns. Column j of mine gathers
	 * global row q*local + b*per + r. */
	for (int b = 0; b < o->batches; b++)
		for (int q = 0; q < p; q++)
			for (int r = 0; r < per; r++) {
				const double complex *block =
					recv + (size_t)b * per * o->n + ((size_t)q * per + r) * local;
				int row = q * local + b * per + r;

				for (int j = 0; j < local; j++)
					cols[(size_t)j * o->n + row] = block[j];
			}
	for (int j = 0; j < local; j++)
		fft(cols + (size_t)j * o->n, o->n);
	*compute += now() - t0;
	free(requests);
}

/* Rank 0: the 2-D DFT of the whole input, by definition, checked against every rank's columns. */
static int check(const struct options *o, int rank, int p, const double complex *cols)
{
	int n = o->n, local = n / p, bad = 0;
	double complex *all = rank == 0 ? malloc(sizeof(*all) * (size_t)n * n) : NULL;

	MPI_Gather(cols, 2 * local * n, MPI_DOUBLE, all, 2 * local * n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	if (rank == 0) {
		for (int kc = 0; kc < n && !bad; kc++)
			for (int kr = 0; kr < n && !bad; kr++) {
				double complex sum = 0;

				for (int r = 0; r < n; r++)
					for (int c = 0; c < n; c++)
						sum += input(r, c) * cexp(-2.0 * M_PI * I *
									  ((double)kr * r / n + (double)kc * c / n));
				if (cabs(sum - all[(size_t)kc * n + kr]) > 1e-6 * n * n) {
					fprintf(stderr, "fft2d: mismatch at (%d, %d): %g%+gi, expected %g%+gi\n", kr,
						kc, creal(all[(size_t)kc * n + kr]), cimag(all[(size_t)kc * n + kr]),
						creal(sum), cimag(sum));
					bad = 1;
				}
			}
		free(all);
	}
	MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
	return bad;
}

int main(int argc, char **argv)
{
	struct options o;
	int rank, p, local, status = 0;
	double compute = 0, wait = 0, total, sums[3], mine[3];
	double complex *rows, *send, *recv, *cols;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &p);
	if (parse(argc, argv, &o) != 0 || o.n < 2 || (o.n & (o.n - 1)) != 0 || o.n % p != 0 || o.batches < 1 ||
	    (o.n / p) % o.batches != 0 || o.iterations < 1 || o.warmup < 0) {
		if (rank == 0)
			fprintf(stderr, "fft2d: n must be a power of two divisible by the ranks, and n / ranks by the "
					"batches\n");
		MPI_Finalize();
		return 2;
	}
	local = o.n / p;
	rows = malloc(sizeof(*rows) * (size_t)local * o.n);
	send = malloc(sizeof(*send) * (size_t)local * o.n);
	recv = malloc(sizeof(*recv) * (size_t)local * o.n);
	cols = malloc(sizeof(*cols) * (size_t)local * o.n);
	for (int it = 0; it < o.warmup; it++)
		fft2d(&o, rank, p, rows, send, recv, cols, &compute, &wait);
	compute = wait = 0;
	MPI_Barrier(MPI_COMM_WORLD);
	total = now();
	for (int it = 0; it < o.iterations; it++)
		fft2d(&o, rank, p, rows, send, recv, cols, &compute, &wait);
	total = now() - total;
	mine[0] = total / o.iterations * 1e6;
	mine[1] = compute / o.iterations * 1e6;
	mine[2] = wait / o.iterations * 1e6;
	MPI_Reduce(mine, sums, 3, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0)
		printf("fft2d n=%d ranks=%d batches=%d: %.1f us per FFT, compute %.1f us, waiting %.1f us\n", o.n, p,
		       o.batches, sums[0] / p, sums[1] / p, sums[2] / p);
	if (o.check && check(&o, rank, p, cols) != 0)
		status = 1;
	if (rank == 0 && o.check && status == 0)
		printf("fft2d: check passed\n");
	free(rows);
	free(send);
	free(recv);
	free(cols);
	MPI_Finalize();
	return status;
}
