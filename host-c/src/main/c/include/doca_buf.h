/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom-java: DOCA Core buffers. A buffer is a region [head, head + len) holding data at
 * [data, data + data_len), which must lie inside it.
 */
#ifndef DOCA_BUF_H_
#define DOCA_BUF_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_buf;

DOCA_EXPERIMENTAL doca_error_t doca_buf_get_head(const struct doca_buf *buf, void **head);
DOCA_EXPERIMENTAL doca_error_t doca_buf_get_len(const struct doca_buf *buf, size_t *len);
DOCA_EXPERIMENTAL doca_error_t doca_buf_get_data(const struct doca_buf *buf, void **data);
DOCA_EXPERIMENTAL doca_error_t doca_buf_get_data_len(const struct doca_buf *buf, size_t *data_len);
/* INVALID_VALUE when [data, data + data_len) is not inside the buffer. */
DOCA_EXPERIMENTAL doca_error_t doca_buf_set_data(struct doca_buf *buf, void *data, size_t data_len);
DOCA_EXPERIMENTAL doca_error_t doca_buf_set_data_len(struct doca_buf *buf, size_t data_len);
DOCA_EXPERIMENTAL doca_error_t doca_buf_reset_data_len(struct doca_buf *buf);
DOCA_EXPERIMENTAL doca_error_t doca_buf_get_refcount(const struct doca_buf *buf, uint16_t *refcount);
DOCA_EXPERIMENTAL doca_error_t doca_buf_inc_refcount(struct doca_buf *buf, uint16_t *refcount);
DOCA_EXPERIMENTAL doca_error_t doca_buf_dec_refcount(struct doca_buf *buf, uint16_t *refcount);
/* Buffers of this library are never chained: NOT_SUPPORTED. */
DOCA_EXPERIMENTAL doca_error_t doca_buf_chain_list(struct doca_buf *list1, struct doca_buf *list2);
/* Each buffer is a list of one: no next (NULL), it is its own last, first and only element, and it
 * is not "in a list"; unchaining answers INVALID_VALUE (list2 is never part of list1). */
DOCA_EXPERIMENTAL doca_error_t doca_buf_unchain_list(struct doca_buf *list1, struct doca_buf *list2);
DOCA_EXPERIMENTAL doca_error_t doca_buf_get_next_in_list(struct doca_buf *buf, struct doca_buf **next_buf);
DOCA_EXPERIMENTAL doca_error_t doca_buf_get_last_in_list(struct doca_buf *buf, struct doca_buf **last_buf);
DOCA_EXPERIMENTAL doca_error_t doca_buf_is_last_in_list(const struct doca_buf *buf, uint8_t *is_last);
DOCA_EXPERIMENTAL doca_error_t doca_buf_is_first_in_list(const struct doca_buf *buf, uint8_t *is_first);
DOCA_EXPERIMENTAL doca_error_t doca_buf_is_in_list(const struct doca_buf *buf, uint8_t *is_in_list);
DOCA_EXPERIMENTAL doca_error_t doca_buf_get_list_len(const struct doca_buf *buf, uint32_t *num_elements);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_BUF_H_ */
