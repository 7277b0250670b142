/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom-java liburom_mpi: offloaded collectives as generalized requests, and the completion calls.
 *
 * An offloaded collective is a struct um_op and an MPI generalized request (PMPI_Grequest_start).
 * The plugin's answer arrives inside doca_pe_progress, which only this library calls: from the
 * completion calls wrapped here (MPI_Wait..., MPI_Test..., MPI_Request_get_status), which progress
 * the engine before asking MPI, and, for the Wait forms while anything offloaded is in flight, loop
 * on the Test form until MPI says done, so that arrays mixing offloaded and ordinary requests
 * complete. The loop spins, as MPI's own Wait does: yielding the CPU there hands it, on a CPU shared
 * by two ranks, to a rank that computes for a whole time slice (measured: OSU's overlap fell from
 * 99.7-99.9 % to 10-70 %). The answer completes the generalized request (PMPI_Grequest_complete); a failure
 * carries an error code of class MPI_ERR_OTHER whose string names the plugin's reason.
 *
 * MPI_Request_free of a collective still in flight does not free it under the worker's feet: the
 * op is kept, and its request is completed and freed when the answer comes (at the latest at
 * finalize, which drains every op).
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "um.h"

#define POST_RETRY_MS 60000
#define ERROR_CODES_MAX 64

/* ----------------------------------------------------------------------------- error codes */

struct error_code {
	enum urom_coll_type coll;
	doca_error_t status;
	uint32_t reason, detail;
	int code;
};

static struct error_code codes[ERROR_CODES_MAX];
static int n_codes;

/* An MPI error code of class MPI_ERR_OTHER naming this failure; the same failure reuses its code. */
static int error_code(enum urom_coll_type coll, const struct urom_coll_request *r)
{
	char text[MPI_MAX_ERROR_STRING];
	int code;

	for (int i = 0; i < n_codes; i++)
		if (codes[i].coll == coll && codes[i].status == r->status && codes[i].reason == r->reason &&
		    codes[i].detail == r->detail)
			return codes[i].code;
	if (n_codes == ERROR_CODES_MAX || PMPI_Add_error_code(MPI_ERR_OTHER, &code) != MPI_SUCCESS)
		return MPI_ERR_OTHER;
	snprintf(text, sizeof(text), UM_PREFIX "offloaded %s failed: %s (reason %s, detail %u)", um_coll_name(coll),
		 doca_error_get_descr(r->status), urom_coll_reason_name(r->reason), r->detail);
	PMPI_Add_error_string(code, text);
	codes[n_codes++] = (struct error_code){coll, r->status, r->reason, r->detail, code};
	return code;
}

/* ------------------------------------------------------------------------ generalized requests */

static int query_fn(void *extra, MPI_Status *status)
{
	struct um_op *op = extra;

	PMPI_Status_set_elements(status, MPI_BYTE, 0);
	PMPI_Status_set_cancelled(status, 0);
	status->MPI_SOURCE = MPI_UNDEFINED;
	status->MPI_TAG = MPI_UNDEFINED;
	status->MPI_ERROR = op->error;
	return op->error;
}

static int free_fn(void *extra)
{
	struct um_op *op = extra;

	op->mpi_freed = 1;
	if (op->answered)
		free(op);
	return MPI_SUCCESS;
}

static int cancel_fn(void *extra, int complete)
{
	(void)extra;
	(void)complete;
	return MPI_SUCCESS; /* a posted collective cannot be taken back: the cancel fails */
}

static void inflight_del(struct um_op *op)
{
	if (op->prev != NULL)
		op->prev->next = op->next;
	else
		um.inflight = op->next;
	if (op->next != NULL)
		op->next->prev = op->prev;
	um.n_inflight--;
}

/* The plugin's answer (inside doca_pe_progress). */
static void answered(struct urom_coll_request *r)
{
	struct um_op *op = r->user_data.ptr;
	MPI_Request req = op->mpi;

	inflight_del(op);
	if (r->status == DOCA_SUCCESS) {
		op->error = MPI_SUCCESS;
	} else {
		op->error = error_code(op->coll, r);
		um.stats.failed++;
	}
	op->answered = 1;
	PMPI_Grequest_complete(req);
	if (op->user_freed)
		PMPI_Request_free(&req); /* calls free_fn, which frees op */
}

int um_op_post(struct um_team *team, const struct urom_coll_args *args, MPI_Request *request)
{
	struct um_op *op = calloc(1, sizeof(*op));
	int64_t deadline = um_now_ms() + POST_RETRY_MS;
	doca_error_t status;
	int rc;

	if (op == NULL)
		return MPI_ERR_NO_MEM;
	op->coll = args->coll;
	op->team_id = team->id;
	op->req.cb = answered;
	op->req.user_data.ptr = op;
	rc = PMPI_Grequest_start(query_fn, free_fn, cancel_fn, op, &op->mpi);
	if (rc != MPI_SUCCESS) {
		free(op);
		return rc;
	}
	for (;;) {
		status = urom_coll_post(um.worker, team->id, args, &op->req);
		if (status != DOCA_ERROR_AGAIN || um_now_ms() > deadline)
			break;
		if (um_progress() == 0)
			sched_yield();
	}
	if (status != DOCA_SUCCESS) {
		/* Nothing was posted: the request fails at once, with the reason. */
		op->req.status = status;
		op->error = error_code(op->coll, &op->req);
		op->answered = 1;
		um.stats.failed++;
		PMPI_Grequest_complete(op->mpi);
	} else {
		op->prev = NULL;
		op->next = um.inflight;
		if (um.inflight != NULL)
			um.inflight->prev = op;
		um.inflight = op;
		um.n_inflight++;
		um.stats.offloaded++;
	}
	*request = op->mpi;
	return MPI_SUCCESS;
}

struct um_op *um_op_find(MPI_Request request)
{
	for (struct um_op *op = um.inflight; op != NULL; op = op->next)
		if (op->mpi == request)
			return op;
	return NULL;
}

static int pending(uint32_t team_id)
{
	for (struct um_op *op = um.inflight; op != NULL; op = op->next)
		if (team_id == 0 || op->team_id == team_id)
			return 1;
	return 0;
}

void um_op_drain(uint32_t team_id)
{
	int64_t deadline =
		um_now_ms() + (int64_t)(um.set.timeout_ms ? um.set.timeout_ms : UROM_COLL_TIMEOUT_MS_DEFAULT) + 60000;

	while (pending(team_id)) {
		if (um_progress() == 0) {
			if (um_now_ms() > deadline) {
				fprintf(stderr, UM_PREFIX "rank %d: %lu offloaded collectives never completed\n",
					um.world_rank, (unsigned long)um.n_inflight);
				return;
			}
			sched_yield();
		}
	}
}

/* ------------------------------------------------------------------------ completion calls */

/*
 * Progress; then whether anything offloaded is still in flight (Wait must loop). With nothing in
 * flight the engine has nothing for these calls: they cost MPI's own.
 */
static int progress(void)
{
	if (um.inflight == NULL)
		return 0;
	um_progress();
	return um.inflight != NULL;
}

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
	int done = 0, rc;

	if (!progress())
		return PMPI_Wait(request, status);
	for (;;) {
		rc = PMPI_Test(request, &done, status);
		if (rc != MPI_SUCCESS || done)
			return rc;
		if (!progress())
			return PMPI_Wait(request, status);
	}
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
	progress();
	return PMPI_Test(request, flag, status);
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
	int done = 0, rc;

	if (!progress())
		return PMPI_Waitall(count, requests, statuses);
	for (;;) {
		rc = PMPI_Testall(count, requests, &done, statuses);
		if (rc != MPI_SUCCESS || done)
			return rc;
		if (!progress())
			return PMPI_Waitall(count, requests, statuses);
	}
}

int MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[])
{
	progress();
	return PMPI_Testall(count, requests, flag, statuses);
}

int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status)
{
	int done = 0, rc;

	if (!progress())
		return PMPI_Waitany(count, requests, index, status);
	for (;;) {
		rc = PMPI_Testany(count, requests, index, &done, status);
		if (rc != MPI_SUCCESS || done)
			return rc;
		if (!progress())
			return PMPI_Waitany(count, requests, index, status);
	}
}

int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status)
{
	progress();
	return PMPI_Testany(count, requests, index, flag, status);
}

int MPI_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[])
{
	int rc;

	if (!progress())
		return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
	for (;;) {
		rc = PMPI_Testsome(incount, requests, outcount, indices, statuses);
		if (rc != MPI_SUCCESS || *outcount != 0)
			return rc;
		if (!progress())
			return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
	}
}

int MPI_Testsome(int incount, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[])
{
	progress();
	return PMPI_Testsome(incount, requests, outcount, indices, statuses);
}

int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
	progress();
	return PMPI_Request_get_status(request, flag, status);
}

int MPI_Request_free(MPI_Request *request)
{
	struct um_op *op;

	if (request != NULL && um.inflight != NULL && (op = um_op_find(*request)) != NULL) {
		op->user_freed = 1;
		*request = MPI_REQUEST_NULL;
		return MPI_SUCCESS;
	}
	return PMPI_Request_free(request);
}
