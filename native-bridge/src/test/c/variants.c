/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Test fixture with compile-time defects, for load and probe failures:
 *   -DOMIT_GET_IFACE / -DOMIT_GET_VERSION   leave an entry symbol out
 *   -DIFACE_STATUS=<n>                      urom_plugin_get_iface returns n
 *   -DAPI_VERSION=<n>                       stamps n as the API version
 *   -DNARROW_VERSION_FIELD                  older SDK layout: a uint32_t version
 *                                           field, the padding after it filled
 *                                           with garbage
 *   -DCTOR_SEGV / -DCTOR_EXIT=<n> / -DCTOR_HANG   the constructor misbehaves
 *   -DHELPER_VALUE=<n>                      exports helper() returning n; the
 *                                           plugin version is helper()'s answer
 *   -DUNDEFINED_CALL=<name>                 worker_cmd calls name(), which no
 *                                           library defines (a plugin not linked
 *                                           with the library it calls)
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef NARROW_VERSION_FIELD
#define UROM_IFACE_VERSION_FIELD uint32_t api_version
#endif
#include <urom_plugin.h>

#define EXPORT __attribute__((visibility("default")))
#define UNUSED __attribute__((unused))

#ifndef IFACE_STATUS
#define IFACE_STATUS UROM_SUCCESS
#endif
#ifndef API_VERSION
#define API_VERSION UROM_PLUGIN_API_VERSION
#endif

#if defined(CTOR_SEGV) || defined(CTOR_EXIT) || defined(CTOR_HANG)
__attribute__((constructor)) static void misbehave(void)
{
#if defined(CTOR_SEGV)
	raise(SIGSEGV);
#elif defined(CTOR_EXIT)
	exit(CTOR_EXIT);
#else
	for (;;)
		pause();
#endif
}
#endif

#ifdef HELPER_VALUE
EXPORT __attribute__((noinline)) uint64_t helper(void)
{
	return HELPER_VALUE;
}
#endif

UNUSED static urom_status_t v_open(struct urom_worker_ctx *ctx)
{
	(void)ctx;
	return UROM_SUCCESS;
}
UNUSED static void v_close(struct urom_worker_ctx *ctx)
{
	(void)ctx;
}
UNUSED static urom_status_t v_addr(struct urom_worker_ctx *ctx, void *a, size_t *l)
{
	(void)ctx;
	(void)a;
	*l = 0;
	return UROM_SUCCESS;
}
#ifdef UNDEFINED_CALL
extern int UNDEFINED_CALL(void);
UNUSED static urom_status_t v_cmd(struct urom_worker_ctx *ctx, urom_list_link_t *l)
{
	(void)ctx;
	(void)l;
	return UNDEFINED_CALL() == 0 ? UROM_SUCCESS : UROM_ERR_NOT_SUPPORTED;
}
#else
UNUSED static urom_status_t v_cmd(struct urom_worker_ctx *ctx, urom_list_link_t *l)
{
	(void)ctx;
	(void)l;
	return UROM_ERR_NOT_SUPPORTED;
}
#endif
UNUSED static urom_status_t v_progress(struct urom_worker_ctx *ctx, urom_list_link_t *l)
{
	(void)ctx;
	(void)l;
	return UROM_ERR_EMPTY;
}
UNUSED static urom_status_t v_pack(struct urom_worker_notify *n, size_t *l, void *o)
{
	(void)n;
	(void)l;
	(void)o;
	return UROM_ERR_NOT_SUPPORTED;
}

#ifndef OMIT_GET_IFACE
EXPORT urom_status_t urom_plugin_get_iface(struct urom_plugin_iface *iface)
{
	memset(iface, 0xAB, sizeof(*iface));
	iface->api_version = API_VERSION;
	iface->open = v_open;
	iface->close = v_close;
	iface->addr = v_addr;
	iface->worker_cmd = v_cmd;
	iface->progress = v_progress;
	iface->notif_pack = v_pack;
	return IFACE_STATUS;
}
#endif

#ifndef OMIT_GET_VERSION
EXPORT urom_status_t urom_plugin_get_version(uint64_t *version)
{
#ifdef HELPER_VALUE
	*version = helper();
#else
	*version = 5;
#endif
	return UROM_SUCCESS;
}
#endif
