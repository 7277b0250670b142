/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom-java liburom_mpi: the internal contract between the library's files.
 *
 * The library is an MPI profiling-interface layer: it defines MPI_* entry points and calls the MPI
 * library through PMPI_*. It hands the non-blocking collectives (and, behind UROM_MPI_BLOCKING, the
 * blocking ones) of an unmodified program to the collectives plugin's workers, one worker per rank,
 * and hands everything it cannot offload to MPI unchanged.
 *
 * State: one process-wide `um' (below), owned by this library, set up in MPI_Init(_thread) and torn
 * down in MPI_Finalize before PMPI_Finalize. Threads: the program may call MPI from one thread at a
 * time (MPI_THREAD_SINGLE, FUNNELED, SERIALIZED); under MPI_THREAD_MULTIPLE the library stays off.
 * Nothing here locks.
 *
 * Agreement: every decision that changes which MPI calls a rank makes (offload or fall back,
 * connect, create a team) is either a pure function of the call's arguments and the settings (the
 * same on every rank, which init checks), or is agreed with a PMPI collective on the communicator
 * at a point where every member makes the same collective call.
 */
#ifndef UM_H_
#define UM_H_

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#include <doca_dev.h>
#include <doca_pe.h>
#include <doca_urom.h>

#include "urom_coll_host.h"

#define UM_PREFIX "urom_mpi: "

/* ------------------------------------------------------------------ settings (um_settings.c) */

struct um_settings {
	int enabled;                              /* 0: UROM_MPI=0, a bad value, or the ranks disagree */
	unsigned colls;                           /* bit (1 << enum urom_coll_type) per offloaded collective */
	uint64_t min_bytes[UROM_COLL_TYPE_COUNT]; /* per collective; BARRIER's is not used */
	int blocking;                             /* UROM_MPI_BLOCKING=1: the blocking forms too */
	int connect_at_init;                      /* UROM_MPI_CONNECT=init */
	int stats;                                /* UROM_MPI_STATS=1: a summary line at finalize */
	int verbose;                              /* UROM_MPI_VERBOSE=1: the DOCA libraries' messages on stderr */
	uint32_t timeout_ms;                      /* UROM_MPI_TIMEOUT_MS: the teams' time limit, 0: the plugin's */
	char plugin[64];                          /* UROM_MPI_PLUGIN */
	char device[64];                          /* UROM_MPI_DEVICE: ibdev name, empty: the first device */
	char why_off[256];                        /* when !enabled: the one line that says why */
};

/* Reads the environment into s. Returns 0, or -1 with s->why_off naming the variable and why. */
int um_settings_read(struct um_settings *s);
/* A hash of everything that decides what is offloaded, for the ranks to compare. */
uint64_t um_settings_hash(const struct um_settings *s);
/* The collective's lower-case name ("allreduce"). */
const char *um_coll_name(enum urom_coll_type coll);

/* --------------------------------------------------------------- connection (um_service.c) */

enum um_conn { UM_CONN_NONE, UM_CONN_READY, UM_CONN_FAILED };

/* Connects every rank of MPI_COMM_WORLD (collective over it): service, worker, domain. Every rank
 * ends in the same state, READY or FAILED; on FAILED one rank prints one warning line. */
void um_connect(void);
/* Stops the domain, the worker, the service (after the teams are gone). Local. */
void um_disconnect(void);
/* Progresses the engine until it has nothing more to do; returns how many events it handled. */
int um_progress(void);
/* Progresses until *flag is set or timeout_ms pass (then -1); yields the CPU when idle. */
int um_progress_until(const volatile int *flag, int64_t timeout_ms);
int64_t um_now_ms(void);

/* ---------------------------------------------------------------------- teams (um_comm.c) */

enum um_team_state { UM_TEAM_READY, UM_TEAM_FALLBACK, UM_TEAM_GONE };

/* A communicator's team, cached on it as an attribute (um.keyval); owned by the attribute. */
struct um_team {
	uint32_t id;
	enum um_team_state state;
	struct um_team *prev, *next; /* um.teams: the teams whose communicators are alive */
};

int um_comm_init(void); /* makes the keyval; MPI error code */
/* The communicator's team, created on first use (collective over comm); NULL: fall back. */
struct um_team *um_comm_team(MPI_Comm comm);
/* Destroys every live team (at finalize, after the barrier); MPI deletes the attributes later, which
 * then only frees their memory. */
void um_comm_fini(void);

/* ------------------------------------------------------------------ requests (um_request.c) */

/* One offloaded collective. Owned by the library until both the plugin has answered (answered)
 * and MPI has freed the generalized request (mpi_freed). */
struct um_op {
	struct urom_coll_request req; /* the plugin's; valid until answered */
	MPI_Request mpi;              /* the generalized request handed to the program */
	enum urom_coll_type coll;
	uint32_t team_id;
	int answered, mpi_freed, user_freed;
	int error;                 /* MPI error code: MPI_SUCCESS or one of um_error_code() */
	struct um_op *prev, *next; /* um.inflight while not answered */
};

/* Posts args on team and hands back a generalized request in *request. MPI error code; on any
 * error nothing was posted. */
int um_op_post(struct um_team *team, const struct urom_coll_args *args, MPI_Request *request);
/* Whether `request' is an offloaded collective still in flight; the op if so. */
struct um_op *um_op_find(MPI_Request request);
/* Progresses until every offloaded collective (of team_id; 0: of every team) has been answered. */
void um_op_drain(uint32_t team_id);

/* ------------------------------------------------------------------------- the process */

struct um_stats {
	uint64_t offloaded, fallback, failed, teams;
};

struct um_state {
	struct um_settings set;
	int initialized; /* MPI_Init(_thread) has run our part */
	int active;      /* enabled, and no MPI_THREAD_MULTIPLE */
	int world_rank, world_size;
	enum um_conn conn;
	struct doca_dev *dev;
	struct doca_pe *pe;
	struct doca_urom_service *service;
	struct doca_urom_worker *worker;
	struct doca_urom_domain *domain;
	int keyval;
	uint64_t team_ids_used[(UROM_COLL_TEAM_ID_MAX + 64) / 64]; /* bit i: id i in use on this worker */
	struct um_team *teams;
	struct um_op *inflight;
	uint64_t n_inflight;
	struct um_stats stats;
};

extern struct um_state um;

#endif /* UM_H_ */
