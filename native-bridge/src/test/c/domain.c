/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Test fixture: each command { u64 op; u64 domain_id; u64 size } calls one
 * domain look-up of the worker context and answers with a notification whose
 * status is the look-up's status and whose payload is what it got:
 *   op 0 addr_lookup: the first `size` bytes at the returned address
 *   op 1 seg_lookup (va = size): the segment as a u64
 *   op 2 memh_lookup (seg = size): u64 length, then the bytes
 *   op 3 mkey_lookup (seg = size): u64 length, then the bytes
 */
#include <stdlib.h>
#include <string.h>

#include <urom_plugin.h>
#include <urom_plugin_util.h>

#define EXPORT __attribute__((visibility("default")))

struct request {
	uint64_t op;
	uint64_t domain_id;
	uint64_t size;
};

static urom_status_t d_open(struct urom_worker_ctx *ctx)
{
	urom_list_link_t *pending = malloc(sizeof(*pending));
	if (pending == NULL)
		return UROM_ERR_NO_MEMORY;
	urom_list_init(pending);
	ctx->plugin_ctx = pending;
	return UROM_SUCCESS;
}

static void d_close(struct urom_worker_ctx *ctx)
{
	free(ctx->plugin_ctx);
}

static urom_status_t d_addr(struct urom_worker_ctx *ctx, void *addr, size_t *len)
{
	(void)ctx;
	(void)addr;
	*len = 0;
	return UROM_SUCCESS;
}

static struct urom_worker_notif_desc *reply(const struct urom_worker_cmd_desc *c, urom_status_t status, const void *a,
					    size_t alen, const void *b, size_t blen)
{
	struct urom_worker_notif_desc *n = malloc(sizeof(*n) + alen + blen);
	n->dest_id = c->dest_id;
	n->worker_notif.type = c->worker_cmd.type;
	n->worker_notif.urom_context = c->worker_cmd.urom_context;
	n->worker_notif.len = alen + blen;
	n->worker_notif.status = status;
	n->worker_notif.reserved = 0;
	if (alen)
		memcpy(n->worker_notif.plugin_notif, a, alen);
	if (blen)
		memcpy(n->worker_notif.plugin_notif + alen, b, blen);
	return n;
}

static urom_status_t d_cmd(struct urom_worker_ctx *ctx, urom_list_link_t *cmds)
{
	struct urom_worker_cmd_desc *c = (struct urom_worker_cmd_desc *)cmds->next;
	struct urom_worker_notif_desc *n = NULL;
	struct request req;
	urom_status_t status;

	urom_list_del(&c->entry);
	if (c->worker_cmd.len != sizeof(req)) {
		free(c);
		return UROM_ERR_INVALID_VALUE;
	}
	memcpy(&req, c->worker_cmd.plugin_cmd, sizeof(req));
	if (req.op == 0) {
		void *addr = NULL;
		status = ctx->domain_iface.addr_lookup(ctx, req.domain_id, &addr);
		n = reply(c, status, addr, status == UROM_SUCCESS ? req.size : 0, NULL, 0);
	} else if (req.op == 1) {
		int seg = -1;
		uint64_t seg64;
		status = ctx->domain_iface.seg_lookup(ctx, req.domain_id, req.size, &seg);
		seg64 = (uint64_t)(int64_t)seg;
		n = reply(c, status, &seg64, sizeof(seg64), NULL, 0);
	} else {
		size_t len = 0;
		void *buf = NULL;
		uint64_t len64;
		if (req.op == 2)
			status = ctx->domain_iface.memh_lookup(ctx, req.domain_id, (int)req.size, &len, &buf);
		else
			status = ctx->domain_iface.mkey_lookup(ctx, req.domain_id, (int)req.size, &len, &buf);
		len64 = len;
		n = reply(c, status, &len64, sizeof(len64), buf, status == UROM_SUCCESS ? len : 0);
	}
	free(c);
	if (n == NULL)
		return UROM_ERR_NO_MEMORY;
	urom_list_add_tail(ctx->plugin_ctx, &n->entry);
	return UROM_SUCCESS;
}

static urom_status_t d_progress(struct urom_worker_ctx *ctx, urom_list_link_t *out)
{
	if (urom_list_is_empty(ctx->plugin_ctx))
		return UROM_ERR_EMPTY;
	urom_list_move_tail(out, ctx->plugin_ctx);
	return UROM_SUCCESS;
}

static urom_status_t d_pack(struct urom_worker_notify *n, size_t *len, void *out)
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
	iface->open = d_open;
	iface->close = d_close;
	iface->addr = d_addr;
	iface->worker_cmd = d_cmd;
	iface->progress = d_progress;
	iface->notif_pack = d_pack;
	return UROM_SUCCESS;
}

EXPORT urom_status_t urom_plugin_get_version(uint64_t *version)
{
	*version = 1;
	return UROM_SUCCESS;
}
