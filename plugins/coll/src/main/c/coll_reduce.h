/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The collectives plugin's reduction kernels: dst[i] = op(left[i], right[i]) with the bytes that
 * urom_coll.h's enumerations and floating-point rules define, the same bytes as the Java worker
 * side's dev.urom.plugins.coll.reduce.Reductions. Stateless and thread-safe; they neither allocate
 * nor keep any pointer.
 */
#ifndef COLL_REDUCE_H_
#define COLL_REDUCE_H_

#include <stddef.h>
#include <stdint.h>

/* The size in bytes of one element of an enum urom_coll_dtype; 0 for an unknown datatype. */
size_t coll_dtype_size(uint8_t dtype);

/* 1 if op (enum urom_coll_op) applies to dtype (enum urom_coll_dtype), else 0. */
int coll_op_valid(uint8_t dtype, uint8_t op);

/*
 * dst[i] = op(left[i], right[i]) for i < count, elements of dtype, little-endian, at any address
 * alignment. dst may be left, right or both; otherwise no two of the three ranges may overlap.
 * Returns 0, or -1 without writing anything where coll_op_valid(dtype, op) is 0.
 */
int coll_reduce(uint8_t dtype, uint8_t op, void *dst, const void *left, const void *right, size_t count);

#endif /* COLL_REDUCE_H_ */
