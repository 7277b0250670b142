/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libdoca_common: buffers. This library's buffers are the ones embedded in tasks (urom_buf_init): a
 * fixed region of memory, never chained, never returned to an inventory. Everything is bounds-checked:
 * the data must lie inside [head, head + len).
 */
#include <stdint.h>

#include <doca_buf.h>

#include "urom_core.h"

UROM_INTERNAL void urom_buf_init(struct doca_buf *buf, void *mem, size_t capacity)
{
	if (buf == NULL)
		return;
	buf->head = mem;
	buf->len = mem != NULL ? capacity : 0;
	buf->data = buf->head;
	buf->data_len = buf->len;
	buf->refcount = 1;
}

/* [data, data + data_len) lies inside the buffer (an empty range may sit at its very end). */
static int buf_contains(const struct doca_buf *buf, const uint8_t *data, size_t data_len)
{
	uintptr_t head = (uintptr_t)buf->head, start = (uintptr_t)data;

	if (buf->head == NULL)
		return data == NULL && data_len == 0;
	if (data == NULL || start < head || start - head > buf->len)
		return 0;
	return data_len <= buf->len - (start - head);
}

DOCA_EXPERIMENTAL doca_error_t doca_buf_get_head(const struct doca_buf *buf, void **head)
{
	if (buf == NULL || head == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*head = buf->head;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t doca_buf_get_len(const struct doca_buf *buf, size_t *len)
{
	if (buf == NULL || len == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*len = buf->len;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t doca_buf_get_data(const struct doca_buf *buf, void **data)
{
	if (buf == NULL || data == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*data = buf->data;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t doca_buf_get_data_len(const struct doca_buf *buf, size_t *data_len)
{
	if (buf == NULL || data_len == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*data_len = buf->data_len;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t doca_buf_set_data(struct doca_buf *buf, void *data, size_t data_len)
{
	if (buf == NULL || !buf_contains(buf, data, data_len))
		return DOCA_ERROR_INVALID_VALUE;
	buf->data = data;
	buf->data_len = data_len;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t doca_buf_set_data_len(struct doca_buf *buf, size_t data_len)
{
	if (buf == NULL || !buf_contains(buf, buf->data, data_len))
		return DOCA_ERROR_INVALID_VALUE;
	buf->data_len = data_len;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t doca_buf_reset_data_len(struct doca_buf *buf)
{
	if (buf == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	buf->data_len = 0;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t doca_buf_get_refcount(const struct doca_buf *buf, uint16_t *refcount)
{
	if (buf == NULL || refcount == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*refcount = buf->refcount;
	return DOCA_SUCCESS;
}

/* As in DOCA, *refcount is the count before the change and may be NULL. */
DOCA_EXPERIMENTAL doca_error_t doca_buf_inc_refcount(struct doca_buf *buf, uint16_t *refcount)
{
	if (buf == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (buf->refcount == UINT16_MAX)
		return DOCA_ERROR_TOO_BIG;
	if (refcount != NULL)
		*refcount = buf->refcount;
	buf->refcount++;
	return DOCA_SUCCESS;
}

/* The memory belongs to the task that embeds the buffer: reaching 0 frees nothing. */
DOCA_EXPERIMENTAL doca_error_t doca_buf_dec_refcount(struct doca_buf *buf, uint16_t *refcount)
{
	if (buf == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (buf->refcount == 0)
		return DOCA_ERROR_BAD_STATE;
	if (refcount != NULL)
		*refcount = buf->refcount;
	buf->refcount--;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t doca_buf_chain_list(struct doca_buf *list1, struct doca_buf *list2)
{
	if (list1 == NULL || list2 == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	return DOCA_ERROR_NOT_SUPPORTED;
}

DOCA_EXPERIMENTAL doca_error_t doca_buf_unchain_list(struct doca_buf *list1, struct doca_buf *list2)
{
	(void)list1;
	(void)list2;
	return DOCA_ERROR_INVALID_VALUE;
}

DOCA_EXPERIMENTAL doca_error_t doca_buf_get_next_in_list(struct doca_buf *buf, struct doca_buf **next_buf)
{
	if (buf == NULL || next_buf == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*next_buf = NULL;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t doca_buf_get_last_in_list(struct doca_buf *buf, struct doca_buf **last_buf)
{
	if (buf == NULL || last_buf == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*last_buf = buf;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t doca_buf_is_last_in_list(const struct doca_buf *buf, uint8_t *is_last)
{
	if (buf == NULL || is_last == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*is_last = 1;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t doca_buf_is_first_in_list(const struct doca_buf *buf, uint8_t *is_first)
{
	if (buf == NULL || is_first == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*is_first = 1;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t doca_buf_is_in_list(const struct doca_buf *buf, uint8_t *is_in_list)
{
	if (buf == NULL || is_in_list == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*is_in_list = 0;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t doca_buf_get_list_len(const struct doca_buf *buf, uint32_t *num_elements)
{
	if (buf == NULL || num_elements == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*num_elements = 1;
	return DOCA_SUCCESS;
}
