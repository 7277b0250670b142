/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom-java: DOCA Core contexts. Every UROM object (service, worker, domain) is a context that is
 * connected to a progress engine and moves IDLE -> STARTING -> RUNNING -> STOPPING -> IDLE.
 * Setters of an object work only while its context is IDLE. State-changed callbacks run only inside
 * doca_pe_progress() of the engine the context is connected to.
 */
#ifndef DOCA_CTX_H_
#define DOCA_CTX_H_

#include <stddef.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_ctx;
struct doca_dev;

enum doca_ctx_states {
	DOCA_CTX_STATE_IDLE = 0,
	DOCA_CTX_STATE_STARTING = 1,
	DOCA_CTX_STATE_RUNNING = 2,
	DOCA_CTX_STATE_STOPPING = 3,
};

typedef void (*doca_ctx_state_changed_callback_t)(const union doca_data user_data, struct doca_ctx *ctx,
						  enum doca_ctx_states prev_state, enum doca_ctx_states next_state);

/* SUCCESS: RUNNING now; IN_PROGRESS: STARTING, RUNNING comes inside doca_pe_progress(). */
DOCA_EXPERIMENTAL doca_error_t doca_ctx_start(struct doca_ctx *ctx);
/* SUCCESS: IDLE now; IN_PROGRESS: STOPPING, IDLE comes inside doca_pe_progress(). */
DOCA_EXPERIMENTAL doca_error_t doca_ctx_stop(struct doca_ctx *ctx);
DOCA_EXPERIMENTAL doca_error_t doca_ctx_get_state(const struct doca_ctx *ctx, enum doca_ctx_states *state);
DOCA_EXPERIMENTAL doca_error_t doca_ctx_set_user_data(struct doca_ctx *ctx, union doca_data user_data);
DOCA_EXPERIMENTAL doca_error_t doca_ctx_get_user_data(const struct doca_ctx *ctx, union doca_data *user_data);
DOCA_EXPERIMENTAL doca_error_t doca_ctx_set_state_changed_cb(struct doca_ctx *ctx,
							     doca_ctx_state_changed_callback_t cb);
DOCA_EXPERIMENTAL doca_error_t doca_ctx_get_num_inflight_tasks(const struct doca_ctx *ctx, size_t *num_inflight_tasks);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_CTX_H_ */
