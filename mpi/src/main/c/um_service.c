/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom-java liburom_mpi: the connection of every rank to the service: device, progress engine,
 * service, one worker running the collectives plugin, and a domain over MPI_COMM_WORLD whose
 * out-of-band allgather is MPI's own (through PMPI, from inside doca_pe_progress).
 *
 * um_connect() is collective over MPI_COMM_WORLD and its local steps are followed by a PMPI
 * agreement, so that no rank enters the domain's allgather while another has given up. The DOCA
 * libraries' own messages are kept (the last one names why a step failed) and shown only with
 * UROM_MPI_VERBOSE=1.
 */
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <doca_ctx.h>
#include <doca_log.h>

#include "um.h"

#define STEP_TIMEOUT_MS 120000

static char log_buf[1024];
static char last_error[512];

int64_t um_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int um_progress(void)
{
	int n = 0;

	if (um.pe == NULL)
		return 0;
	while (n < 1024 && doca_pe_progress(um.pe))
		n++;
	return n;
}

int um_progress_until(const volatile int *flag, int64_t timeout_ms)
{
	int64_t deadline = um_now_ms() + timeout_ms;

	while (!*flag) {
		if (um_progress() == 0) {
			if (um_now_ms() > deadline)
				return -1;
			sched_yield();
		}
	}
	return 0;
}

/* A DOCA log line "[time][pid][DOCA][LVL][SOURCE] message\n": keep the message. */
static void log_line(char *line)
{
	const char *msg = line, *p;
	size_t n;

	if (um.set.verbose)
		fputs(line, stderr);
	while ((p = strstr(msg, "] ")) != NULL)
		msg = p + 2;
	n = strcspn(msg, "\n");
	if (n >= sizeof(last_error))
		n = sizeof(last_error) - 1;
	memcpy(last_error, msg, n);
	last_error[n] = '\0';
}

static void capture_logs(void)
{
	static int done;
	struct doca_log_backend *b;

	if (done)
		return;
	done = 1;
	if (doca_log_backend_create_with_buf_sdk(log_buf, sizeof(log_buf), log_line, &b) == DOCA_SUCCESS)
		doca_log_backend_set_sdk_level(b, DOCA_LOG_LEVEL_ERROR);
	if (doca_log_backend_create_with_buf(log_buf, sizeof(log_buf), log_line, &b) == DOCA_SUCCESS) {
		doca_log_backend_set_level_lower_limit(b, DOCA_LOG_LEVEL_ERROR);
	}
}

/* Why a step failed: the library's last message, else the status. */
static void failed(char *why, size_t cap, const char *step, doca_error_t status)
{
	if (last_error[0] != '\0')
		snprintf(why, cap, "%s: %s", step, last_error);
	else
		snprintf(why, cap, "%s: %s", step, doca_error_get_descr(status));
}

static doca_error_t open_device(void)
{
	struct doca_devinfo **list = NULL;
	char name[DOCA_DEVINFO_IBDEV_NAME_SIZE];
	uint32_t n = 0;
	doca_error_t status;

	status = doca_devinfo_create_list(&list, &n);
	if (status != DOCA_SUCCESS)
		return status;
	status = DOCA_ERROR_NOT_FOUND;
	for (uint32_t i = 0; i < n; i++) {
		if (um.set.device[0] != '\0' &&
		    (doca_devinfo_get_ibdev_name(list[i], name, sizeof(name)) != DOCA_SUCCESS ||
		     strcmp(name, um.set.device) != 0))
			continue;
		status = doca_dev_open(list[i], &um.dev);
		break;
	}
	doca_devinfo_destroy_list(list);
	return status;
}

static doca_error_t wait_state(struct doca_ctx *ctx, enum doca_ctx_states leave, enum doca_ctx_states *state)
{
	int64_t deadline = um_now_ms() + STEP_TIMEOUT_MS;
	doca_error_t status;

	for (;;) {
		status = doca_ctx_get_state(ctx, state);
		if (status != DOCA_SUCCESS || *state != leave)
			return status;
		if (um_now_ms() > deadline)
			return DOCA_ERROR_TIME_OUT;
		if (doca_pe_progress(um.pe) == 0)
			sched_yield();
	}
}

static void stop_ctx(struct doca_ctx *ctx)
{
	enum doca_ctx_states state = DOCA_CTX_STATE_IDLE;
	int64_t deadline = um_now_ms() + STEP_TIMEOUT_MS;

	doca_ctx_get_state(ctx, &state);
	if (state != DOCA_CTX_STATE_IDLE)
		doca_ctx_stop(ctx);
	while (doca_ctx_get_state(ctx, &state) == DOCA_SUCCESS && state != DOCA_CTX_STATE_IDLE &&
	       um_now_ms() < deadline) {
		if (doca_pe_progress(um.pe) == 0)
			sched_yield();
	}
	while (doca_pe_progress(um.pe))
		;
}

/* The service, the plugin's id and the worker: local steps. */
static doca_error_t start_local(char *why, size_t cap)
{
	const struct doca_urom_service_plugin_info *plugins;
	enum doca_ctx_states state;
	uint64_t plugin_id = 0, version = 0;
	size_t n = 0;
	doca_error_t status;

	status = open_device();
	if (status != DOCA_SUCCESS) {
		if (um.set.device[0] != '\0')
			snprintf(why, cap, "no device named %s for this host (DOCA_UROM_SERVICE_FILE)", um.set.device);
		else
			failed(why, cap, "no device for this host (DOCA_UROM_SERVICE_FILE)", status);
		return status;
	}
	status = doca_pe_create(&um.pe);
	if (status != DOCA_SUCCESS) {
		failed(why, cap, "creating a progress engine", status);
		return status;
	}
	status = doca_urom_service_create(&um.service);
	if (status == DOCA_SUCCESS)
		status = doca_pe_connect_ctx(um.pe, doca_urom_service_as_ctx(um.service));
	if (status == DOCA_SUCCESS)
		status = doca_urom_service_set_dev(um.service, um.dev);
	if (status == DOCA_SUCCESS)
		status = doca_ctx_start(doca_urom_service_as_ctx(um.service));
	if (status != DOCA_SUCCESS) {
		failed(why, cap, "connecting to the service", status);
		return status;
	}
	status = doca_urom_service_get_plugins_list(um.service, &plugins, &n);
	for (size_t i = 0; status == DOCA_SUCCESS && i < n; i++)
		if (strncmp(plugins[i].plugin_name, um.set.plugin, sizeof(plugins[i].plugin_name)) == 0) {
			plugin_id = plugins[i].id;
			version = plugins[i].version;
		}
	if (status != DOCA_SUCCESS || plugin_id == 0) {
		snprintf(why, cap, "the service has no plugin named %s (UROM_MPI_PLUGIN)", um.set.plugin);
		return DOCA_ERROR_NOT_FOUND;
	}
	status = urom_coll_init(plugin_id, version);
	if (status != DOCA_SUCCESS) {
		snprintf(why, cap, "plugin %s is version %lu, this library speaks %d", um.set.plugin,
			 (unsigned long)version, UROM_COLL_PLUGIN_VERSION);
		return status;
	}
	status = doca_urom_worker_create(&um.worker);
	if (status == DOCA_SUCCESS)
		status = doca_pe_connect_ctx(um.pe, doca_urom_worker_as_ctx(um.worker));
	if (status == DOCA_SUCCESS)
		status = doca_urom_worker_set_service(um.worker, um.service);
	if (status == DOCA_SUCCESS)
		status = doca_urom_worker_set_id(um.worker, DOCA_UROM_WORKER_ID_ANY);
	if (status == DOCA_SUCCESS)
		status = doca_urom_worker_set_plugins(um.worker, plugin_id);
	if (status == DOCA_SUCCESS)
		status = doca_urom_worker_set_max_inflight_tasks(um.worker, UROM_COLL_INFLIGHT_MAX);
	if (status == DOCA_SUCCESS) {
		status = doca_ctx_start(doca_urom_worker_as_ctx(um.worker));
		if (status == DOCA_ERROR_IN_PROGRESS)
			status = wait_state(doca_urom_worker_as_ctx(um.worker), DOCA_CTX_STATE_STARTING, &state);
		if (status == DOCA_SUCCESS && state != DOCA_CTX_STATE_RUNNING)
			status = DOCA_ERROR_BAD_STATE;
	}
	if (status != DOCA_SUCCESS)
		failed(why, cap, "starting a worker", status);
	return status;
}

static doca_error_t oob_allgather(void *sbuf, void *rbuf, size_t msglen, void *coll_info, void **req)
{
	MPI_Request *r;

	(void)coll_info;
	if (msglen > INT_MAX)
		return DOCA_ERROR_TOO_BIG;
	r = malloc(sizeof(*r));
	if (r == NULL)
		return DOCA_ERROR_NO_MEMORY;
	if (PMPI_Iallgather(sbuf, (int)msglen, MPI_BYTE, rbuf, (int)msglen, MPI_BYTE, MPI_COMM_WORLD, r) !=
	    MPI_SUCCESS) {
		free(r);
		return DOCA_ERROR_IO_FAILED;
	}
	*req = r;
	return DOCA_SUCCESS;
}

static doca_error_t oob_test(void *req)
{
	int done = 0;

	if (PMPI_Test(req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
		return DOCA_ERROR_IO_FAILED;
	return done ? DOCA_SUCCESS : DOCA_ERROR_IN_PROGRESS;
}

static doca_error_t oob_free(void *req)
{
	free(req);
	return DOCA_SUCCESS;
}

/* The domain: collective over MPI_COMM_WORLD (its start runs the allgather). */
static doca_error_t start_domain(char *why, size_t cap)
{
	struct doca_urom_domain_oob_coll oob = {
		.allgather = oob_allgather,
		.req_test = oob_test,
		.req_free = oob_free,
		.coll_info = NULL,
		.n_oob_indexes = (uint32_t)um.world_size,
		.oob_index = (uint32_t)um.world_rank,
	};
	uint64_t id = (uint64_t)um.world_rank;
	enum doca_ctx_states state = DOCA_CTX_STATE_IDLE;
	doca_error_t status;

	status = doca_urom_domain_create(&um.domain);
	if (status == DOCA_SUCCESS)
		status = doca_urom_domain_set_oob(um.domain, &oob);
	if (status == DOCA_SUCCESS)
		status = doca_urom_domain_set_workers(um.domain, &id, &um.worker, 1);
	if (status == DOCA_SUCCESS)
		status = doca_pe_connect_ctx(um.pe, doca_urom_domain_as_ctx(um.domain));
	if (status == DOCA_SUCCESS) {
		status = doca_ctx_start(doca_urom_domain_as_ctx(um.domain));
		if (status == DOCA_ERROR_IN_PROGRESS)
			status = wait_state(doca_urom_domain_as_ctx(um.domain), DOCA_CTX_STATE_STARTING, &state);
		else if (status == DOCA_SUCCESS)
			doca_ctx_get_state(doca_urom_domain_as_ctx(um.domain), &state);
		if (status == DOCA_SUCCESS && state != DOCA_CTX_STATE_RUNNING)
			status = DOCA_ERROR_BAD_STATE;
	}
	if (status != DOCA_SUCCESS)
		failed(why, cap, "starting the domain", status);
	return status;
}

/* Every rank's verdict; the lowest failing rank prints its reason. 1 if all succeeded. */
static int agree(int ok, const char *why)
{
	int in[2] = {ok, ok ? INT_MAX : um.world_rank}, out[2] = {0, 0};

	if (PMPI_Allreduce(in, out, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS)
		return 0;
	if (!out[0] && out[1] == um.world_rank)
		fprintf(stderr, UM_PREFIX "rank %d: %s; every collective goes to MPI\n", um.world_rank, why);
	return out[0];
}

void um_connect(void)
{
	char why[768] = "";

	if (um.conn != UM_CONN_NONE)
		return;
	um.conn = UM_CONN_FAILED;
	capture_logs();
	last_error[0] = '\0';
	if (!agree(start_local(why, sizeof(why)) == DOCA_SUCCESS, why)) {
		um_disconnect();
		return;
	}
	if (!agree(start_domain(why, sizeof(why)) == DOCA_SUCCESS, why)) {
		um_disconnect();
		return;
	}
	um.conn = UM_CONN_READY;
}

void um_disconnect(void)
{
	if (um.domain != NULL) {
		stop_ctx(doca_urom_domain_as_ctx(um.domain));
		doca_urom_domain_destroy(um.domain);
		um.domain = NULL;
	}
	if (um.worker != NULL) {
		stop_ctx(doca_urom_worker_as_ctx(um.worker));
		if (doca_urom_worker_destroy(um.worker) != DOCA_SUCCESS)
			fprintf(stderr, UM_PREFIX "rank %d: destroying the worker failed: %s\n", um.world_rank,
				last_error);
		um.worker = NULL;
	}
	if (um.service != NULL) {
		stop_ctx(doca_urom_service_as_ctx(um.service));
		doca_urom_service_destroy(um.service);
		um.service = NULL;
	}
	if (um.pe != NULL) {
		doca_pe_destroy(um.pe);
		um.pe = NULL;
	}
	if (um.dev != NULL) {
		doca_dev_close(um.dev);
		um.dev = NULL;
	}
}
