/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom-java: DOCA Core memory maps, declared so that programs (and NVIDIA's shared samples/common.c)
 * that mention them build and link. A UROM host program moves its data through command payloads and
 * its plugins' own transports, never through a DOCA device's DMA, so this library registers no memory:
 * every function answers DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for a NULL map), and
 * doca_mmap_create() sets *mmap to NULL.
 */
#ifndef DOCA_MMAP_H_
#define DOCA_MMAP_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_dev;
struct doca_mmap;

DOCA_EXPERIMENTAL doca_error_t doca_mmap_create(struct doca_mmap **mmap);
DOCA_EXPERIMENTAL doca_error_t doca_mmap_destroy(struct doca_mmap *mmap);
DOCA_EXPERIMENTAL doca_error_t doca_mmap_start(struct doca_mmap *mmap);
DOCA_EXPERIMENTAL doca_error_t doca_mmap_stop(struct doca_mmap *mmap);
DOCA_EXPERIMENTAL doca_error_t doca_mmap_add_dev(struct doca_mmap *mmap, struct doca_dev *dev);
DOCA_EXPERIMENTAL doca_error_t doca_mmap_rm_dev(struct doca_mmap *mmap, struct doca_dev *dev);
DOCA_EXPERIMENTAL doca_error_t doca_mmap_set_memrange(struct doca_mmap *mmap, void *addr, size_t len);
/* access_mask: enum doca_access_flag bits (doca_types.h). */
DOCA_EXPERIMENTAL doca_error_t doca_mmap_set_permissions(struct doca_mmap *mmap, uint32_t access_mask);
DOCA_EXPERIMENTAL doca_error_t doca_mmap_set_max_num_devices(struct doca_mmap *mmap, uint32_t max_num_devices);
DOCA_EXPERIMENTAL doca_error_t doca_mmap_set_user_data(struct doca_mmap *mmap, union doca_data user_data);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_MMAP_H_ */
