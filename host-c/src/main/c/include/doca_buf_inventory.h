/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom-java: DOCA Core buffer inventories, declared so that programs (and NVIDIA's shared
 * samples/common.c) that mention them build and link. Buffers of an inventory point into a memory map
 * (doca_mmap.h), which this library does not provide, so no inventory can be made: every function
 * answers DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for a NULL inventory), and
 * doca_buf_inventory_create() sets *inventory to NULL. The buffers a UROM program uses are the ones
 * its command tasks carry (doca_urom.h).
 */
#ifndef DOCA_BUF_INVENTORY_H_
#define DOCA_BUF_INVENTORY_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_buf;
struct doca_mmap;
struct doca_buf_inventory;

DOCA_EXPERIMENTAL doca_error_t doca_buf_inventory_create(size_t num_elements, struct doca_buf_inventory **inventory);
DOCA_EXPERIMENTAL doca_error_t doca_buf_inventory_destroy(struct doca_buf_inventory *inventory);
DOCA_EXPERIMENTAL doca_error_t doca_buf_inventory_start(struct doca_buf_inventory *inventory);
DOCA_EXPERIMENTAL doca_error_t doca_buf_inventory_stop(struct doca_buf_inventory *inventory);
/* A buffer [addr, addr + len) with its data at [data, data + data_len). */
DOCA_EXPERIMENTAL doca_error_t doca_buf_inventory_buf_get_by_args(struct doca_buf_inventory *inventory,
								  struct doca_mmap *mmap, void *addr, size_t len,
								  void *data, size_t data_len, struct doca_buf **buf);
DOCA_EXPERIMENTAL doca_error_t doca_buf_inventory_buf_dup(struct doca_buf_inventory *inventory,
							  const struct doca_buf *src_buf, struct doca_buf **dst_buf);
DOCA_EXPERIMENTAL doca_error_t doca_buf_inventory_get_num_elements(const struct doca_buf_inventory *inventory,
								   uint32_t *num_of_elements);
DOCA_EXPERIMENTAL doca_error_t doca_buf_inventory_get_num_free_elements(const struct doca_buf_inventory *inventory,
									uint32_t *num_of_free_elements);

/* As in DOCA, these two are inline forms of doca_buf_inventory_buf_get_by_args(): empty data at addr,
 * and data filling the whole buffer. */
static inline doca_error_t doca_buf_inventory_buf_get_by_addr(struct doca_buf_inventory *inventory,
							      struct doca_mmap *mmap, void *addr, size_t len,
							      struct doca_buf **buf)
{
	return doca_buf_inventory_buf_get_by_args(inventory, mmap, addr, len, addr, 0, buf);
}

static inline doca_error_t doca_buf_inventory_buf_get_by_data(struct doca_buf_inventory *inventory,
							      struct doca_mmap *mmap, void *data, size_t data_len,
							      struct doca_buf **buf)
{
	return doca_buf_inventory_buf_get_by_args(inventory, mmap, data, data_len, data, data_len, buf);
}

#ifdef __cplusplus
}
#endif

#endif /* DOCA_BUF_INVENTORY_H_ */
