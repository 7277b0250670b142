/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom-java DOCA compatibility: the DOCA UROM plugin header, expressed as the
 * framework's own ABI (urom_plugin.h) with UCX's list link and DOCA's
 * struct-version field. Include order matters: the list type and the version
 * field are chosen before urom_plugin.h is read.
 *
 * <ucs/datastruct/list.h> is UCX's header when UCX is installed; otherwise the
 * layout-identical fallback under ucx-fallback/ (on the include path with
 * -idirafter, so an installed UCX always wins).
 */
#ifndef DOCA_UROM_PLUGIN_H_
#define DOCA_UROM_PLUGIN_H_

#include <limits.h>

#include <ucs/datastruct/list.h>

#include <doca_error.h>

#include <doca_compat.h>

#define UROM_LIST_LINK_T ucs_list_link_t
#define UROM_IFACE_VERSION_FIELD DOCA_STRUCT_START
#include <urom_plugin.h>

#define DOCA_UROM_PLUGIN_NAME_MAX_LEN UROM_PLUGIN_NAME_MAX_LEN

#define doca_urom_service_plugin_info urom_plugin_info

static inline doca_error_t doca_urom_worker_domain_addr_lookup(struct urom_worker_ctx *ctx, uint64_t domain_id,
							       void **addr)
{
	return ctx->domain_iface.addr_lookup(ctx, domain_id, addr);
}

static inline doca_error_t doca_urom_worker_domain_seg_lookup(struct urom_worker_ctx *ctx, uint64_t domain_id,
							      uint64_t va, int *seg)
{
	return ctx->domain_iface.seg_lookup(ctx, domain_id, va, seg);
}

static inline doca_error_t doca_urom_worker_domain_memh_lookup(struct urom_worker_ctx *ctx, uint64_t domain_id, int seg,
							       size_t *len, void **memh)
{
	return ctx->domain_iface.memh_lookup(ctx, domain_id, seg, len, memh);
}

static inline doca_error_t doca_urom_worker_domain_mkey_lookup(struct urom_worker_ctx *ctx, uint64_t domain_id, int seg,
							       size_t *len, void **rkey)
{
	return ctx->domain_iface.mkey_lookup(ctx, domain_id, seg, len, rkey);
}

#endif /* DOCA_UROM_PLUGIN_H_ */
