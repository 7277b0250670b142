/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom-java: the plugin API release that the interface table's leading field
 * carries, and that the worker accepts.
 */
#ifndef UROM_VERSION_H_
#define UROM_VERSION_H_

#include <stdint.h>

/* Encodes an API release number the way the interface table carries it. */
#define UROM_VERSION_NUM(major, minor, patch) \
	((((uint64_t)(major)) << 24) | (((uint64_t)(minor)) << 16) | ((uint64_t)(patch)))

/* The plugin API release whose layouts urom_plugin.h describes. */
#define UROM_PLUGIN_API_VERSION UROM_VERSION_NUM(2, 7, 0)

#endif /* UROM_VERSION_H_ */
