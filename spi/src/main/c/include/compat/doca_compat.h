/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom-java DOCA compatibility: the visibility and struct-version macros that
 * DOCA plugin sources use. The version a plugin stamps into its interface
 * table is the plugin API release of urom_plugin.h, which the worker checks.
 */
#ifndef DOCA_COMPAT_H_
#define DOCA_COMPAT_H_

#include <stddef.h>
#include <stdint.h>
/* DOCA's headers bring these along; programs written against them rely on it (calloc, free). */
#include <stdlib.h>
#include <string.h>

#include <urom_version.h>

#define DOCA_EXPORTED __attribute__((visibility("default")))
#define DOCA_EXPERIMENTAL DOCA_EXPORTED
#define DOCA_STABLE DOCA_EXPORTED
#define DOCA_DEPRECATED __attribute__((deprecated)) DOCA_EXPORTED

#define DOCA_CURRENT_VERSION_NUM UROM_PLUGIN_API_VERSION
#define DOCA_VERSION_EXACT UROM_PLUGIN_API_VERSION

#define DOCA_STRUCT_START size_t __doca_api_version
#define DOCA_STRUCT_GET_VERSION(_s) ((_s)->__doca_api_version)
#define DOCA_STRUCT_CTOR(_s) ((_s).__doca_api_version = DOCA_VERSION_EXACT)
#define DOCA_STRUCT_PTR_CTOR(_p) DOCA_STRUCT_CTOR(*(_p))
#define DOCA_STRUCT_MEMSET_CTOR(_s) \
	do { \
		memset(&(_s), 0, sizeof(_s)); \
		DOCA_STRUCT_CTOR(_s); \
	} while (0)
#define DOCA_STRUCT_PTR_MEMSET_CTOR(_p) DOCA_STRUCT_MEMSET_CTOR(*(_p))

#endif /* DOCA_COMPAT_H_ */
