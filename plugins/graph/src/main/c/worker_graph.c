/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom-java graph sample plugin: LOOPBACK.
 *
 * Command payload (little-endian, exactly 16 bytes): { uint64 type; uint64 data; }
 * with type 0 = LOOPBACK. The answer carries the same two words back with
 * UROM_SUCCESS. Anything else is refused by worker_cmd():
 *   - a payload that is not exactly 16 bytes: UROM_ERR_INVALID_VALUE;
 *   - a type other than LOOPBACK:             UROM_ERR_NOT_SUPPORTED.
 * A refused command gets no notification from the plugin (the worker reports
 * the returned status); its descriptor is freed exactly once either way.
 *
 * Each open() creates one instance with its own queue of pending answers and
 * an 8-byte address (a process-wide instance number, little-endian). The
 * worker drives an instance from one thread, so the queue needs no lock.
 */
#include <stdlib.h>
#include <string.h>

#include <urom_log.h>
#include <urom_plugin.h>
#include <urom_plugin_util.h>

#define GRAPH_EXPORT __attribute__((visibility("default")))

#define GRAPH_PLUGIN_VERSION 1
#define GRAPH_CMD_LOOPBACK 0
#define GRAPH_PAYLOAD_BYTES 16
#define GRAPH_ADDRESS_BYTES 8

UROM_LOG_SOURCE(worker_graph);

/* The layout of both the LOOPBACK command and its notification. */
struct graph_message {
	uint64_t type;
	uint64_t data;
};

_Static_assert(sizeof(struct graph_message) == GRAPH_PAYLOAD_BYTES, "graph messages are two words");

struct graph_instance {
	urom_list_link_t answers; /* notification descriptors not yet handed out */
	uint8_t address[GRAPH_ADDRESS_BYTES];
};

static uint64_t graph_instances_opened;

static urom_status_t graph_open(struct urom_worker_ctx *ctx)
{
	struct graph_instance *instance;

	if (ctx == NULL)
		return UROM_ERR_INVALID_VALUE;
	instance = calloc(1, sizeof(*instance));
	if (instance == NULL) {
		UROM_LOG_ERR("cannot allocate the graph plugin instance");
		return UROM_ERR_NO_MEMORY;
	}
	urom_list_init(&instance->answers);
	urom_store_le64(instance->address, __atomic_add_fetch(&graph_instances_opened, 1, __ATOMIC_RELAXED));
	ctx->plugin_ctx = instance;
	return UROM_SUCCESS;
}

static void graph_close(struct urom_worker_ctx *ctx)
{
	struct graph_instance *instance;
	urom_list_link_t *pending;

	if (ctx == NULL || ctx->plugin_ctx == NULL)
		return;
	instance = ctx->plugin_ctx;
	while ((pending = urom_list_pop_head(&instance->answers)) != NULL)
		free(pending);
	free(instance);
	ctx->plugin_ctx = NULL;
}

static urom_status_t graph_addr(struct urom_worker_ctx *ctx, void *addr, size_t *addr_len)
{
	struct graph_instance *instance;

	if (ctx == NULL || ctx->plugin_ctx == NULL || addr_len == NULL)
		return UROM_ERR_INVALID_VALUE;
	instance = ctx->plugin_ctx;
	if (*addr_len < GRAPH_ADDRESS_BYTES || addr == NULL) {
		*addr_len = GRAPH_ADDRESS_BYTES;
		return UROM_ERR_INVALID_VALUE;
	}
	memcpy(addr, instance->address, GRAPH_ADDRESS_BYTES);
	*addr_len = GRAPH_ADDRESS_BYTES;
	return UROM_SUCCESS;
}

/* Answers one command; the caller frees the command descriptor. */
static urom_status_t graph_answer(struct graph_instance *instance, const struct urom_worker_cmd_desc *cmd)
{
	struct urom_worker_notif_desc *answer;
	struct graph_message message;

	if (cmd->worker_cmd.len != GRAPH_PAYLOAD_BYTES) {
		UROM_LOG_ERR("graph command of %llu bytes refused: a graph command is exactly %d bytes",
			     (unsigned long long)cmd->worker_cmd.len, GRAPH_PAYLOAD_BYTES);
		return UROM_ERR_INVALID_VALUE;
	}
	message.type = urom_load_le64(cmd->worker_cmd.plugin_cmd);
	message.data = urom_load_le64(cmd->worker_cmd.plugin_cmd + 8);
	if (message.type != GRAPH_CMD_LOOPBACK) {
		UROM_LOG_ERR("graph command type %llu is not supported: the graph plugin knows only LOOPBACK (%d)",
			     (unsigned long long)message.type, GRAPH_CMD_LOOPBACK);
		return UROM_ERR_NOT_SUPPORTED;
	}

	answer = malloc(sizeof(*answer) + GRAPH_PAYLOAD_BYTES);
	if (answer == NULL) {
		UROM_LOG_ERR("cannot allocate a LOOPBACK notification");
		return UROM_ERR_NO_MEMORY;
	}
	answer->dest_id = cmd->dest_id;
	answer->worker_notif.type = cmd->worker_cmd.type;
	answer->worker_notif.urom_context = cmd->worker_cmd.urom_context;
	answer->worker_notif.len = GRAPH_PAYLOAD_BYTES;
	answer->worker_notif.status = UROM_SUCCESS;
	answer->worker_notif.reserved = 0;
	urom_store_le64(answer->worker_notif.plugin_notif, GRAPH_CMD_LOOPBACK);
	urom_store_le64(answer->worker_notif.plugin_notif + 8, message.data);
	urom_list_add_tail(&instance->answers, &answer->entry);
	return UROM_SUCCESS;
}

/*
 * Takes commands off cmd_list one by one and answers each. On the first
 * refused command its status is returned and the commands behind it stay on
 * the list, still owned by the caller.
 */
static urom_status_t graph_worker_cmd(struct urom_worker_ctx *ctx, urom_list_link_t *cmd_list)
{
	struct graph_instance *instance;

	if (ctx == NULL || ctx->plugin_ctx == NULL || cmd_list == NULL)
		return UROM_ERR_INVALID_VALUE;
	instance = ctx->plugin_ctx;
	while (!urom_list_is_empty(cmd_list)) {
		struct urom_worker_cmd_desc *cmd = (struct urom_worker_cmd_desc *)cmd_list->next;
		urom_status_t status;

		urom_list_del(&cmd->entry);
		status = graph_answer(instance, cmd);
		free(cmd);
		if (status != UROM_SUCCESS)
			return status;
	}
	return UROM_SUCCESS;
}

static urom_status_t graph_progress(struct urom_worker_ctx *ctx, urom_list_link_t *notif_list)
{
	struct graph_instance *instance;

	if (ctx == NULL || ctx->plugin_ctx == NULL || notif_list == NULL)
		return UROM_ERR_INVALID_VALUE;
	instance = ctx->plugin_ctx;
	if (urom_list_is_empty(&instance->answers))
		return UROM_ERR_EMPTY;
	urom_list_move_tail(notif_list, &instance->answers);
	return UROM_SUCCESS;
}

GRAPH_EXPORT urom_status_t urom_plugin_get_iface(struct urom_plugin_iface *iface)
{
	if (iface == NULL)
		return UROM_ERR_INVALID_VALUE;
	iface->api_version = UROM_PLUGIN_API_VERSION;
	iface->open = graph_open;
	iface->close = graph_close;
	iface->addr = graph_addr;
	iface->worker_cmd = graph_worker_cmd;
	iface->progress = graph_progress;
	iface->notif_pack = urom_notif_pack_inline;
	return UROM_SUCCESS;
}

GRAPH_EXPORT urom_status_t urom_plugin_get_version(uint64_t *version)
{
	if (version == NULL)
		return UROM_ERR_INVALID_VALUE;
	*version = GRAPH_PLUGIN_VERSION;
	return UROM_SUCCESS;
}
