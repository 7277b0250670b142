/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A plugin for the end-to-end tests of the service. Its command is one byte:
 *   'e' echo the command back at once
 *   'h' hold the command: it is answered only when a later 'r' arrives
 *   'r' release every held command (each answered SUCCESS with its own bytes), then answer itself
 *   'n' answer with one byte: how many commands are held (at most 255)
 *   'c' crash the worker (SIGSEGV)
 * Anything else is refused with UROM_ERR_INVALID_VALUE.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <urom_log.h>
#include <urom_plugin.h>
#include <urom_plugin_util.h>

#define EXPORT __attribute__((visibility("default")))

UROM_LOG_SOURCE(UROM::TEST::SERVICE);

struct fixture {
	urom_list_link_t held;  /* commands waiting for 'r' */
	urom_list_link_t ready; /* notifications for progress() */
};

static urom_status_t answer(struct fixture *f, struct urom_worker_cmd_desc *cmd)
{
	struct urom_worker_notif_desc *n = malloc(sizeof(*n) + cmd->worker_cmd.len);

	if (n == NULL)
		return UROM_ERR_NO_MEMORY;
	n->dest_id = cmd->dest_id;
	n->worker_notif.type = cmd->worker_cmd.type;
	n->worker_notif.urom_context = cmd->worker_cmd.urom_context;
	n->worker_notif.len = cmd->worker_cmd.len;
	n->worker_notif.status = UROM_SUCCESS;
	n->worker_notif.reserved = 0;
	memcpy(n->worker_notif.plugin_notif, cmd->worker_cmd.plugin_cmd, cmd->worker_cmd.len);
	urom_list_add_tail(&f->ready, &n->entry);
	return UROM_SUCCESS;
}

static urom_status_t fixture_open(struct urom_worker_ctx *ctx)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (f == NULL)
		return UROM_ERR_NO_MEMORY;
	urom_list_init(&f->held);
	urom_list_init(&f->ready);
	ctx->plugin_ctx = f;
	UROM_LOG_INFO("service fixture opened");
	return UROM_SUCCESS;
}

static void fixture_close(struct urom_worker_ctx *ctx)
{
	struct fixture *f = ctx->plugin_ctx;
	urom_list_link_t *link;

	while ((link = urom_list_pop_head(&f->held)) != NULL)
		free(link);
	while ((link = urom_list_pop_head(&f->ready)) != NULL)
		free(link);
	free(f);
}

static urom_status_t fixture_addr(struct urom_worker_ctx *ctx, void *addr, size_t *len)
{
	(void)ctx;
	if (*len < 4) {
		*len = 4;
		return UROM_ERR_INVALID_VALUE;
	}
	memcpy(addr, "svcf", 4);
	*len = 4;
	return UROM_SUCCESS;
}

static urom_status_t fixture_cmd(struct urom_worker_ctx *ctx, urom_list_link_t *cmds)
{
	struct fixture *f = ctx->plugin_ctx;
	urom_list_link_t *link;
	urom_status_t status = UROM_SUCCESS;

	while ((link = urom_list_pop_head(cmds)) != NULL) {
		struct urom_worker_cmd_desc *cmd = (struct urom_worker_cmd_desc *)link;
		char op = cmd->worker_cmd.len == 1 ? (char)cmd->worker_cmd.plugin_cmd[0] : '?';

		switch (op) {
		case 'e':
			status = answer(f, cmd);
			free(cmd);
			break;
		case 'h':
			urom_list_add_tail(&f->held, &cmd->entry);
			break;
		case 'r': {
			urom_list_link_t *held;

			while ((held = urom_list_pop_head(&f->held)) != NULL) {
				answer(f, (struct urom_worker_cmd_desc *)held);
				free(held);
			}
			status = answer(f, cmd);
			free(cmd);
			break;
		}
		case 'n': {
			unsigned count = 0;

			for (urom_list_link_t *l = f->held.next; l != &f->held && count < 255; l = l->next)
				count++;
			cmd->worker_cmd.plugin_cmd[0] = (uint8_t)count;
			status = answer(f, cmd);
			free(cmd);
			break;
		}
		case 'c':
			UROM_LOG_ERR("crashing on purpose");
			raise(SIGSEGV);
			free(cmd);
			break;
		default:
			free(cmd);
			status = UROM_ERR_INVALID_VALUE;
		}
		if (status != UROM_SUCCESS)
			return status;
	}
	return status;
}

static urom_status_t fixture_progress(struct urom_worker_ctx *ctx, urom_list_link_t *notifs)
{
	struct fixture *f = ctx->plugin_ctx;
	urom_list_link_t *link;
	int any = 0;

	while ((link = urom_list_pop_head(&f->ready)) != NULL) {
		urom_list_add_tail(notifs, link);
		any = 1;
	}
	return any ? UROM_SUCCESS : UROM_ERR_EMPTY;
}

static urom_status_t fixture_pack(struct urom_worker_notify *n, size_t *len, void *out)
{
	size_t needed = sizeof(*n) + n->len;

	if (*len < needed) {
		*len = needed;
		return UROM_ERR_INVALID_VALUE;
	}
	memcpy(out, n, needed);
	*len = needed;
	return UROM_SUCCESS;
}

EXPORT urom_status_t urom_plugin_get_iface(struct urom_plugin_iface *iface)
{
	if (iface == NULL)
		return UROM_ERR_INVALID_VALUE;
	memset(iface, 0, sizeof(*iface));
	iface->api_version = UROM_PLUGIN_API_VERSION;
	iface->open = fixture_open;
	iface->close = fixture_close;
	iface->addr = fixture_addr;
	iface->worker_cmd = fixture_cmd;
	iface->progress = fixture_progress;
	iface->notif_pack = fixture_pack;
	return UROM_SUCCESS;
}

EXPORT urom_status_t urom_plugin_get_version(uint64_t *version)
{
	if (version == NULL)
		return UROM_ERR_INVALID_VALUE;
	*version = 1;
	return UROM_SUCCESS;
}
