/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The collectives plugin's internal types, shared by its files (docs/collectives.md is the contract).
 *
 * One plugin instance is one struct coll_ctx: a UCP context and worker, the teams, the host
 * connections and the messages in flight all hang off it, so instances live side by side in one
 * process. The worker drives an instance from one thread: nothing locks. UCX callbacks only record a
 * completion (coll_msg on ctx->done); progress() acts on it, so no state changes under UCX's feet.
 */
#ifndef COLL_H_
#define COLL_H_

#include <stddef.h>
#include <stdint.h>

#include <ucp/api/ucp.h>

#include <urom_coll.h>
#include <urom_plugin.h>
#include <urom_plugin_util.h>

/*
 * A pipelined collective's staging per peer: at most this many receives posted, and this many chunks
 * read from the host and not yet sent; chunks sent on as received add what the next rank has not
 * taken yet (see coll_stream.c).
 */
#define COLL_WINDOW 4
/* progress() runs ucp_worker_progress until it reports nothing done, at most this many times. */
#define COLL_PROGRESS_ROUNDS 64
/* While a team has collectives, how often it looks whether its host exited. */
#define COLL_HOST_CHECK_NS 10000000LL
/* close() waits at most this long for endpoints and requests to finish. */
#define COLL_CLOSE_DEADLINE_NS 2000000000LL

struct coll_ctx;
struct coll_team;
struct coll_op;

/* Where a notification goes: the command's connection, plugin id, framework context and cookie. */
struct coll_reply {
	uint64_t dest_id;
	uint64_t type;
	uint64_t urom_context;
	uint64_t cookie;
	uint16_t cmd;
};

/* A failure: the status a notification carries, the protocol's reason and its detail. */
struct coll_fail {
	urom_status_t status;
	uint32_t reason;
	uint32_t detail;
};

/*
 * The process behind one host connection, shared by its teams and handles: pid and the pidfd the
 * framework handed over (closed when the last user goes). A host is gone once its pidfd is readable.
 */
struct coll_host {
	urom_list_link_t link;
	uint64_t dest_id;
	int32_t pid;
	int pidfd;
	uint32_t users;   /* teams and handles */
	uint32_t handles; /* MEM_MAP handles of this connection */
};

/* A MEM_MAP: a checked range of one host connection's memory. */
struct coll_memh {
	urom_list_link_t link;
	uint64_t id;
	struct coll_host *host;
	uint64_t address;
	uint64_t length;
	uint32_t access;
};

enum coll_msg_role {
	COLL_MSG_HELLO_SEND,
	COLL_MSG_HELLO_RECV,
	COLL_MSG_AGREE_SEND,
	COLL_MSG_AGREE_RECV,
	COLL_MSG_DATA_SEND,
	COLL_MSG_DATA_RECV,
};

/*
 * One UCP tagged send or receive with the buffer it owns (malloc'ed, freed with the message).
 * In ctx->inflight while UCX holds it, then on ctx->done until progress() hands it to its owner
 * (team or op). An owner that goes away first orphans it (team = op = NULL, receive cancelled):
 * it is freed when UCX completes it.
 */
struct coll_msg {
	urom_list_link_t link;
	struct coll_ctx *ctx;
	struct coll_team *team;
	struct coll_op *op;
	void *request;
	uint8_t *buf;
	size_t length;   /* bytes sent, or the receive's capacity (the exact length expected) */
	size_t received; /* a receive's length once complete */
	ucs_status_t status;
	uint8_t role;   /* enum coll_msg_role */
	uint32_t peer;  /* rank */
	uint32_t piece; /* the owner's: which piece or round */
	uint32_t chunk;
};

/*
 * The endpoint to one member of a team. Outlives its team while the endpoint closes (on
 * ctx->closing_eps, team NULL): UCX may still call its error handler until then.
 */
struct coll_peer {
	urom_list_link_t link;
	struct coll_team *team;
	uint32_t rank;
	ucp_ep_h ep;
	void *close_request;
};

enum coll_team_state {
	COLL_TEAM_CREATING,
	COLL_TEAM_READY,
	COLL_TEAM_FAILED,
	COLL_TEAM_REFUSING, /* refused locally, telling the others with HELLOs before it goes */
};

struct coll_team {
	urom_list_link_t link;
	struct coll_ctx *ctx;
	struct coll_host *host;
	uint64_t dest_id;
	uint32_t id;
	uint32_t size;
	uint32_t rank;
	uint32_t chunk_bytes;
	uint32_t small_bytes;
	uint32_t timeout_ms;
	uint64_t members_hash;
	uint64_t *members;        /* domain ids by rank */
	struct coll_peer **peers; /* by rank; NULL for this rank */
	int state;
	struct coll_fail failure; /* once FAILED: what later POSTs are told (TEAM_FAILED, detail) */
	uint32_t peer_failed;     /* set by an endpoint's error handler: 1 + the rank */
	struct coll_reply create_reply;
	int64_t create_deadline;
	uint32_t hellos;         /* HELLOs received and agreed */
	uint32_t refusal;        /* REFUSING: the reason sent */
	uint32_t hello_sends;    /* HELLO sends not yet completed */
	int counted;             /* holds one of the worker's team slots */
	int64_t next_host_check; /* while collectives are queued: when to look at the host's pidfd again */
	uint64_t next_sequence;
	uint32_t posted;      /* collectives queued or running */
	urom_list_link_t ops; /* by sequence; the first runs */
};

struct coll_ctx {
	struct urom_worker_ctx *wctx;
	ucp_context_h context;
	ucp_worker_h worker;
	ucp_address_t *address;
	size_t address_len;
	int wakeup_fd;
	int closing;
	uint32_t nteams;
	uint64_t next_memh;
	urom_list_link_t notifications;
	urom_list_link_t teams;
	urom_list_link_t hosts;
	urom_list_link_t memhs;
	urom_list_link_t inflight;    /* messages UCX holds */
	urom_list_link_t done;        /* messages UCX completed, not yet handled */
	urom_list_link_t closing_eps; /* struct coll_peer whose endpoint closes */
};

/* ---- worker_coll.c ---- */
int64_t coll_now_ns(void);

/* ---- coll_cmd.c: commands and notifications ---- */
void coll_run_command(struct coll_ctx *ctx, struct urom_worker_cmd_desc *desc);
/* Queues the answer to a command: header (with failure, or success when fail is NULL) and body. */
void coll_notify(struct coll_ctx *ctx, const struct coll_reply *reply, const struct coll_fail *fail, const void *body,
		 size_t body_len);
/* The status that goes with a reason (docs/collectives.md, "Statuses and reasons"). */
urom_status_t coll_reason_status(uint32_t reason);
void coll_notify_post(struct coll_ctx *ctx, const struct coll_reply *reply, const struct coll_fail *fail,
		      uint32_t team_id, uint64_t sequence);

/* ---- coll_host.c: the hosts' memory ---- */
/* The host of dest_id, looked up (and kept) on first use; NULL with *fail set. */
struct coll_host *coll_host_get(struct coll_ctx *ctx, uint64_t dest_id, struct coll_fail *fail);
void coll_host_put(struct coll_ctx *ctx, struct coll_host *host);
int coll_host_gone(const struct coll_host *host);
/* Reads or writes len bytes of the host; 0, or the reason (NOT_MAPPED, HOST_GONE). */
uint32_t coll_host_read(const struct coll_host *host, uint64_t address, void *buf, size_t len);
uint32_t coll_host_write(const struct coll_host *host, uint64_t address, const void *buf, size_t len);
/* A range to check against the host's mappings: need is UROM_COLL_ACCESS_*. */
struct coll_range {
	uint64_t address;
	uint64_t length;
	uint32_t need;
	uint64_t memh;
};
/* Checks ranges (length 0 ones are skipped); 0, or the first failing reason. */
uint32_t coll_host_check(struct coll_ctx *ctx, struct coll_host *host, const struct coll_range *ranges, int count);
void coll_mem_map(struct coll_ctx *ctx, const struct coll_reply *reply, const struct urom_coll_cmd_mem_map *cmd);
void coll_mem_unmap(struct coll_ctx *ctx, const struct coll_reply *reply, const struct urom_coll_cmd_mem_unmap *cmd);
void coll_memh_free_all(struct coll_ctx *ctx);

/* ---- coll_msg.c: UCP messages ---- */
/* Sends len bytes (copied) with the tag; NULL with *fail set when UCX refuses at once. */
struct coll_msg *coll_msg_send(struct coll_ctx *ctx, ucp_ep_h ep, uint64_t tag, const void *data, size_t len,
			       struct coll_fail *fail);
/* Sends the buffer buf (malloc'ed, now the message's). */
struct coll_msg *coll_msg_send_owned(struct coll_ctx *ctx, ucp_ep_h ep, uint64_t tag, uint8_t *buf, size_t len,
				     struct coll_fail *fail);
/* Receives exactly len bytes with the tag (full mask). */
struct coll_msg *coll_msg_recv(struct coll_ctx *ctx, uint64_t tag, size_t len, struct coll_fail *fail);
void coll_msg_free(struct coll_msg *msg);
/* Orphans every message in flight of the team (op == NULL) or of the op. */
void coll_msg_orphan(struct coll_ctx *ctx, struct coll_team *team, struct coll_op *op);
/* The failure a completed message stands for: 0 when it is fine. */
int coll_msg_failed(const struct coll_msg *msg, struct coll_fail *fail);
void coll_fail_set(struct coll_fail *fail, urom_status_t status, uint32_t reason, uint32_t detail);
void coll_fail_transport(struct coll_fail *fail, ucs_status_t status);

/* ---- coll_team.c: teams ---- */
void coll_team_create(struct coll_ctx *ctx, const struct coll_reply *reply, const struct urom_coll_cmd_team_create *cmd,
		      size_t len);
void coll_team_destroy_cmd(struct coll_ctx *ctx, const struct coll_reply *reply, uint32_t team_id);
struct coll_team *coll_team_find(struct coll_ctx *ctx, uint32_t team_id);
void coll_team_hello_done(struct coll_team *team, struct coll_msg *msg);
/* Makes the team FAILED: every queued or running collective fails with fail; later POSTs get TEAM_FAILED. */
void coll_team_fail(struct coll_team *team, const struct coll_fail *fail, uint32_t failed_rank);
void coll_team_progress(struct coll_team *team, int64_t now);
void coll_team_free(struct coll_team *team);
void coll_eps_reap(struct coll_ctx *ctx, int force);

/* ---- coll_op.c: a collective's life ---- */
void coll_post(struct coll_ctx *ctx, const struct coll_reply *reply, const struct urom_coll_cmd_post *cmd);
void coll_op_msg_done(struct coll_op *op, struct coll_msg *msg);
/* Runs the team's first collective as far as it goes; 1 when one is in flight. */
int coll_op_progress(struct coll_team *team, int64_t now);
/* Ends an op with a failure (answered), or with success when fail is NULL; frees it. */
void coll_op_finish(struct coll_op *op, const struct coll_fail *fail);

#endif /* COLL_H_ */
