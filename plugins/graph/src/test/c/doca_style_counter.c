/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A test fixture written the way a DOCA UROM plugin is written: DOCA's
 * headers, DOCA's status codes and log macros, DOCA_STRUCT_CTOR on the
 * interface table and UCX's list helpers. It must build unchanged against
 * urom-java's compatibility headers, with UCX's <ucs/datastruct/list.h> or
 * with the fallback copy.
 *
 * Behaviour: a running sum per plugin instance.
 *   command      { uint64 op; int64 value; }  op 0 = ADD, exactly 16 bytes
 *   notification { uint64 op; int64 sum; }    the sum after the ADD
 * A command of another length: DOCA_ERROR_INVALID_VALUE; another op:
 * DOCA_ERROR_NOT_SUPPORTED; no notification in either case.
 * The address is the name of the list header that was compiled in ("ucx" or
 * "fallback"), so a test can tell which one it got.
 */
#include <stdlib.h>
#include <string.h>

#include <doca_urom_plugin.h>
#include <doca_error.h>
#include <doca_compat.h>
#include <doca_log.h>
#include <ucs/datastruct/list.h>

DOCA_LOG_REGISTER(UROM::WORKER::COUNTER);

#if defined(UCS_LIST_H_)
static const char list_header_used[] = "ucx";
#else
static const char list_header_used[] = "fallback";
#endif

enum counter_op {
	COUNTER_OP_ADD = 0,
};

struct counter_message {
	uint64_t op;
	int64_t value;
};

struct counter_state {
	ucs_list_link_t instances; /* link in open_counters */
	ucs_list_link_t ready;     /* notification descriptors to hand out */
	int64_t sum;
};

/* Every open instance, so a stray close can be spotted. */
static ucs_list_link_t open_counters = UCS_LIST_INITIALIZER(&open_counters, &open_counters);

static struct {
	struct urom_plugin_iface super;
} counter_plugin;

static doca_error_t counter_open(struct urom_worker_ctx *ctx)
{
	struct counter_state *state = calloc(1, sizeof(*state));

	if (state == NULL) {
		DOCA_LOG_ERR("No memory for the counter state");
		return DOCA_ERROR_NO_MEMORY;
	}
	ucs_list_head_init(&state->ready);
	ucs_list_add_tail(&open_counters, &state->instances);
	ctx->plugin_ctx = state;
	DOCA_LOG_INFO("Counter opened (%lu open)", ucs_list_length(&open_counters));
	return DOCA_SUCCESS;
}

static void counter_close(struct urom_worker_ctx *ctx)
{
	struct counter_state *state = ctx->plugin_ctx;
	struct urom_worker_notif_desc *desc, *next;

	if (state == NULL)
		return;
	ucs_list_for_each_safe(desc, next, &state->ready, entry) {
		ucs_list_del(&desc->entry);
		free(desc);
	}
	ucs_list_del(&state->instances);
	free(state);
	ctx->plugin_ctx = NULL;
}

static doca_error_t counter_addr(struct urom_worker_ctx *ctx, void *addr, uint64_t *addr_len)
{
	(void)ctx;
	if (*addr_len < sizeof(list_header_used) - 1) {
		*addr_len = sizeof(list_header_used) - 1;
		return DOCA_ERROR_INVALID_VALUE;
	}
	memcpy(addr, list_header_used, sizeof(list_header_used) - 1);
	*addr_len = sizeof(list_header_used) - 1;
	return DOCA_SUCCESS;
}

static doca_error_t counter_handle(struct counter_state *state, struct urom_worker_cmd_desc *cmd_desc)
{
	struct urom_worker_cmd *cmd = &cmd_desc->worker_cmd;
	struct urom_worker_notif_desc *notif_desc;
	struct counter_message in, *out;

	if (cmd->len != sizeof(in)) {
		DOCA_LOG_ERR("Counter command has %lu bytes, expected %zu", (unsigned long)cmd->len, sizeof(in));
		return DOCA_ERROR_INVALID_VALUE;
	}
	memcpy(&in, cmd->plugin_cmd, sizeof(in));
	if (in.op != COUNTER_OP_ADD) {
		DOCA_LOG_ERR("Counter op %lu is not supported", (unsigned long)in.op);
		return DOCA_ERROR_NOT_SUPPORTED;
	}

	notif_desc = calloc(1, sizeof(*notif_desc) + sizeof(*out));
	if (notif_desc == NULL)
		return DOCA_ERROR_NO_MEMORY;
	state->sum += in.value;
	notif_desc->dest_id = cmd_desc->dest_id;
	notif_desc->worker_notif.type = cmd->type;
	notif_desc->worker_notif.urom_context = cmd->urom_context;
	notif_desc->worker_notif.len = sizeof(*out);
	notif_desc->worker_notif.status = DOCA_SUCCESS;
	out = (struct counter_message *)notif_desc->worker_notif.plugin_notif;
	out->op = COUNTER_OP_ADD;
	out->value = state->sum;
	ucs_list_add_tail(&state->ready, &notif_desc->entry);
	return DOCA_SUCCESS;
}

static doca_error_t counter_worker_cmd(struct urom_worker_ctx *ctx, ucs_list_link_t *cmd_list)
{
	struct counter_state *state = ctx->plugin_ctx;
	struct urom_worker_cmd_desc *cmd_desc;
	doca_error_t result;

	while (!ucs_list_is_empty(cmd_list)) {
		cmd_desc = ucs_list_extract_head(cmd_list, struct urom_worker_cmd_desc, entry);
		result = counter_handle(state, cmd_desc);
		free(cmd_desc);
		if (result != DOCA_SUCCESS)
			return result;
	}
	return DOCA_SUCCESS;
}

static doca_error_t counter_progress(struct urom_worker_ctx *ctx, ucs_list_link_t *notif_list)
{
	struct counter_state *state = ctx->plugin_ctx;
	struct urom_worker_notif_desc *desc;

	if (ucs_list_is_empty(&state->ready))
		return DOCA_ERROR_EMPTY;
	while (!ucs_list_is_empty(&state->ready)) {
		desc = ucs_list_extract_head(&state->ready, struct urom_worker_notif_desc, entry);
		ucs_list_add_tail(notif_list, &desc->entry);
	}
	return DOCA_SUCCESS;
}

static doca_error_t counter_notif_pack(struct urom_worker_notify *notif, size_t *packed_notif_len, void *packed_notif)
{
	size_t needed = sizeof(*notif) + notif->len;

	if (*packed_notif_len < needed)
		return DOCA_ERROR_INVALID_VALUE;
	memcpy(packed_notif, notif, needed);
	*packed_notif_len = needed;
	return DOCA_SUCCESS;
}

DOCA_EXPORTED doca_error_t urom_plugin_get_iface(struct urom_plugin_iface *iface)
{
	if (iface == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	counter_plugin.super.open = counter_open;
	counter_plugin.super.close = counter_close;
	counter_plugin.super.addr = counter_addr;
	counter_plugin.super.worker_cmd = counter_worker_cmd;
	counter_plugin.super.progress = counter_progress;
	counter_plugin.super.notif_pack = counter_notif_pack;
	DOCA_STRUCT_CTOR(counter_plugin.super);
	*iface = counter_plugin.super;
	return DOCA_SUCCESS;
}

DOCA_EXPORTED doca_error_t urom_plugin_get_version(uint64_t *version)
{
	if (version == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*version = 3;
	return DOCA_SUCCESS;
}
