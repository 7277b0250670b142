/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libdoca_common: memory maps and buffer inventories, which this library does not provide (see
 * doca_mmap.h and doca_buf_inventory.h): every call answers DOCA_ERROR_NOT_SUPPORTED, or
 * DOCA_ERROR_INVALID_VALUE for a NULL object, and the constructors store NULL.
 */
#include <doca_buf_inventory.h>
#include <doca_mmap.h>

#include "urom_core.h"

DOCA_EXPERIMENTAL doca_error_t doca_mmap_create(struct doca_mmap **mmap)
{
	if (mmap == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*mmap = NULL;
	return DOCA_ERROR_NOT_SUPPORTED;
}

/* No map exists, so none can be destroyed, started or changed. */
static doca_error_t no_mmap(const struct doca_mmap *mmap)
{
	return mmap == NULL ? DOCA_ERROR_INVALID_VALUE : DOCA_ERROR_NOT_SUPPORTED;
}

DOCA_EXPERIMENTAL doca_error_t doca_mmap_destroy(struct doca_mmap *mmap)
{
	return no_mmap(mmap);
}

DOCA_EXPERIMENTAL doca_error_t doca_mmap_start(struct doca_mmap *mmap)
{
	return no_mmap(mmap);
}

DOCA_EXPERIMENTAL doca_error_t doca_mmap_stop(struct doca_mmap *mmap)
{
	return no_mmap(mmap);
}

DOCA_EXPERIMENTAL doca_error_t doca_mmap_add_dev(struct doca_mmap *mmap, struct doca_dev *dev)
{
	(void)dev;
	return no_mmap(mmap);
}

DOCA_EXPERIMENTAL doca_error_t doca_mmap_rm_dev(struct doca_mmap *mmap, struct doca_dev *dev)
{
	(void)dev;
	return no_mmap(mmap);
}

DOCA_EXPERIMENTAL doca_error_t doca_mmap_set_memrange(struct doca_mmap *mmap, void *addr, size_t len)
{
	(void)addr;
	(void)len;
	return no_mmap(mmap);
}

DOCA_EXPERIMENTAL doca_error_t doca_mmap_set_permissions(struct doca_mmap *mmap, uint32_t access_mask)
{
	(void)access_mask;
	return no_mmap(mmap);
}

DOCA_EXPERIMENTAL doca_error_t doca_mmap_set_max_num_devices(struct doca_mmap *mmap, uint32_t max_num_devices)
{
	(void)max_num_devices;
	return no_mmap(mmap);
}

DOCA_EXPERIMENTAL doca_error_t doca_mmap_set_user_data(struct doca_mmap *mmap, union doca_data user_data)
{
	(void)user_data;
	return no_mmap(mmap);
}

DOCA_EXPERIMENTAL doca_error_t doca_buf_inventory_create(size_t num_elements, struct doca_buf_inventory **inventory)
{
	(void)num_elements;
	if (inventory == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*inventory = NULL;
	return DOCA_ERROR_NOT_SUPPORTED;
}

static doca_error_t no_inventory(const struct doca_buf_inventory *inventory)
{
	return inventory == NULL ? DOCA_ERROR_INVALID_VALUE : DOCA_ERROR_NOT_SUPPORTED;
}

DOCA_EXPERIMENTAL doca_error_t doca_buf_inventory_destroy(struct doca_buf_inventory *inventory)
{
	return no_inventory(inventory);
}

DOCA_EXPERIMENTAL doca_error_t doca_buf_inventory_start(struct doca_buf_inventory *inventory)
{
	return no_inventory(inventory);
}

DOCA_EXPERIMENTAL doca_error_t doca_buf_inventory_stop(struct doca_buf_inventory *inventory)
{
	return no_inventory(inventory);
}

DOCA_EXPERIMENTAL doca_error_t doca_buf_inventory_buf_get_by_args(struct doca_buf_inventory *inventory,
								  struct doca_mmap *mmap, void *addr, size_t len,
								  void *data, size_t data_len, struct doca_buf **buf)
{
	(void)addr;
	(void)len;
	(void)data;
	(void)data_len;
	if (buf != NULL)
		*buf = NULL;
	if (inventory == NULL || mmap == NULL || buf == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	return DOCA_ERROR_NOT_SUPPORTED;
}

DOCA_EXPERIMENTAL doca_error_t doca_buf_inventory_buf_dup(struct doca_buf_inventory *inventory,
							  const struct doca_buf *src_buf, struct doca_buf **dst_buf)
{
	if (dst_buf != NULL)
		*dst_buf = NULL;
	if (inventory == NULL || src_buf == NULL || dst_buf == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	return DOCA_ERROR_NOT_SUPPORTED;
}

DOCA_EXPERIMENTAL doca_error_t doca_buf_inventory_get_num_elements(const struct doca_buf_inventory *inventory,
								   uint32_t *num_of_elements)
{
	if (num_of_elements == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	return no_inventory(inventory);
}

DOCA_EXPERIMENTAL doca_error_t doca_buf_inventory_get_num_free_elements(const struct doca_buf_inventory *inventory,
									uint32_t *num_of_free_elements)
{
	if (num_of_free_elements == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	return no_inventory(inventory);
}
