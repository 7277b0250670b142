/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom-java: the collectives plugin's C host helper, for programs built on DOCA UROM's host API
 * (doca_urom.h). It speaks the commands and notifications of urom_coll.h (docs/collectives.md).
 *
 * Every call allocates a command task on the worker, packs the command, submits it and returns at
 * once: the worker has the command before the call returns, and the program computes while the
 * workers move the data. The outcome lands in a struct urom_coll_request that the program owns and
 * keeps valid until it has completed; the program sees completion by progressing the worker's
 * engine (doca_pe_progress, urom_coll_wait), and may ask for a callback as well.
 *
 * A call that returns anything but DOCA_SUCCESS has submitted nothing and never completes the
 * request; DOCA_ERROR_AGAIN means the worker's limit of tasks in flight is reached (progress, then
 * retry). A request completes exactly once, inside doca_pe_progress(), with:
 *   status  DOCA_SUCCESS, the plugin's status (its reason and detail say why), the status of a
 *           command the worker refused outright (reason 0), or DOCA_ERROR_UNEXPECTED for an answer
 *           that is not what the protocol says;
 *   reason, detail  enum urom_coll_reason and its detail (a rank or a field), 0 when none.
 *
 * Not thread-safe: call it from the thread that progresses the worker's engine.
 */
#ifndef UROM_COLL_HOST_H_
#define UROM_COLL_HOST_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_error.h>
#include <doca_pe.h>
#include <doca_types.h>
#include <doca_urom.h>

#include "urom_coll.h"

#ifdef __cplusplus
extern "C" {
#endif

struct urom_coll_request;

/* Called once when a request completes (inside doca_pe_progress); may post again. */
typedef void (*urom_coll_completed)(struct urom_coll_request *request);

/* A command in flight and, once done, its outcome. Zero it (or let urom_coll_* do it) before use. */
struct urom_coll_request {
	/* Set by the program before the call, kept as given. */
	urom_coll_completed cb; /* NULL: no callback */
	union doca_data user_data;
	/* Set by the helper. */
	int done; /* 0 while in flight, 1 once completed */
	doca_error_t status;
	uint32_t reason;
	uint32_t detail;
	uint32_t team_id;  /* TEAM_CREATE, TEAM_DESTROY, POST */
	uint32_t rank;     /* TEAM_CREATE */
	uint32_t size;     /* TEAM_CREATE */
	uint64_t memh;     /* MEM_MAP: the handle */
	uint64_t sequence; /* POST: the collective's place in its team's order */
};

/* A team's members and knobs (docs/collectives.md, Teams). */
struct urom_coll_team_params {
	uint32_t team_id; /* 1..UROM_COLL_TEAM_ID_MAX, the same on every member */
	uint32_t size;
	uint32_t rank;              /* this worker's rank in the team */
	uint32_t members;           /* UROM_COLL_MEMBERS_RANGE or UROM_COLL_MEMBERS_LIST */
	uint64_t start, stride;     /* range: rank i is domain id start + i * stride */
	const uint64_t *member_ids; /* list: size domain ids */
	uint32_t chunk_bytes;       /* 0: the default */
	uint32_t small_bytes;
	uint32_t timeout_ms;
};

/* One collective; see the buffers of each collective in docs/collectives.md. */
struct urom_coll_args {
	enum urom_coll_type coll;
	enum urom_coll_dtype dtype;
	enum urom_coll_op op;
	uint32_t root;
	uint32_t flags; /* UROM_COLL_IN_PLACE */
	uint64_t count;
	const void *src;
	void *dst;
	uint64_t src_memh; /* 0, or a handle from urom_coll_mem_map */
	uint64_t dst_memh;
};

/*
 * Remembers the collectives plugin's id (from the service's plugin list); the id is process-wide.
 * DOCA_ERROR_UNSUPPORTED_VERSION when the device side's version is not UROM_COLL_PLUGIN_VERSION,
 * DOCA_ERROR_INVALID_VALUE for id 0.
 */
doca_error_t urom_coll_init(uint64_t plugin_id, uint64_t version);

doca_error_t urom_coll_team_create(struct doca_urom_worker *worker, const struct urom_coll_team_params *params,
				   struct urom_coll_request *request);

doca_error_t urom_coll_team_destroy(struct doca_urom_worker *worker, uint32_t team_id,
				    struct urom_coll_request *request);

/* access: UROM_COLL_ACCESS_READ and/or UROM_COLL_ACCESS_WRITE. */
doca_error_t urom_coll_mem_map(struct doca_urom_worker *worker, const void *address, size_t length, uint32_t access,
			       struct urom_coll_request *request);

doca_error_t urom_coll_mem_unmap(struct doca_urom_worker *worker, uint64_t memh, struct urom_coll_request *request);

doca_error_t urom_coll_post(struct doca_urom_worker *worker, uint32_t team_id, const struct urom_coll_args *args,
			    struct urom_coll_request *request);

/* 1 once the request has completed, else 0. Never progresses anything. */
int urom_coll_test(const struct urom_coll_request *request);

/* Progresses pe until the request has completed; returns its status. */
doca_error_t urom_coll_wait(struct doca_pe *pe, struct urom_coll_request *request);

/* The name of a reason ("MISMATCH"), or "unknown". */
const char *urom_coll_reason_name(uint32_t reason);

#ifdef __cplusplus
}
#endif

#endif /* UROM_COLL_HOST_H_ */
