/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The stand-in reduction kernels (coll_reduce_stub.h): element by element, in the protocol's
 * definitions (docs/collectives.md, "Why the order is fixed"). Replaced by coll_reduce.c.
 */
#include <math.h>
#include <string.h>

#include <urom_coll.h>

#include "coll_reduce_stub.h"

size_t coll_dtype_size(uint8_t dtype)
{
	static const size_t sizes[UROM_COLL_DTYPE_COUNT] = { 1, 2, 4, 8, 1, 2, 4, 8, 4, 8 };

	return dtype < UROM_COLL_DTYPE_COUNT ? sizes[dtype] : 0;
}

int coll_op_valid(uint8_t dtype, uint8_t op)
{
	if (dtype >= UROM_COLL_DTYPE_COUNT || op >= UROM_COLL_OP_COUNT)
		return 0;
	return !(dtype >= UROM_COLL_FLOAT32 && op >= UROM_COLL_BAND);
}

#define INT_LOOP(T, U)                                                                                    \
	do {                                                                                              \
		for (size_t i = 0; i < count; i++) {                                                      \
			T a, b, r;                                                                        \
			memcpy(&a, (const char *)left + i * sizeof(T), sizeof(T));                        \
			memcpy(&b, (const char *)right + i * sizeof(T), sizeof(T));                       \
			switch (op) {                                                                     \
			case UROM_COLL_SUM: r = (T)((uint64_t)(U)a + (uint64_t)(U)b); break;                                \
			case UROM_COLL_PROD: r = (T)((uint64_t)(U)a * (uint64_t)(U)b); break;                                \
			case UROM_COLL_MIN: r = a < b ? a : b; break;                                     \
			case UROM_COLL_MAX: r = a > b ? a : b; break;                                     \
			case UROM_COLL_BAND: r = a & b; break;                                            \
			case UROM_COLL_BOR: r = a | b; break;                                             \
			default: r = a ^ b; break;                                                        \
			}                                                                                 \
			memcpy((char *)dst + i * sizeof(T), &r, sizeof(T));                               \
		}                                                                                         \
	} while (0)

#define FLOAT_LOOP(T, NAN_BITS, BITS_T)                                                                   \
	do {                                                                                              \
		const BITS_T canonical = NAN_BITS;                                                        \
		for (size_t i = 0; i < count; i++) {                                                      \
			T a, b, r;                                                                        \
			memcpy(&a, (const char *)left + i * sizeof(T), sizeof(T));                       \
			memcpy(&b, (const char *)right + i * sizeof(T), sizeof(T));                       \
			if (op == UROM_COLL_SUM)                                                          \
				r = a + b;                                                                \
			else if (op == UROM_COLL_PROD)                                                    \
				r = a * b;                                                                \
			else if (isnan(a) || isnan(b))                                                    \
				r = NAN;                                                                  \
			else if (a == b)                                                                  \
				r = (signbit(a) != 0) == (op == UROM_COLL_MIN) ? a : b;                   \
			else                                                                              \
				r = (a < b) == (op == UROM_COLL_MIN) ? a : b;                             \
			if (isnan(r))                                                                     \
				memcpy((char *)dst + i * sizeof(T), &canonical, sizeof(T));               \
			else                                                                              \
				memcpy((char *)dst + i * sizeof(T), &r, sizeof(T));                       \
		}                                                                                         \
	} while (0)

int coll_reduce(uint8_t dtype, uint8_t op, void *dst, const void *left, const void *right, size_t count)
{
	if (!coll_op_valid(dtype, op))
		return -1;
	switch (dtype) {
	case UROM_COLL_INT8: INT_LOOP(int8_t, uint8_t); break;
	case UROM_COLL_INT16: INT_LOOP(int16_t, uint16_t); break;
	case UROM_COLL_INT32: INT_LOOP(int32_t, uint32_t); break;
	case UROM_COLL_INT64: INT_LOOP(int64_t, uint64_t); break;
	case UROM_COLL_UINT8: INT_LOOP(uint8_t, uint8_t); break;
	case UROM_COLL_UINT16: INT_LOOP(uint16_t, uint16_t); break;
	case UROM_COLL_UINT32: INT_LOOP(uint32_t, uint32_t); break;
	case UROM_COLL_UINT64: INT_LOOP(uint64_t, uint64_t); break;
	case UROM_COLL_FLOAT32: FLOAT_LOOP(float, 0x7fc00000u, uint32_t); break;
	default: FLOAT_LOOP(double, 0x7ff8000000000000ull, uint64_t); break;
	}
	return 0;
}
