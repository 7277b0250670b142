/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A native plugin whose open() calls iconv_open(UROM_ICONV_CHARSET, "UTF-8"),
 * the way a plugin's strerror or message conversion reaches the C library's
 * gconv loader, and remembers how that went. Every command is answered with
 * SUCCESS and one line of text as the notification's payload:
 *
 *   iconv_open <opened|failed ERRNO> GCONV_PATH=<value|unset> LOCPATH=<...>
 *   LC_ALL=<...> LANGUAGE=<...>
 *
 * (one line, single spaces), so a test sees what the worker's C library was
 * given. Built with -DUROM_ICONV_CHARSET='"NAME"'. Single-threaded, as the
 * worker calls its plugins.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <iconv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <urom_plugin.h>
#include <urom_plugin_util.h>

#ifndef UROM_ICONV_CHARSET
#error "compile with -DUROM_ICONV_CHARSET='\"NAME\"'"
#endif

#define EXPORT __attribute__((visibility("default")))
#define REPORT_MAX 3072

static urom_list_link_t pending = {&pending, &pending};
static char iconv_result[32] = "not called";
static const char address[] = "iconv_plugin";

static urom_status_t probe_open(struct urom_worker_ctx *ctx)
{
	iconv_t conversion = iconv_open(UROM_ICONV_CHARSET, "UTF-8");

	ctx->plugin_ctx = NULL;
	if (conversion == (iconv_t)-1) {
		snprintf(iconv_result, sizeof(iconv_result), "failed %d", errno);
	} else {
		snprintf(iconv_result, sizeof(iconv_result), "opened");
		iconv_close(conversion);
	}
	return UROM_SUCCESS;
}

static void probe_close(struct urom_worker_ctx *ctx)
{
	(void)ctx;
}

static urom_status_t probe_addr(struct urom_worker_ctx *ctx, void *addr, size_t *len)
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

static const char *env_or_unset(const char *name)
{
	const char *value = getenv(name);

	return value == NULL ? "unset" : value;
}

static urom_status_t probe_cmd(struct urom_worker_ctx *ctx, urom_list_link_t *cmds)
{
	(void)ctx;
	while (!urom_list_is_empty(cmds)) {
		struct urom_worker_cmd_desc *cmd = (struct urom_worker_cmd_desc *)cmds->next;
		struct urom_worker_notif_desc *notif;
		char report[REPORT_MAX];
		int len;

		urom_list_del(&cmd->entry);
		len = snprintf(report, sizeof(report),
			       "iconv_open %s GCONV_PATH=%.512s LOCPATH=%.512s LC_ALL=%.512s LANGUAGE=%.512s",
			       iconv_result, env_or_unset("GCONV_PATH"), env_or_unset("LOCPATH"),
			       env_or_unset("LC_ALL"), env_or_unset("LANGUAGE"));
		if (len < 0 || (size_t)len >= sizeof(report)) {
			free(cmd);
			return UROM_ERR_INVALID_VALUE;
		}
		notif = malloc(sizeof(*notif) + (size_t)len);
		if (notif == NULL) {
			free(cmd);
			return UROM_ERR_NO_MEMORY;
		}
		notif->dest_id = cmd->dest_id;
		notif->worker_notif.type = cmd->worker_cmd.type;
		notif->worker_notif.urom_context = cmd->worker_cmd.urom_context;
		notif->worker_notif.len = (uint64_t)len;
		notif->worker_notif.status = UROM_SUCCESS;
		notif->worker_notif.reserved = 0;
		memcpy(notif->worker_notif.plugin_notif, report, (size_t)len);
		urom_list_add_tail(&pending, &notif->entry);
		free(cmd);
	}
	return UROM_SUCCESS;
}

static urom_status_t probe_progress(struct urom_worker_ctx *ctx, urom_list_link_t *out)
{
	(void)ctx;
	if (urom_list_is_empty(&pending))
		return UROM_ERR_EMPTY;
	urom_list_move_tail(out, &pending);
	return UROM_SUCCESS;
}

EXPORT urom_status_t urom_plugin_get_iface(struct urom_plugin_iface *iface)
{
	if (iface == NULL)
		return UROM_ERR_INVALID_VALUE;
	iface->api_version = UROM_PLUGIN_API_VERSION;
	iface->open = probe_open;
	iface->close = probe_close;
	iface->addr = probe_addr;
	iface->worker_cmd = probe_cmd;
	iface->progress = probe_progress;
	iface->notif_pack = urom_notif_pack_inline;
	return UROM_SUCCESS;
}

EXPORT urom_status_t urom_plugin_get_version(uint64_t *version)
{
	if (version == NULL)
		return UROM_ERR_INVALID_VALUE;
	*version = 1;
	return UROM_SUCCESS;
}
