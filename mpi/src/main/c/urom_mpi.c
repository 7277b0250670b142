/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom-java liburom_mpi: MPI_Init, MPI_Init_thread and MPI_Finalize. Init reads the settings,
 * checks that every rank has the same ones (else the library stays off on all), makes the team
 * keyval, connects at once with UROM_MPI_CONNECT=init, and rank 0 prints one line saying what is
 * offloaded. Finalize, before PMPI_Finalize: drains the offloaded collectives, waits for every rank,
 * destroys the teams, the domain, the worker and the service, and with UROM_MPI_STATS=1 rank 0
 * prints the counts summed over the ranks.
 */
#include <stdio.h>
#include <string.h>

#include "um.h"

struct um_state um = {.keyval = MPI_KEYVAL_INVALID};

static void announce(void)
{
	char list[128] = "", bytes[192] = "";
	size_t n = 0;

	if (um.world_rank != 0)
		return;
	if (!um.active) {
		printf(UM_PREFIX "off (%s); every collective goes to MPI\n", um.set.why_off);
		fflush(stdout);
		return;
	}
	for (int c = UROM_COLL_TYPE_COUNT - 1; c >= 0; c--) {
		if (!(um.set.colls & (1u << c)))
			continue;
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", n ? "," : "",
				      um_coll_name((enum urom_coll_type)c));
	}
	if (um.set.colls == 0) {
		printf(UM_PREFIX "on, but UROM_MPI_COLLS=none: every collective goes to MPI\n");
		fflush(stdout);
		return;
	}
	n = 0;
	for (int c = UROM_COLL_TYPE_COUNT - 1; c > UROM_COLL_BARRIER; c--) {
		if (!(um.set.colls & (1u << c)))
			continue;
		n += (size_t)snprintf(bytes + n, sizeof(bytes) - n, "%s%s>=%lu", n ? " " : "",
				      um_coll_name((enum urom_coll_type)c), (unsigned long)um.set.min_bytes[c]);
	}
	printf(UM_PREFIX "offloading %s (%s bytes) to %s workers; %s forms; connecting %s\n", list,
	       n ? bytes : "no size limit", um.set.plugin,
	       um.set.blocking ? "non-blocking and blocking" : "non-blocking",
	       um.set.connect_at_init ? "at MPI_Init" : "at the first offloaded collective");
	fflush(stdout);
}

/* After PMPI_Init(_thread): the library's part. Collective over MPI_COMM_WORLD. */
static void start(int provided)
{
	uint64_t mine[2], all[2];

	um.initialized = 1;
	PMPI_Comm_rank(MPI_COMM_WORLD, &um.world_rank);
	PMPI_Comm_size(MPI_COMM_WORLD, &um.world_size);
	um_settings_read(&um.set);
	if (um.set.enabled && provided == MPI_THREAD_MULTIPLE) {
		um.set.enabled = 0;
		snprintf(um.set.why_off, sizeof(um.set.why_off), "MPI_THREAD_MULTIPLE is not supported");
	}
	if (um.set.enabled || strcmp(um.set.why_off, "UROM_MPI=0") != 0) {
		/* Every rank must decide alike: compare the settings. */
		mine[0] = um_settings_hash(&um.set);
		mine[1] = ~mine[0];
		if (PMPI_Allreduce(mine, all, 2, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS ||
		    all[0] != mine[0] || all[1] != mine[1]) {
			if (um.set.enabled)
				snprintf(um.set.why_off, sizeof(um.set.why_off),
					 "the ranks' UROM_MPI_* settings differ, or one of them is bad");
			um.set.enabled = 0;
		}
	}
	if (um.set.enabled && um_comm_init() != MPI_SUCCESS) {
		snprintf(um.set.why_off, sizeof(um.set.why_off), "creating an attribute key failed");
		um.set.enabled = 0;
	}
	um.active = um.set.enabled;
	announce();
	if (um.active && um.set.connect_at_init)
		um_connect();
}

int MPI_Init(int *argc, char ***argv)
{
	int rc = PMPI_Init(argc, argv), provided = MPI_THREAD_SINGLE;

	if (rc == MPI_SUCCESS) {
		PMPI_Query_thread(&provided);
		start(provided);
	}
	return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	int rc = PMPI_Init_thread(argc, argv, required, provided);

	if (rc == MPI_SUCCESS)
		start(*provided);
	return rc;
}

static void print_stats(void)
{
	uint64_t mine[4] = {um.stats.offloaded, um.stats.fallback, um.stats.failed, um.stats.teams}, all[4] = {0};

	if (PMPI_Reduce(mine, all, 4, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD) != MPI_SUCCESS || um.world_rank != 0)
		return;
	printf(UM_PREFIX "stats: offloaded %lu, fell back %lu, failed %lu, teams %lu (all ranks)\n",
	       (unsigned long)all[0], (unsigned long)all[1], (unsigned long)all[2], (unsigned long)all[3]);
	fflush(stdout);
}

int MPI_Finalize(void)
{
	if (um.active) {
		um_op_drain(0);
		/* No rank takes its worker away while another's collective may still need it. */
		PMPI_Barrier(MPI_COMM_WORLD);
		um_comm_fini();
		um_disconnect();
		if (um.set.stats)
			print_stats();
		um.active = 0;
	}
	return PMPI_Finalize();
}
