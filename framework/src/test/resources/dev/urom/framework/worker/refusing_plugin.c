/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A native plugin for the framework's tests: refuses every command with NOT_SUPPORTED.
 * -DFAIL_OPEN: its open fails with NO_MEMORY. -DMARK_FILE="path": its close appends a line there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <urom_plugin.h>
#include <urom_plugin_util.h>

#define EXPORT __attribute__((visibility("default")))

static urom_status_t refuse_open(struct urom_worker_ctx *ctx)
{
	(void)ctx;
#ifdef FAIL_OPEN
	return UROM_ERR_NO_MEMORY;
#else
	return UROM_SUCCESS;
#endif
}
static void refuse_close(struct urom_worker_ctx *ctx)
{
	(void)ctx;
#ifdef MARK_FILE
	FILE *f = fopen(MARK_FILE, "a");
	if (f != NULL) {
		fputs("closed\n", f);
		fclose(f);
	}
#endif
}
static urom_status_t refuse_addr(struct urom_worker_ctx *ctx, void *addr, size_t *len)
{
	(void)ctx;
	(void)addr;
	*len = 0;
	return UROM_SUCCESS;
}
static urom_status_t refuse_cmd(struct urom_worker_ctx *ctx, urom_list_link_t *cmds)
{
	urom_list_link_t *n;

	(void)ctx;
	while ((n = urom_list_pop_head(cmds)) != NULL)
		free(n);
	return UROM_ERR_NOT_SUPPORTED;
}
static urom_status_t refuse_progress(struct urom_worker_ctx *ctx, urom_list_link_t *out)
{
	(void)ctx;
	(void)out;
	return UROM_ERR_EMPTY;
}
static urom_status_t refuse_pack(struct urom_worker_notify *n, size_t *len, void *out)
{
	(void)n;
	(void)len;
	(void)out;
	return UROM_ERR_NOT_SUPPORTED;
}

EXPORT urom_status_t urom_plugin_get_iface(struct urom_plugin_iface *iface)
{
	iface->api_version = UROM_PLUGIN_API_VERSION;
	iface->open = refuse_open;
	iface->close = refuse_close;
	iface->addr = refuse_addr;
	iface->worker_cmd = refuse_cmd;
	iface->progress = refuse_progress;
	iface->notif_pack = refuse_pack;
	return UROM_SUCCESS;
}

EXPORT urom_status_t urom_plugin_get_version(uint64_t *version)
{
	*version = 1;
	return UROM_SUCCESS;
}
