/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom-java liburom_mpi: communicators to teams. A communicator's team is an attribute on it
 * (um.keyval), made at the first offloaded collective on it: its members agree on a team id free
 * on all their workers (a PMPI_Allreduce of the used-id bitmaps), create the team with their world
 * ranks as domain ids, and agree that every member succeeded. A communicator whose team cannot be
 * made (an inter-communicator, a failed creation, no id left) keeps a FALLBACK mark so that nothing
 * is retried. The attribute is not copied (a duplicate gets a team of its own) and destroys its
 * team when MPI deletes it: at MPI_Comm_free, or for what is left at MPI_Finalize (um_comm_fini
 * destroys the teams still alive before PMPI_Finalize; the later deletes only free memory).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doca_ctx.h>

#include "um.h"

#define TEAM_WAIT_MS 120000

static void list_add(struct um_team *t)
{
	t->prev = NULL;
	t->next = um.teams;
	if (um.teams != NULL)
		um.teams->prev = t;
	um.teams = t;
}

static void list_del(struct um_team *t)
{
	if (t->prev != NULL)
		t->prev->next = t->next;
	else if (um.teams == t)
		um.teams = t->next;
	if (t->next != NULL)
		t->next->prev = t->prev;
	t->prev = t->next = NULL;
}

static void id_set(uint32_t id, int used)
{
	if (used)
		um.team_ids_used[id / 64] |= 1ull << (id % 64);
	else
		um.team_ids_used[id / 64] &= ~(1ull << (id % 64));
}

/* Destroys the team on this rank's worker (local; the members do so at the same point). */
static void destroy(struct um_team *t)
{
	struct urom_coll_request req = {0};
	enum doca_ctx_states state;
	doca_error_t status;

	if (t->state != UM_TEAM_READY)
		return;
	/* MPI lets a communicator be freed with collectives pending: they complete first. Every member
	 * posted them before its own MPI_Comm_free, so this waits for workers only. */
	um_op_drain(t->id);
	t->state = UM_TEAM_GONE;
	list_del(t);
	/* A worker that is gone took its teams with it. */
	if (um.worker != NULL && doca_ctx_get_state(doca_urom_worker_as_ctx(um.worker), &state) == DOCA_SUCCESS &&
	    state == DOCA_CTX_STATE_RUNNING) {
		status = urom_coll_team_destroy(um.worker, t->id, &req);
		if (status == DOCA_SUCCESS && um_progress_until(&req.done, TEAM_WAIT_MS) != 0)
			status = DOCA_ERROR_TIME_OUT;
		else if (status == DOCA_SUCCESS)
			status = req.status;
		if (status != DOCA_SUCCESS)
			fprintf(stderr, UM_PREFIX "rank %d: destroying team %u failed: %s (reason %s)\n", um.world_rank,
				t->id, doca_error_get_descr(status), urom_coll_reason_name(req.reason));
		else
			id_set(t->id, 0);
	}
}

static int delete_attr(MPI_Comm comm, int keyval, void *value, void *extra)
{
	struct um_team *t = value;

	(void)comm;
	(void)keyval;
	(void)extra;
	destroy(t);
	free(t);
	return MPI_SUCCESS;
}

int um_comm_init(void)
{
	return PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_attr, &um.keyval, NULL);
}

static struct um_team *mark(MPI_Comm comm, enum um_team_state state)
{
	struct um_team *t = calloc(1, sizeof(*t));

	if (t == NULL)
		return NULL;
	t->state = state;
	if (PMPI_Comm_set_attr(comm, um.keyval, t) != MPI_SUCCESS) {
		free(t);
		return NULL;
	}
	return t;
}

/* The members' world ranks, as a range when they are one, else as a list. 0, or -1: not mappable. */
static int members(MPI_Comm comm, int size, struct urom_coll_team_params *p, uint64_t **ids)
{
	MPI_Group group, world;
	int *in, *out, rc = 0;

	*ids = NULL;
	in = malloc(sizeof(int) * (size_t)size);
	out = malloc(sizeof(int) * (size_t)size);
	*ids = malloc(sizeof(uint64_t) * (size_t)size);
	if (in == NULL || out == NULL || *ids == NULL) {
		rc = -1;
		goto out;
	}
	for (int i = 0; i < size; i++)
		in[i] = i;
	PMPI_Comm_group(comm, &group);
	PMPI_Comm_group(MPI_COMM_WORLD, &world);
	if (PMPI_Group_translate_ranks(group, size, in, world, out) != MPI_SUCCESS)
		rc = -1;
	PMPI_Group_free(&group);
	PMPI_Group_free(&world);
	for (int i = 0; rc == 0 && i < size; i++) {
		if (out[i] == MPI_UNDEFINED)
			rc = -1;
		else
			(*ids)[i] = (uint64_t)out[i];
	}
	if (rc != 0)
		goto out;
	p->members = UROM_COLL_MEMBERS_RANGE;
	p->start = (*ids)[0];
	p->stride = size > 1 && (*ids)[1] > (*ids)[0] ? (*ids)[1] - (*ids)[0] : 1;
	for (int i = 1; i < size; i++)
		if ((*ids)[i] != p->start + (uint64_t)i * p->stride)
			p->members = UROM_COLL_MEMBERS_LIST;
	if (p->members == UROM_COLL_MEMBERS_LIST) {
		if ((unsigned)size > UROM_COLL_TEAM_LIST_MAX)
			rc = -1;
		p->start = p->stride = 0;
		p->member_ids = *ids;
	}
out:
	free(in);
	free(out);
	return rc;
}

/* Creates comm's team: collective over comm. */
static struct um_team *create(MPI_Comm comm)
{
	static int warned;
	uint64_t used[sizeof(um.team_ids_used) / sizeof(uint64_t)];
	struct urom_coll_team_params p = {0};
	struct urom_coll_request req = {0};
	int size, rank, ok, all[2], mine[2];
	uint64_t *ids = NULL;
	uint32_t id = 0;
	struct um_team *t;
	char why[256] = "";

	PMPI_Comm_size(comm, &size);
	PMPI_Comm_rank(comm, &rank);
	ok = members(comm, size, &p, &ids) == 0;
	if (!ok)
		snprintf(why, sizeof(why), "its members are not all in MPI_COMM_WORLD, or a list of more than %u",
			 UROM_COLL_TEAM_LIST_MAX);
	/* Every member takes part in both agreements, whatever its own verdict. */
	memcpy(used, um.team_ids_used, sizeof(used));
	used[0] |= 1;
	if (PMPI_Allreduce(MPI_IN_PLACE, used, (int)(sizeof(used) / sizeof(used[0])), MPI_UINT64_T, MPI_BOR, comm) !=
	    MPI_SUCCESS)
		ok = 0;
	for (uint32_t i = 1; ok && id == 0 && i <= UROM_COLL_TEAM_ID_MAX; i++)
		if (!(used[i / 64] & (1ull << (i % 64))))
			id = i;
	if (ok && id == 0) {
		ok = 0;
		snprintf(why, sizeof(why), "no team id is free on all its workers");
	}
	if (ok) {
		p.team_id = id;
		p.size = (uint32_t)size;
		p.rank = (uint32_t)rank;
		p.timeout_ms = um.set.timeout_ms;
		if (urom_coll_team_create(um.worker, &p, &req) != DOCA_SUCCESS ||
		    um_progress_until(&req.done, TEAM_WAIT_MS) != 0 || req.status != DOCA_SUCCESS) {
			ok = 0;
			snprintf(why, sizeof(why), "creating team %u failed: %s (%s, detail %u)", id,
				 req.done ? doca_error_get_descr(req.status) : "no answer",
				 urom_coll_reason_name(req.reason), req.detail);
		}
	}
	free(ids);
	mine[0] = ok;
	mine[1] = ok ? size : rank;
	if (PMPI_Allreduce(mine, all, 2, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
		all[0] = 0;
	if (!all[0]) {
		/* One line per process at most: a cause such as HOST_UNREACHABLE would repeat for every one. */
		if (!ok && all[1] == rank && !warned) {
			warned = 1;
			fprintf(stderr, UM_PREFIX "rank %d: a communicator of %d ranks falls back to MPI: %s%s\n",
				um.world_rank, size, why,
				req.reason == UROM_COLL_R_HOST_UNREACHABLE
					? "; the worker cannot read this process's memory (docs/collectives.md, Who "
					  "may reach whom)"
					: "");
		}
		/* All ranks agreed that even a team of all of them cannot be made: stop trying. */
		if (size == um.world_size)
			um.conn = UM_CONN_FAILED;
		if (ok) {
			struct um_team tmp = {.id = id, .state = UM_TEAM_READY};

			list_add(&tmp);
			id_set(id, 1);
			destroy(&tmp);
		}
		return mark(comm, UM_TEAM_FALLBACK);
	}
	t = mark(comm, UM_TEAM_READY);
	id_set(id, 1);
	if (t == NULL) {
		/* Cannot remember it: nothing else will use it either. */
		struct um_team tmp = {.id = id, .state = UM_TEAM_READY};

		list_add(&tmp);
		destroy(&tmp);
		return NULL;
	}
	t->id = id;
	list_add(t);
	um.stats.teams++;
	return t;
}

struct um_team *um_comm_team(MPI_Comm comm)
{
	struct um_team *t = NULL;
	int found = 0, inter = 0;

	if (PMPI_Comm_get_attr(comm, um.keyval, &t, &found) != MPI_SUCCESS)
		return NULL;
	if (found)
		return t->state == UM_TEAM_READY ? t : NULL;
	if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter) {
		mark(comm, UM_TEAM_FALLBACK);
		return NULL;
	}
	if (um.conn == UM_CONN_NONE) {
		int size;

		/* Connecting is collective over MPI_COMM_WORLD: only a call on all of its ranks may do it. */
		PMPI_Comm_size(comm, &size);
		if (size != um.world_size)
			return NULL;
		um_connect();
	}
	if (um.conn != UM_CONN_READY)
		return NULL;
	t = create(comm);
	return t != NULL && t->state == UM_TEAM_READY ? t : NULL;
}

void um_comm_fini(void)
{
	while (um.teams != NULL)
		destroy(um.teams);
}
