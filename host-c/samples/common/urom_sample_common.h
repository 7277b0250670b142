/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom-java C samples: what both samples do the same way (find the device, start and stop the
 * service and workers, wait for a context's state while progressing its engine).
 *
 * Every wait is bounded: it progresses the engine until the state changes or timeout_ms pass
 * (DOCA_ERROR_TIME_OUT), so a sample never hangs on a daemon that stopped answering.
 */
#ifndef UROM_SAMPLE_COMMON_H_
#define UROM_SAMPLE_COMMON_H_

#include <stdbool.h>
#include <stdint.h>

#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_pe.h>
#include <doca_urom.h>

/* How long a sample waits for one step (a worker's start, a task's answer). */
#define SAMPLE_STEP_TIMEOUT_MS 120000

/* Milliseconds of a monotonic clock. */
int64_t sample_now_ms(void);

/*
 * Opens the device whose IB device name is ibdev_name (from DOCA_UROM_SERVICE_FILE), or the first
 * device of the list when ibdev_name is NULL or empty.
 */
doca_error_t sample_open_device(const char *ibdev_name, struct doca_dev **dev);

/* Creates a service for dev on pe and starts it (synchronous: RUNNING on success). */
doca_error_t sample_start_service(struct doca_pe *pe, struct doca_dev *dev, struct doca_urom_service **service);
/* Stops ctx (when not IDLE), progresses pe until it is IDLE and delivers what the stop queued; what
 * names it in the error line. */
doca_error_t sample_stop_ctx(struct doca_pe *pe, struct doca_ctx *ctx, const char *what);
/* Stops (when not IDLE) and destroys a service. */
doca_error_t sample_stop_service(struct doca_pe *pe, struct doca_urom_service *service);

/* The id and version of the plugin named name in the service's list (NOT_FOUND when absent). */
doca_error_t sample_find_plugin(struct doca_urom_service *service, const char *name, uint64_t *id, uint64_t *version);

/* Progresses pe until ctx is no longer in state `leave`; the state it reached in *state. */
doca_error_t sample_wait_state(struct doca_pe *pe, struct doca_ctx *ctx, enum doca_ctx_states leave, int timeout_ms,
			       enum doca_ctx_states *state);

/*
 * Creates a worker on pe (id, gid, plugin mask; cpuset may be NULL), starts it and progresses pe
 * until it is RUNNING. On failure nothing is left behind.
 */
doca_error_t sample_start_worker(struct doca_pe *pe, struct doca_urom_service *service, uint64_t id, uint32_t gid,
				 uint64_t plugins, const doca_cpu_set_t *cpuset, struct doca_urom_worker **worker);
/* Stops a worker (when not IDLE), progresses pe until it is IDLE and destroys it. */
doca_error_t sample_stop_worker(struct doca_pe *pe, struct doca_urom_worker *worker);

/* Progresses pe until *flag is true or timeout_ms pass. */
bool sample_progress_until(struct doca_pe *pe, const volatile bool *flag, int timeout_ms);

#endif /* UROM_SAMPLE_COMMON_H_ */
