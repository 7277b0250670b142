/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Test fixture: answers every command with a notification that copies it.
 * Payload prefixes steer worker_cmd:
 *   "FAIL"     take the descriptor, free it, return NOT_SUPPORTED
 *   "KEEPFAIL" leave the descriptor on the list, return AGAIN
 *   "KEEP"     leave the descriptor on the list, return SUCCESS
 * notif_pack writes the notification as the ABI lays it out.
 * fixture_heap_in_use() reports the process's malloc()ed bytes (mallinfo2).
 */
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include <urom_plugin.h>
#include <urom_plugin_util.h>

#define EXPORT __attribute__((visibility("default")))

static const char address[] = "echo-address-0123456789";

static int has_prefix(const struct urom_worker_cmd *cmd, const char *prefix)
{
	size_t n = strlen(prefix);
	return cmd->len >= n && memcmp(cmd->plugin_cmd, prefix, n) == 0;
}

static urom_status_t echo_open(struct urom_worker_ctx *ctx)
{
	urom_list_link_t *pending = malloc(sizeof(*pending));
	if (pending == NULL)
		return UROM_ERR_NO_MEMORY;
	urom_list_init(pending);
	ctx->plugin_ctx = pending;
	return UROM_SUCCESS;
}

static void echo_close(struct urom_worker_ctx *ctx)
{
	urom_list_link_t *pending = ctx->plugin_ctx;
	while (!urom_list_is_empty(pending)) {
		urom_list_link_t *node = pending->next;
		urom_list_del(node);
		free(node);
	}
	free(pending);
	ctx->plugin_ctx = NULL;
}

static urom_status_t echo_addr(struct urom_worker_ctx *ctx, void *addr, size_t *len)
{
	(void)ctx;
	if (*len < sizeof(address) - 1) {
		*len = sizeof(address) - 1;
		return UROM_ERR_INVALID_VALUE;
	}
	memcpy(addr, address, sizeof(address) - 1);
	*len = sizeof(address) - 1;
	return UROM_SUCCESS;
}

static urom_status_t echo_cmd(struct urom_worker_ctx *ctx, urom_list_link_t *cmds)
{
	urom_list_link_t *pending = ctx->plugin_ctx;
	struct urom_worker_cmd_desc *c = (struct urom_worker_cmd_desc *)cmds->next;
	struct urom_worker_notif_desc *n;

	if (urom_list_is_empty(cmds))
		return UROM_ERR_INVALID_VALUE;
	if (has_prefix(&c->worker_cmd, "KEEPFAIL"))
		return UROM_ERR_AGAIN;
	if (has_prefix(&c->worker_cmd, "KEEP"))
		return UROM_SUCCESS;
	urom_list_del(&c->entry);
	if (has_prefix(&c->worker_cmd, "FAIL")) {
		free(c);
		return UROM_ERR_NOT_SUPPORTED;
	}
	n = malloc(sizeof(*n) + c->worker_cmd.len);
	if (n == NULL) {
		free(c);
		return UROM_ERR_NO_MEMORY;
	}
	n->dest_id = c->dest_id;
	n->worker_notif.type = c->worker_cmd.type;
	n->worker_notif.urom_context = c->worker_cmd.urom_context;
	n->worker_notif.len = c->worker_cmd.len;
	n->worker_notif.status = UROM_SUCCESS;
	n->worker_notif.reserved = 0;
	memcpy(n->worker_notif.plugin_notif, c->worker_cmd.plugin_cmd, c->worker_cmd.len);
	urom_list_add_tail(pending, &n->entry);
	free(c);
	return UROM_SUCCESS;
}

static urom_status_t echo_progress(struct urom_worker_ctx *ctx, urom_list_link_t *out)
{
	urom_list_link_t *pending = ctx->plugin_ctx;
	if (urom_list_is_empty(pending))
		return UROM_ERR_EMPTY;
	urom_list_move_tail(out, pending);
	return UROM_SUCCESS;
}

static urom_status_t echo_pack(struct urom_worker_notify *n, size_t *len, void *out)
{
	size_t need = sizeof(*n) + n->len;
	if (*len < need) {
		*len = need;
		return UROM_ERR_INVALID_VALUE;
	}
	memcpy(out, n, need);
	*len = need;
	return UROM_SUCCESS;
}

EXPORT urom_status_t urom_plugin_get_iface(struct urom_plugin_iface *iface)
{
	iface->api_version = UROM_PLUGIN_API_VERSION;
	iface->open = echo_open;
	iface->close = echo_close;
	iface->addr = echo_addr;
	iface->worker_cmd = echo_cmd;
	iface->progress = echo_progress;
	iface->notif_pack = echo_pack;
	return UROM_SUCCESS;
}

EXPORT urom_status_t urom_plugin_get_version(uint64_t *version)
{
	*version = 42;
	return UROM_SUCCESS;
}

EXPORT uint64_t fixture_heap_in_use(void)
{
	struct mallinfo2 info = mallinfo2();
	return info.uordblks + info.hblkhd;
}
