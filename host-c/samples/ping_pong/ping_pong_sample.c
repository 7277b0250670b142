/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom-java C sample: ping_pong.
 *
 * Each rank opens the device, starts the service and one sandbox worker on one progress engine, and
 * joins a domain in which its worker has domain id = its rank; the domain's allgather is MPI's
 * non-blocking one (MPI_Iallgather, completed with MPI_Test from inside doca_pe_progress()). Then
 * rank 0 sends the message inline with tag PING_TAG to domain id 1, rank 1 receives it (any tag
 * that matches PING_TAG under PING_PONG_TAG_MASK) and sends the same bytes back with PONG_TAG, and
 * rank 0 checks that they came back unchanged.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include <doca_ctx.h>
#include <doca_log.h>
#include <doca_pe.h>
#include <doca_urom.h>

#include "ping_pong.h"
#include "urom_sample_common.h"
#include "urom_sample_mpi.h"
#include "urom_sandbox_host.h"

DOCA_LOG_REGISTER(UROM::SAMPLE::PING_PONG);

#define SANDBOX_PLUGIN_NAME "worker_sandbox"

/* ---- the sandbox helper's answers ---- */

struct send_result {
	volatile bool done;
	doca_error_t result;
	doca_error_t status;
};

struct recv_result {
	volatile bool done;
	doca_error_t result;
	doca_error_t status;
	uint64_t count;
	uint64_t sender_tag;
};

static void send_finished(doca_error_t result, union doca_data cookie, union doca_data context, doca_error_t status)
{
	struct send_result *r = cookie.ptr;

	(void)context;
	r->result = result;
	r->status = status;
	r->done = true;
}

static void recv_finished(doca_error_t result, union doca_data cookie, union doca_data context, void *buffer,
			  uint64_t count, uint64_t sender_tag, doca_error_t status)
{
	struct recv_result *r = cookie.ptr;

	(void)context;
	(void)buffer;
	r->result = result;
	r->status = status;
	r->count = count;
	r->sender_tag = sender_tag;
	r->done = true;
}

/* Sends len bytes of data to domain id dest with tag and waits until the worker has sent them. */
static doca_error_t send_and_wait(struct doca_pe *pe, struct doca_urom_worker *worker, int rank, uint64_t dest,
				  const void *data, size_t len, uint64_t tag)
{
	struct send_result r = {0};
	union doca_data cookie = {.ptr = &r}, context = {.u64 = tag};
	doca_error_t result;

	result = urom_sandbox_tag_task_send(worker, cookie, context, dest, (uint64_t)(uintptr_t)data, len, tag, 0,
					    send_finished);
	if (result != DOCA_SUCCESS) {
		printf("rank %d: sending to %lu: FAILED (%s)\n", rank, (unsigned long)dest,
		       doca_error_get_descr(result));
		return result;
	}
	if (!sample_progress_until(pe, &r.done, SAMPLE_STEP_TIMEOUT_MS)) {
		printf("rank %d: the send to %lu did not complete within %d s: FAILED\n", rank, (unsigned long)dest,
		       SAMPLE_STEP_TIMEOUT_MS / 1000);
		return DOCA_ERROR_TIME_OUT;
	}
	if (r.result != DOCA_SUCCESS || r.status != DOCA_SUCCESS) {
		printf("rank %d: sending to %lu: FAILED (%s, plugin status %s)\n", rank, (unsigned long)dest,
		       doca_error_get_descr(r.result), doca_error_get_descr(r.status));
		return r.result != DOCA_SUCCESS ? r.result : r.status;
	}
	return DOCA_SUCCESS;
}

/* Receives one message matching tag under PING_PONG_TAG_MASK into buf (room bytes). */
static doca_error_t recv_and_wait(struct doca_pe *pe, struct doca_urom_worker *worker, int rank, void *buf, size_t room,
				  uint64_t tag, struct recv_result *r)
{
	union doca_data cookie = {.ptr = r}, context = {.u64 = tag};
	doca_error_t result;

	memset(r, 0, sizeof(*r));
	result = urom_sandbox_tag_task_recv(worker, cookie, context, (uint64_t)(uintptr_t)buf, room, tag,
					    PING_PONG_TAG_MASK, 0, recv_finished);
	if (result != DOCA_SUCCESS) {
		printf("rank %d: posting the receive: FAILED (%s)\n", rank, doca_error_get_descr(result));
		return result;
	}
	if (!sample_progress_until(pe, &r->done, SAMPLE_STEP_TIMEOUT_MS)) {
		printf("rank %d: nothing received with tag 0x%lx within %d s: FAILED\n", rank, (unsigned long)tag,
		       SAMPLE_STEP_TIMEOUT_MS / 1000);
		return DOCA_ERROR_TIME_OUT;
	}
	if (r->result != DOCA_SUCCESS || r->status != DOCA_SUCCESS) {
		printf("rank %d: receiving: FAILED (%s, plugin status %s)\n", rank, doca_error_get_descr(r->result),
		       doca_error_get_descr(r->status));
		return r->result != DOCA_SUCCESS ? r->result : r->status;
	}
	return DOCA_SUCCESS;
}

static doca_error_t exchange(struct doca_pe *pe, struct doca_urom_worker *worker, const char *message, int rank)
{
	char buf[PING_PONG_MAX_MESSAGE];
	size_t len = strlen(message);
	struct recv_result r;
	doca_error_t result;

	if (rank == 0) {
		result = send_and_wait(pe, worker, rank, 1, message, len, PING_TAG);
		if (result != DOCA_SUCCESS)
			return result;
		printf("rank 0: sent \"%s\" (%zu bytes, tag 0x%x)\n", message, len, PING_TAG);
		result = recv_and_wait(pe, worker, rank, buf, sizeof(buf), PONG_TAG, &r);
		if (result != DOCA_SUCCESS)
			return result;
		if (r.count != len || memcmp(buf, message, len) != 0 || r.sender_tag != PONG_TAG) {
			printf("rank 0: received \"%.*s\" (%lu bytes, tag 0x%lx), expected \"%s\" with tag 0x%x: "
			       "FAILED\n",
			       (int)r.count, buf, (unsigned long)r.count, (unsigned long)r.sender_tag, message,
			       PONG_TAG);
			return DOCA_ERROR_UNEXPECTED;
		}
		printf("rank 0: received \"%.*s\" (%lu bytes, tag 0x%lx): matches what was sent\n", (int)r.count, buf,
		       (unsigned long)r.count, (unsigned long)r.sender_tag);
		return DOCA_SUCCESS;
	}
	result = recv_and_wait(pe, worker, rank, buf, sizeof(buf), PING_TAG, &r);
	if (result != DOCA_SUCCESS)
		return result;
	printf("rank 1: received \"%.*s\" (%lu bytes, tag 0x%lx)\n", (int)r.count, buf, (unsigned long)r.count,
	       (unsigned long)r.sender_tag);
	if (r.sender_tag != PING_TAG) {
		printf("rank 1: the sender's tag 0x%lx is not 0x%x: FAILED\n", (unsigned long)r.sender_tag, PING_TAG);
		return DOCA_ERROR_UNEXPECTED;
	}
	result = send_and_wait(pe, worker, rank, 0, buf, (size_t)r.count, PONG_TAG);
	if (result != DOCA_SUCCESS)
		return result;
	printf("rank 1: sent it back (tag 0x%x)\n", PONG_TAG);
	return DOCA_SUCCESS;
}

doca_error_t ping_pong(const struct ping_pong_config *cfg, int rank, int size)
{
	struct sample_mpi_oob mpi = {.comm = MPI_COMM_WORLD};
	struct doca_urom_service *service = NULL;
	struct doca_urom_worker *worker = NULL;
	struct doca_urom_domain *domain = NULL;
	struct doca_dev *dev = NULL;
	struct doca_pe *pe = NULL;
	uint64_t sandbox_id, sandbox_version, worker_id = 0;
	doca_error_t result, end;

	if (size != 2) {
		printf("rank %d: ping_pong runs as exactly 2 MPI ranks, not %d: FAILED\n", rank, size);
		return DOCA_ERROR_INVALID_VALUE;
	}
	result = sample_open_device(cfg->device, &dev);
	if (result != DOCA_SUCCESS)
		goto out;
	result = doca_pe_create(&pe);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Creating the progress engine failed: %s", doca_error_get_descr(result));
		goto close_dev;
	}
	result = sample_start_service(pe, dev, &service);
	if (result != DOCA_SUCCESS)
		goto destroy_pe;
	result = sample_find_plugin(service, SANDBOX_PLUGIN_NAME, &sandbox_id, &sandbox_version);
	if (result == DOCA_SUCCESS) {
		result = urom_sandbox_init(sandbox_id, sandbox_version);
		if (result != DOCA_SUCCESS)
			DOCA_LOG_ERR("The sandbox helper refused plugin version %lu: %s",
				     (unsigned long)sandbox_version, doca_error_get_descr(result));
	}
	if (result != DOCA_SUCCESS)
		goto stop_service;

	result = sample_start_worker(pe, service, DOCA_UROM_WORKER_ID_ANY, 0, sandbox_id, NULL, &worker);
	if (result != DOCA_SUCCESS)
		goto stop_service;
	doca_urom_worker_get_id(worker, &worker_id);
	printf("rank %d: worker %lu running the %s plugin\n", rank, (unsigned long)worker_id, SANDBOX_PLUGIN_NAME);

	result = sample_start_mpi_domain(pe, worker, &mpi, rank, size, &domain);
	if (result != DOCA_SUCCESS)
		goto stop_worker;
	printf("rank %d: domain of %d ranks running\n", rank, size);

	result = exchange(pe, worker, cfg->message, rank);
	/* Neither rank takes its worker away while the other may still need it. */
	if (result == DOCA_SUCCESS && MPI_Barrier(MPI_COMM_WORLD) != MPI_SUCCESS)
		result = DOCA_ERROR_IO_FAILED;

	end = sample_stop_domain(pe, domain);
	if (result == DOCA_SUCCESS)
		result = end;
stop_worker:
	end = sample_stop_worker(pe, worker);
	if (result == DOCA_SUCCESS)
		result = end;
stop_service:
	end = sample_stop_service(pe, service);
	if (result == DOCA_SUCCESS)
		result = end;
destroy_pe:
	doca_pe_destroy(pe);
close_dev:
	doca_dev_close(dev);
out:
	if (result == DOCA_SUCCESS)
		printf("rank %d: ping-pong done\n", rank);
	else
		printf("rank %d: ping-pong FAILED (%s)\n", rank, doca_error_get_descr(result));
	return result;
}
