/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A minimal stand-in for the reduction kernels (coll_reduce.h, another branch), with their
 * signatures: deleted when the kernels arrive. Pure functions, no state.
 */
#ifndef COLL_REDUCE_STUB_H_
#define COLL_REDUCE_STUB_H_

#include <stddef.h>
#include <stdint.h>

/* dst[i] = op(left[i], right[i]) for count elements; dst may be left or right. 0, or -1 for a bad pair. */
int coll_reduce(uint8_t dtype, uint8_t op, void *dst, const void *left, const void *right, size_t count);
/* Bytes per element; 0 for an unknown datatype. */
size_t coll_dtype_size(uint8_t dtype);
/* Whether op applies to dtype (bitwise operations take integers only). */
int coll_op_valid(uint8_t dtype, uint8_t op);

#endif /* COLL_REDUCE_STUB_H_ */
