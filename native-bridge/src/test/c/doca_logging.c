/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Test fixture written the DOCA way (compat headers): logs a warning from
 * open() through DOCA_LOG_WARN under the source UROM::TEST::LOG.
 */
#include <doca_error.h>
#include <doca_log.h>
#include <doca_urom_plugin.h>

DOCA_LOG_REGISTER(UROM::TEST::LOG);

static doca_error_t l_open(struct urom_worker_ctx *ctx)
{
	ctx->plugin_ctx = NULL;
	DOCA_LOG_WARN("opened with %d look-ups, status %s", 4, doca_error_get_name(DOCA_SUCCESS));
	DOCA_LOG_DBG("debug detail %d", 7);
	return DOCA_SUCCESS;
}

static void l_close(struct urom_worker_ctx *ctx)
{
	(void)ctx;
}
static doca_error_t l_addr(struct urom_worker_ctx *ctx, void *a, size_t *l)
{
	(void)ctx;
	(void)a;
	*l = 0;
	return DOCA_SUCCESS;
}
static doca_error_t l_cmd(struct urom_worker_ctx *ctx, ucs_list_link_t *l)
{
	(void)ctx;
	(void)l;
	return DOCA_ERROR_NOT_SUPPORTED;
}
static doca_error_t l_progress(struct urom_worker_ctx *ctx, ucs_list_link_t *l)
{
	(void)ctx;
	(void)l;
	return DOCA_ERROR_EMPTY;
}
static doca_error_t l_pack(struct urom_worker_notify *n, size_t *l, void *o)
{
	(void)n;
	(void)l;
	(void)o;
	return DOCA_ERROR_NOT_SUPPORTED;
}

DOCA_EXPORTED doca_error_t urom_plugin_get_iface(struct urom_plugin_iface *iface)
{
	DOCA_STRUCT_PTR_CTOR(iface);
	iface->open = l_open;
	iface->close = l_close;
	iface->addr = l_addr;
	iface->worker_cmd = l_cmd;
	iface->progress = l_progress;
	iface->notif_pack = l_pack;
	return DOCA_SUCCESS;
}

DOCA_EXPORTED doca_error_t urom_plugin_get_version(uint64_t *version)
{
	*version = 3;
	return DOCA_SUCCESS;
}
