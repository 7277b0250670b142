/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom-java: the collectives plugin's protocol, the one home of its bytes.
 *
 * Three contracts live here, each also described in docs/collectives.md:
 *   - the commands a host sends to its worker's collectives plugin and the notifications it gets
 *     back (struct urom_coll_cmd_*, struct urom_coll_notif_*);
 *   - the enumerations both carry (collective, datatype, operation, reason);
 *   - the worker-to-worker messages (UCP tags and the fixed payloads of HELLO and AGREE).
 *
 * Every layout is little-endian, naturally aligned, with no padding the static assertions do not
 * pin; a command's length is exactly its struct's size (TEAM_CREATE: plus 8 bytes per listed
 * member). Every reserved field is zero on the wire and checked. The Java codecs
 * (dev.urom.plugins.coll.protocol) are held to these offsets by a contract test.
 */
#ifndef UROM_COLL_H_
#define UROM_COLL_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The plugin version both worker sides report (urom_plugin_get_version, Plugin-Version). */
#define UROM_COLL_PLUGIN_VERSION 1
/* The version field of every command, notification and worker-to-worker payload. */
#define UROM_COLL_PROTOCOL_VERSION 1
/* The transport both worker sides name, so that C and Java ranks find each other in a domain. */
#define UROM_COLL_TRANSPORT "ucp-coll"

/* Bounds. */
#define UROM_COLL_TEAM_ID_MAX 4095u    /* team ids are 1..4095 */
#define UROM_COLL_TEAM_SIZE_MAX 32768u /* ranks per team: a ring's 2p - 3 steps fit the tag's 16 bits */
#define UROM_COLL_TEAM_LIST_MAX 256u   /* members of a team given as a list */
#define UROM_COLL_TEAMS_PER_WORKER 64u /* teams one plugin instance holds at once */
#define UROM_COLL_INFLIGHT_MAX 1024u   /* posted, not yet completed collectives per team */
#define UROM_COLL_MEMH_MAX 1024u       /* registered ranges per host connection */

/* Knobs of a team (TEAM_CREATE; 0 selects the default); every member must give the same. */
#define UROM_COLL_CHUNK_DEFAULT (64u * 1024u) /* bytes per pipelined message */
#define UROM_COLL_CHUNK_MIN 4096u
#define UROM_COLL_CHUNK_MAX (4u * 1024u * 1024u)
#define UROM_COLL_SMALL_DEFAULT (16u * 1024u) /* at or below: latency-optimal algorithms */
#define UROM_COLL_SMALL_MAX (1024u * 1024u)
#define UROM_COLL_TIMEOUT_MS_DEFAULT 30000u /* a collective, or a team's creation, fails after */
#define UROM_COLL_TIMEOUT_MS_MAX 3600000u

/* ---------------------------------------------------------------------------------------------
 * Enumerations
 * ------------------------------------------------------------------------------------------- */

enum urom_coll_type {
	UROM_COLL_BARRIER = 0,
	UROM_COLL_BCAST = 1,
	UROM_COLL_REDUCE = 2,
	UROM_COLL_ALLREDUCE = 3,
	UROM_COLL_ALLGATHER = 4,
	UROM_COLL_ALLTOALL = 5,
};
#define UROM_COLL_TYPE_COUNT 6

enum urom_coll_dtype {
	UROM_COLL_INT8 = 0,
	UROM_COLL_INT16 = 1,
	UROM_COLL_INT32 = 2,
	UROM_COLL_INT64 = 3,
	UROM_COLL_UINT8 = 4,
	UROM_COLL_UINT16 = 5,
	UROM_COLL_UINT32 = 6,
	UROM_COLL_UINT64 = 7,
	UROM_COLL_FLOAT32 = 8,
	UROM_COLL_FLOAT64 = 9,
};
#define UROM_COLL_DTYPE_COUNT 10

/*
 * Reduction operations. Integers wrap (two's complement); BAND, BOR and BXOR take integers only.
 * Floating point, identical bytes on every rank and in both worker sides:
 *   - SUM, PROD: IEEE 754 round-to-nearest in the protocol's order (docs/collectives.md);
 *   - MIN, MAX: -0.0 < +0.0; a NaN operand makes the result NaN;
 *   - every NaN result is written as the positive canonical quiet NaN (0x7fc00000,
 *     0x7ff8000000000000), whatever the operands' payloads.
 */
enum urom_coll_op {
	UROM_COLL_SUM = 0,
	UROM_COLL_PROD = 1,
	UROM_COLL_MIN = 2,
	UROM_COLL_MAX = 3,
	UROM_COLL_BAND = 4,
	UROM_COLL_BOR = 5,
	UROM_COLL_BXOR = 6,
};
#define UROM_COLL_OP_COUNT 7

/*
 * Why a command or a collective failed, beside its urom_status_t; `detail' says more where noted.
 */
enum urom_coll_reason {
	UROM_COLL_R_NONE = 0,
	UROM_COLL_R_BAD_COMMAND = 1, /* unknown type, wrong length or version, reserved bits set */
	UROM_COLL_R_UNKNOWN_COLL = 2,
	UROM_COLL_R_UNKNOWN_DTYPE = 3,
	UROM_COLL_R_UNKNOWN_OP = 4,
	UROM_COLL_R_OP_NOT_FOR_DTYPE = 5, /* a bitwise operation on floating point */
	UROM_COLL_R_COUNT_OVERFLOW = 6,   /* the collective's byte size does not fit 63 bits */
	UROM_COLL_R_BAD_ROOT = 7,         /* root >= team size */
	UROM_COLL_R_BAD_FLAGS = 8,        /* unknown flag, or IN_PLACE where the collective has none */
	UROM_COLL_R_NOT_MAPPED = 9,       /* a range the host process does not have mapped */
	UROM_COLL_R_NOT_READABLE = 10,    /* a source range the host cannot read */
	UROM_COLL_R_NOT_WRITABLE = 11,    /* a destination range the host cannot write */
	UROM_COLL_R_OVERLAP = 12,         /* source and destination overlap without IN_PLACE */
	UROM_COLL_R_BAD_MEMH = 13,        /* unknown handle, range outside it, or access it lacks */
	UROM_COLL_R_TEAM_UNKNOWN = 14,
	UROM_COLL_R_TEAM_EXISTS = 15,
	UROM_COLL_R_BAD_MEMBERS = 16,      /* size, rank, stride, list or a member outside the domain */
	UROM_COLL_R_TEAM_FAILED = 17,      /* the team failed earlier; detail: the rank that failed */
	UROM_COLL_R_NO_DOMAIN = 18,        /* the worker is in no domain, or a member's address is unknown */
	UROM_COLL_R_HOST_UNREACHABLE = 19, /* the worker cannot reach this host's memory */
	UROM_COLL_R_MISMATCH = 20,         /* ranks posted different collectives; detail: the field (below) */
	UROM_COLL_R_PEER_REFUSED = 21,     /* another rank refused its own arguments; detail: that rank */
	UROM_COLL_R_PEER_FAILED = 22,      /* a peer's worker died or became unreachable; detail: its rank */
	UROM_COLL_R_TIMEOUT = 23,          /* the team's time limit passed */
	UROM_COLL_R_HOST_GONE = 24,        /* the host process exited */
	UROM_COLL_R_TOO_MANY = 25,         /* a bound above: teams, collectives in flight, handles */
	UROM_COLL_R_TEAM_DESTROYED = 26,   /* the team was destroyed with the collective pending */
	UROM_COLL_R_KNOBS = 27,            /* a knob out of its bounds, or members disagree on one */
	UROM_COLL_R_NO_MEMORY = 28,
	UROM_COLL_R_TRANSPORT = 29, /* UCX failed locally; detail: its ucs_status_t, negated */
};
#define UROM_COLL_REASON_COUNT 30

/* detail of UROM_COLL_R_MISMATCH: the first field (in this order) on which ranks differ. */
enum urom_coll_field {
	UROM_COLL_F_COLL = 1,
	UROM_COLL_F_DTYPE = 2,
	UROM_COLL_F_OP = 3,
	UROM_COLL_F_ROOT = 4,
	UROM_COLL_F_COUNT = 5,
};

/* ---------------------------------------------------------------------------------------------
 * Commands (host -> worker)
 * ------------------------------------------------------------------------------------------- */

enum urom_coll_cmd_type {
	UROM_COLL_CMD_TEAM_CREATE = 1,
	UROM_COLL_CMD_TEAM_DESTROY = 2,
	UROM_COLL_CMD_MEM_MAP = 3,
	UROM_COLL_CMD_MEM_UNMAP = 4,
	UROM_COLL_CMD_POST = 5,
};

struct urom_coll_cmd_hdr {
	uint16_t type;    /* enum urom_coll_cmd_type */
	uint16_t version; /* UROM_COLL_PROTOCOL_VERSION */
	uint32_t reserved;
	uint64_t cookie; /* the host's; copied into the answer */
};

/* Team members: rank i is domain id start + i * stride, or members[i]. */
#define UROM_COLL_MEMBERS_RANGE 0u
#define UROM_COLL_MEMBERS_LIST 1u

struct urom_coll_cmd_team_create {
	struct urom_coll_cmd_hdr hdr;
	uint32_t team_id;     /* 1..UROM_COLL_TEAM_ID_MAX, the same on every member */
	uint32_t size;        /* 1..UROM_COLL_TEAM_SIZE_MAX */
	uint32_t rank;        /* this worker's rank; its domain id must map to this worker */
	uint32_t members;     /* UROM_COLL_MEMBERS_RANGE or _LIST */
	uint64_t start;       /* range: the domain id of rank 0 */
	uint64_t stride;      /* range: >= 1 */
	uint32_t chunk_bytes; /* knobs: 0 for the default, else within bounds */
	uint32_t small_bytes;
	uint32_t timeout_ms;
	uint32_t reserved;
	uint64_t member_ids[]; /* list: `size' domain ids, all different */
};

struct urom_coll_cmd_team_destroy {
	struct urom_coll_cmd_hdr hdr;
	uint32_t team_id;
	uint32_t reserved;
};

/* Access a registered range must allow. */
#define UROM_COLL_ACCESS_READ 1u
#define UROM_COLL_ACCESS_WRITE 2u

struct urom_coll_cmd_mem_map {
	struct urom_coll_cmd_hdr hdr;
	uint64_t address; /* in the host process */
	uint64_t length;  /* >= 1 */
	uint32_t access;  /* UROM_COLL_ACCESS_* (at least one) */
	uint32_t reserved;
};

struct urom_coll_cmd_mem_unmap {
	struct urom_coll_cmd_hdr hdr;
	uint64_t memh;
};

/* The destination is also the source (see docs/collectives.md for each collective). */
#define UROM_COLL_IN_PLACE 1u

struct urom_coll_cmd_post {
	struct urom_coll_cmd_hdr hdr;
	uint32_t team_id;
	uint16_t coll;  /* enum urom_coll_type */
	uint8_t dtype;  /* enum urom_coll_dtype */
	uint8_t op;     /* enum urom_coll_op (reductions) */
	uint32_t root;  /* BCAST, REDUCE */
	uint32_t flags; /* UROM_COLL_IN_PLACE */
	uint64_t count; /* elements: of the vector, or per rank (ALLGATHER, ALLTOALL) */
	uint64_t src;   /* host addresses */
	uint64_t dst;
	uint64_t src_memh; /* 0, or a MEM_MAP handle whose range holds the source */
	uint64_t dst_memh;
};

/* ---------------------------------------------------------------------------------------------
 * Notifications (worker -> host): one per command, the command's type and cookie.
 * ------------------------------------------------------------------------------------------- */

struct urom_coll_notif_hdr {
	uint16_t type; /* the command's */
	uint16_t version;
	int32_t status;  /* urom_status_t / doca_error_t: 0 on success */
	uint64_t cookie; /* the command's */
	uint32_t reason; /* enum urom_coll_reason */
	uint32_t detail;
};

struct urom_coll_notif_team_create {
	struct urom_coll_notif_hdr hdr;
	uint32_t team_id;
	uint32_t rank;
	uint32_t size;
	uint32_t reserved;
};

struct urom_coll_notif_team_destroy {
	struct urom_coll_notif_hdr hdr;
	uint32_t team_id;
	uint32_t reserved;
};

struct urom_coll_notif_mem_map {
	struct urom_coll_notif_hdr hdr;
	uint64_t memh; /* never 0 on success */
};

struct urom_coll_notif_mem_unmap {
	struct urom_coll_notif_hdr hdr;
};

struct urom_coll_notif_post {
	struct urom_coll_notif_hdr hdr;
	uint32_t team_id;
	uint32_t reserved;
	uint64_t sequence; /* the collective's place in its team's order, from 0 */
};

/* ---------------------------------------------------------------------------------------------
 * Worker to worker: UCP tagged messages, matched on the whole tag.
 *   bits 63..60 kind, 59..48 team id, 47..32 sequence (mod 2^16), 31..16 step, 15..0 sender rank
 * ------------------------------------------------------------------------------------------- */

enum urom_coll_msg_kind {
	UROM_COLL_MSG_HELLO = 1, /* team creation: struct urom_coll_hello, rank to every other rank */
	UROM_COLL_MSG_AGREE = 2, /* a collective's agreement round: struct urom_coll_agree */
	UROM_COLL_MSG_DATA = 3,  /* a collective's bytes */
};

static inline uint64_t urom_coll_tag(uint32_t kind, uint32_t team_id, uint64_t sequence, uint32_t step, uint32_t sender)
{
	return ((uint64_t)(kind & 0xfu) << 60) | ((uint64_t)(team_id & 0xfffu) << 48) | ((sequence & 0xffffu) << 32) |
	       ((uint64_t)(step & 0xffffu) << 16) | (uint64_t)(sender & 0xffffu);
}

struct urom_coll_hello {
	uint16_t version; /* UROM_COLL_PROTOCOL_VERSION */
	uint16_t reserved;
	uint32_t team_id;
	uint32_t size;
	uint32_t rank;         /* the sender's */
	uint64_t members_hash; /* FNV-1a 64 of the members' domain ids, u64 little-endian, in rank order */
	uint32_t chunk_bytes;  /* the effective knobs (defaults applied) */
	uint32_t small_bytes;
	uint32_t timeout_ms;
	uint32_t refused; /* 0, or the reason the sender refuses the team (its host unreachable...) */
};

/*
 * One agreement round's state: per field, the least and the greatest value seen so far, in the
 * order of enum urom_coll_field (index 0: COLL, ... 4: COUNT); fields a collective does not use
 * are 0. refused: 0, or 1 + the lowest rank that refused its own arguments, with its reason.
 */
struct urom_coll_agree {
	uint64_t min[5];
	uint64_t max[5];
	uint32_t refused;
	uint32_t refused_reason;
};

#ifndef __cplusplus
_Static_assert(sizeof(struct urom_coll_cmd_hdr) == 16, "command header");
_Static_assert(sizeof(struct urom_coll_cmd_team_create) == 64, "TEAM_CREATE fixed part");
_Static_assert(offsetof(struct urom_coll_cmd_team_create, member_ids) == 64, "TEAM_CREATE list");
_Static_assert(sizeof(struct urom_coll_cmd_team_destroy) == 24, "TEAM_DESTROY");
_Static_assert(sizeof(struct urom_coll_cmd_mem_map) == 40, "MEM_MAP");
_Static_assert(sizeof(struct urom_coll_cmd_mem_unmap) == 24, "MEM_UNMAP");
_Static_assert(offsetof(struct urom_coll_cmd_post, count) == 32, "POST count");
_Static_assert(sizeof(struct urom_coll_cmd_post) == 72, "POST");
_Static_assert(sizeof(struct urom_coll_notif_hdr) == 24, "notification header");
_Static_assert(sizeof(struct urom_coll_notif_team_create) == 40, "TEAM_CREATE answer");
_Static_assert(sizeof(struct urom_coll_notif_team_destroy) == 32, "TEAM_DESTROY answer");
_Static_assert(sizeof(struct urom_coll_notif_mem_map) == 32, "MEM_MAP answer");
_Static_assert(sizeof(struct urom_coll_notif_mem_unmap) == 24, "MEM_UNMAP answer");
_Static_assert(sizeof(struct urom_coll_notif_post) == 40, "POST answer");
_Static_assert(sizeof(struct urom_coll_hello) == 40, "HELLO");
_Static_assert(sizeof(struct urom_coll_agree) == 88, "AGREE");
#endif

#ifdef __cplusplus
}
#endif

#endif /* UROM_COLL_H_ */
