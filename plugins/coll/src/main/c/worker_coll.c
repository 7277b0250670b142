/* SPDX-License-Identifier: Apache-2.0 */
/*
 * worker_coll.so: the C worker side of the collectives plugin (docs/collectives.md).
 *
 * Each open() creates one instance (struct coll_ctx): a UCP context and worker (features TAG and
 * WAKEUP, single-threaded) whose address is the plugin's address under the transport "ucp-coll".
 * worker_cmd() checks and starts commands; progress() drives UCX, hands completed messages to their
 * teams and collectives, runs the collectives and hands out the notifications. While a team is being
 * created or has collectives in flight the instance asks to be polled (arm_wakeup: AGAIN); otherwise
 * it sleeps on the UCP worker's event descriptor.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ucs/debug/debug.h>

#include <urom_log.h>

#include "coll.h"

UROM_LOG_SOURCE(UROM::WORKER::COLL);

/*
 * libucs handles SIGSEGV, SIGBUS, SIGILL and SIGFPE itself once loaded; the JVM that hosts the
 * worker needs them (implicit null checks, safepoints), so they go back to the handlers that were
 * there before, unless UCX_ERROR_SIGNALS chose UCX's signals already.
 */
__attribute__((constructor)) static void give_back_error_signals(void)
{
	static const int signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE};

	if (getenv("UCX_ERROR_SIGNALS") != NULL)
		return;
	for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
		ucs_debug_disable_signal(signals[i]);
}

int64_t coll_now_ns(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec;
}

/* Hands every completed message to its owner; an orphan is freed. Each handler takes it off the list. */
static void handle_done(struct coll_ctx *ctx)
{
	while (!urom_list_is_empty(&ctx->done)) {
		struct coll_msg *msg = UROM_LIST_ENTRY(ctx->done.next, struct coll_msg, link);

		if (msg->op != NULL)
			coll_op_msg_done(msg->op, msg);
		else if (msg->team != NULL)
			coll_team_hello_done(msg->team, msg);
		else
			coll_msg_free(msg);
	}
}

static void run_teams(struct coll_ctx *ctx)
{
	int64_t now = coll_now_ns();
	urom_list_link_t *it = ctx->teams.next;

	while (it != &ctx->teams) {
		struct coll_team *team = UROM_LIST_ENTRY(it, struct coll_team, link);

		it = it->next;
		coll_team_progress(team, now);
	}
}

/* Whether something needs polling: a team being created, a collective queued or running. */
static int busy(const struct coll_ctx *ctx)
{
	if (!urom_list_is_empty(&ctx->done) || !urom_list_is_empty(&ctx->notifications))
		return 1;
	for (const urom_list_link_t *it = ctx->teams.next; it != &ctx->teams; it = it->next) {
		const struct coll_team *team = UROM_LIST_ENTRY(it, struct coll_team, link);

		if (team->state == COLL_TEAM_CREATING ||
		    (team->state == COLL_TEAM_READY && !urom_list_is_empty(&team->ops)))
			return 1;
	}
	return 0;
}

/* ---- open and close ---- */

static void ctx_free(struct coll_ctx *ctx)
{
	ctx->closing = 1;
	while (!urom_list_is_empty(&ctx->teams))
		coll_team_free(UROM_LIST_ENTRY(ctx->teams.next, struct coll_team, link));
	coll_memh_free_all(ctx);
	if (ctx->worker != NULL) {
		int64_t deadline = coll_now_ns() + COLL_CLOSE_DEADLINE_NS;

		coll_msg_orphan(ctx, NULL, NULL);
		for (urom_list_link_t *it = ctx->inflight.next, *next; it != &ctx->inflight; it = next) {
			struct coll_msg *msg = UROM_LIST_ENTRY(it, struct coll_msg, link);

			next = it->next;
			if (msg->request != NULL &&
			    (msg->role == COLL_MSG_HELLO_RECV || msg->role == COLL_MSG_AGREE_RECV ||
			     msg->role == COLL_MSG_DATA_RECV))
				ucp_request_cancel(ctx->worker, msg->request);
		}
		/* endpoints still flushing (a peer that does not progress) are not waited for: freed below */
		while (!urom_list_is_empty(&ctx->inflight) && coll_now_ns() < deadline) {
			ucp_worker_progress(ctx->worker);
			handle_done(ctx);
			coll_eps_reap(ctx, 0);
		}
		handle_done(ctx);
		/* released: UCX completes them without calling back, and the worker can go */
		for (urom_list_link_t *it = ctx->inflight.next; it != &ctx->inflight; it = it->next) {
			struct coll_msg *msg = UROM_LIST_ENTRY(it, struct coll_msg, link);

			if (msg->request != NULL)
				ucp_request_free(msg->request);
			msg->request = NULL;
		}
		coll_eps_reap(ctx, 1);
		if (ctx->address != NULL)
			ucp_worker_release_address(ctx->worker, ctx->address);
		ucp_worker_destroy(ctx->worker);
	}
	/* UCX calls nothing back from here on */
	while (!urom_list_is_empty(&ctx->inflight))
		coll_msg_free(UROM_LIST_ENTRY(ctx->inflight.next, struct coll_msg, link));
	if (ctx->context != NULL)
		ucp_cleanup(ctx->context);
	while (!urom_list_is_empty(&ctx->notifications)) {
		urom_list_link_t *item = ctx->notifications.next;

		urom_list_del(item);
		free(item);
	}
	free(ctx);
}

static urom_status_t open_ucp(struct coll_ctx *ctx)
{
	ucp_config_t *config;
	ucp_params_t params;
	ucp_worker_params_t worker_params;
	ucs_status_t status;

	status = ucp_config_read(NULL, NULL, &config);
	if (status != UCS_OK) {
		UROM_LOG_ERR("cannot read the UCX configuration: %s", ucs_status_string(status));
		return UROM_ERR_BAD_CONFIG;
	}
	memset(&params, 0, sizeof(params));
	params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED | UCP_PARAM_FIELD_NAME;
	params.features = UCP_FEATURE_TAG | UCP_FEATURE_WAKEUP;
	params.mt_workers_shared = 0;
	params.name = "urom-coll";
	status = ucp_init(&params, config, &ctx->context);
	ucp_config_release(config);
	if (status != UCS_OK) {
		ctx->context = NULL;
		UROM_LOG_ERR("cannot initialize UCP: %s", ucs_status_string(status));
		return UROM_ERR_INITIALIZATION;
	}
	memset(&worker_params, 0, sizeof(worker_params));
	worker_params.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
	worker_params.thread_mode = UCS_THREAD_MODE_SINGLE;
	status = ucp_worker_create(ctx->context, &worker_params, &ctx->worker);
	if (status != UCS_OK) {
		ctx->worker = NULL;
		UROM_LOG_ERR("cannot create the UCP worker: %s", ucs_status_string(status));
		return UROM_ERR_INITIALIZATION;
	}
	status = ucp_worker_get_address(ctx->worker, &ctx->address, &ctx->address_len);
	if (status != UCS_OK) {
		ctx->address = NULL;
		UROM_LOG_ERR("cannot get the UCP worker's address: %s", ucs_status_string(status));
		return UROM_ERR_INITIALIZATION;
	}
	if (ucp_worker_get_efd(ctx->worker, &ctx->wakeup_fd) != UCS_OK)
		ctx->wakeup_fd = -1;
	return UROM_SUCCESS;
}

static urom_status_t coll_open(struct urom_worker_ctx *wctx)
{
	struct coll_ctx *ctx;
	urom_status_t status;

	if (wctx == NULL)
		return UROM_ERR_INVALID_VALUE;
	ctx = calloc(1, sizeof(*ctx));
	if (ctx == NULL)
		return UROM_ERR_NO_MEMORY;
	ctx->wctx = wctx;
	ctx->wakeup_fd = -1;
	ctx->next_memh = 1;
	urom_list_init(&ctx->notifications);
	urom_list_init(&ctx->teams);
	urom_list_init(&ctx->hosts);
	urom_list_init(&ctx->memhs);
	urom_list_init(&ctx->inflight);
	urom_list_init(&ctx->done);
	urom_list_init(&ctx->closing_eps);
	status = open_ucp(ctx);
	if (status != UROM_SUCCESS) {
		ctx_free(ctx);
		return status;
	}
	wctx->plugin_ctx = ctx;
	return UROM_SUCCESS;
}

static void coll_close(struct urom_worker_ctx *wctx)
{
	if (wctx == NULL || wctx->plugin_ctx == NULL)
		return;
	ctx_free(wctx->plugin_ctx);
	wctx->plugin_ctx = NULL;
}

static urom_status_t coll_addr(struct urom_worker_ctx *wctx, void *addr, size_t *addr_len)
{
	struct coll_ctx *ctx;

	if (wctx == NULL || wctx->plugin_ctx == NULL || addr_len == NULL)
		return UROM_ERR_INVALID_VALUE;
	ctx = wctx->plugin_ctx;
	if (*addr_len < ctx->address_len || addr == NULL) {
		*addr_len = ctx->address_len;
		return UROM_ERR_INVALID_VALUE;
	}
	memcpy(addr, ctx->address, ctx->address_len);
	*addr_len = ctx->address_len;
	return UROM_SUCCESS;
}

/* Every command is taken and answered (a bad one with its reason): the plugin refuses none outright. */
static urom_status_t coll_worker_cmd(struct urom_worker_ctx *wctx, urom_list_link_t *cmd_list)
{
	struct coll_ctx *ctx;

	if (wctx == NULL || wctx->plugin_ctx == NULL || cmd_list == NULL)
		return UROM_ERR_INVALID_VALUE;
	ctx = wctx->plugin_ctx;
	while (!urom_list_is_empty(cmd_list)) {
		struct urom_worker_cmd_desc *cmd = (struct urom_worker_cmd_desc *)cmd_list->next;

		urom_list_del(&cmd->entry);
		coll_run_command(ctx, cmd);
		free(cmd);
	}
	return UROM_SUCCESS;
}

static urom_status_t coll_progress(struct urom_worker_ctx *wctx, urom_list_link_t *notif_list)
{
	struct coll_ctx *ctx;

	if (wctx == NULL || wctx->plugin_ctx == NULL || notif_list == NULL)
		return UROM_ERR_INVALID_VALUE;
	ctx = wctx->plugin_ctx;
	for (int round = 0; round < COLL_PROGRESS_ROUNDS; round++) {
		int events = (int)ucp_worker_progress(ctx->worker);

		handle_done(ctx);
		if (events == 0)
			break;
	}
	run_teams(ctx);
	handle_done(ctx);
	coll_eps_reap(ctx, 0);
	if (urom_list_is_empty(&ctx->notifications))
		return UROM_ERR_EMPTY;
	while (!urom_list_is_empty(&ctx->notifications)) {
		urom_list_link_t *notification = ctx->notifications.next;

		urom_list_del(notification);
		urom_list_add_tail(notif_list, notification);
	}
	return UROM_SUCCESS;
}

urom_status_t urom_plugin_get_iface(struct urom_plugin_iface *iface)
{
	if (iface == NULL)
		return UROM_ERR_INVALID_VALUE;
	iface->api_version = UROM_PLUGIN_API_VERSION;
	iface->open = coll_open;
	iface->close = coll_close;
	iface->addr = coll_addr;
	iface->worker_cmd = coll_worker_cmd;
	iface->progress = coll_progress;
	iface->notif_pack = urom_notif_pack_inline;
	return UROM_SUCCESS;
}

urom_status_t urom_plugin_get_version(uint64_t *version)
{
	if (version == NULL)
		return UROM_ERR_INVALID_VALUE;
	*version = UROM_COLL_PLUGIN_VERSION;
	return UROM_SUCCESS;
}

urom_status_t urom_plugin_get_transport(const char **name)
{
	if (name == NULL)
		return UROM_ERR_INVALID_VALUE;
	*name = UROM_COLL_TRANSPORT;
	return UROM_SUCCESS;
}

urom_status_t urom_plugin_get_wakeup_fd(struct urom_worker_ctx *wctx, int *fd)
{
	struct coll_ctx *ctx;

	if (wctx == NULL || wctx->plugin_ctx == NULL || fd == NULL)
		return UROM_ERR_INVALID_VALUE;
	ctx = wctx->plugin_ctx;
	if (ctx->wakeup_fd < 0)
		return UROM_ERR_NOT_SUPPORTED;
	*fd = ctx->wakeup_fd;
	return UROM_SUCCESS;
}

/* AGAIN while anything needs polling (a creation, collectives, answers); SUCCESS once UCX is armed. */
urom_status_t urom_plugin_arm_wakeup(struct urom_worker_ctx *wctx)
{
	struct coll_ctx *ctx;
	ucs_status_t status;

	if (wctx == NULL || wctx->plugin_ctx == NULL)
		return UROM_ERR_INVALID_VALUE;
	ctx = wctx->plugin_ctx;
	if (ctx->wakeup_fd < 0)
		return UROM_ERR_NOT_SUPPORTED;
	if (busy(ctx))
		return UROM_ERR_AGAIN;
	status = ucp_worker_arm(ctx->worker);
	if (status == UCS_OK)
		return UROM_SUCCESS;
	if (status == UCS_ERR_BUSY)
		return UROM_ERR_AGAIN;
	UROM_LOG_ERR("cannot arm the UCP worker's wake-up: %s", ucs_status_string(status));
	return UROM_ERR_OPERATING_SYSTEM;
}
