/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One branch-free loop per datatype and operation, which GCC vectorises at -O3 (each loop's
 * accesses go through byte-aligned, may_alias types: any address will do, and the only aliasing
 * the contract allows, dst equal to left or right, passes the loops' run-time overlap checks).
 * Integers compute in their unsigned type, so that SUM and PROD wrap without undefined behaviour.
 * Floating point: the single IEEE operation, then every NaN replaced by the canonical quiet NaN;
 * MIN and MAX order -0.0 before +0.0 by combining equal operands' bits (OR keeps a sign bit,
 * AND clears it).
 */
#include "coll_reduce.h"

#include <string.h>

#include "urom_coll.h"

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the kernels read elements in the host's order");

typedef int8_t __attribute__((aligned(1), may_alias)) s8_t;
typedef int16_t __attribute__((aligned(1), may_alias)) s16_t;
typedef int32_t __attribute__((aligned(1), may_alias)) s32_t;
typedef uint8_t __attribute__((aligned(1), may_alias)) u8_t;
typedef uint16_t __attribute__((aligned(1), may_alias)) u16_t;
typedef uint32_t __attribute__((aligned(1), may_alias)) u32_t;
typedef uint64_t __attribute__((aligned(1), may_alias)) u64_t;
typedef float __attribute__((aligned(1), may_alias)) f32_t;
typedef double __attribute__((aligned(1), may_alias)) f64_t;

typedef void (*kernel_fn)(void *dst, const void *left, const void *right, size_t count);

#define KERNEL(name, T, expr) \
	static void name(void *dst, const void *left, const void *right, size_t count) \
	{ \
		T *d = dst; \
		const T *l = left, *r = right; \
		for (size_t i = 0; i < count; i++) { \
			T a = l[i], b = r[i]; \
			d[i] = (expr); \
		} \
	}

static inline uint32_t f32_bits(float x)
{
	uint32_t u;
	memcpy(&u, &x, sizeof(u));
	return u;
}

static inline float f32_of(uint32_t u)
{
	float x;
	memcpy(&x, &u, sizeof(x));
	return x;
}

static inline uint64_t f64_bits(double x)
{
	uint64_t u;
	memcpy(&u, &x, sizeof(u));
	return u;
}

static inline double f64_of(uint64_t u)
{
	double x;
	memcpy(&x, &u, sizeof(x));
	return x;
}

/* __builtin_nan("") is the positive canonical quiet NaN: 0x7fc00000, 0x7ff8000000000000. */
static inline float canon32(float x)
{
	return x != x ? __builtin_nanf("") : x;
}

static inline double canon64(double x)
{
	return x != x ? __builtin_nan("") : x;
}

static inline float min32(float a, float b)
{
	float m = a < b ? a : b < a ? b : f32_of(f32_bits(a) | f32_bits(b));
	return (a != a) | (b != b) ? __builtin_nanf("") : m;
}

static inline float max32(float a, float b)
{
	float m = a > b ? a : b > a ? b : f32_of(f32_bits(a) & f32_bits(b));
	return (a != a) | (b != b) ? __builtin_nanf("") : m;
}

static inline double min64(double a, double b)
{
	double m = a < b ? a : b < a ? b : f64_of(f64_bits(a) | f64_bits(b));
	return (a != a) | (b != b) ? __builtin_nan("") : m;
}

static inline double max64(double a, double b)
{
	double m = a > b ? a : b > a ? b : f64_of(f64_bits(a) & f64_bits(b));
	return (a != a) | (b != b) ? __builtin_nan("") : m;
}

/*
 * 64-bit MIN and MAX without a 64-bit compare, which SSE2 lacks (GCC leaves `a < b ? a : b' on
 * 64-bit lanes scalar): all ones where a < b as signed, from the sign of a - b corrected for
 * overflow; unsigned order is signed order with both sign bits flipped.
 */
#define SIGN64 (UINT64_C(1) << 63)

static inline uint64_t less_s64(uint64_t a, uint64_t b)
{
	uint64_t d = a - b;
	return -((d ^ ((a ^ b) & (d ^ a))) >> 63);
}

static inline uint64_t select64(uint64_t mask, uint64_t a, uint64_t b)
{
	return (a & mask) | (b & ~mask);
}

/* Signedness matters to MIN and MAX only. Narrow products multiply as unsigned int, not int. */
KERNEL(sum_8, u8_t, (uint8_t)(a + b))
KERNEL(prod_8, u8_t, (uint8_t)((unsigned)a *b))
KERNEL(min_s8, s8_t, a < b ? a : b)
KERNEL(max_s8, s8_t, a > b ? a : b)
KERNEL(min_u8, u8_t, a < b ? a : b)
KERNEL(max_u8, u8_t, a > b ? a : b)
KERNEL(band_8, u8_t, a &b)
KERNEL(bor_8, u8_t, a | b)
KERNEL(bxor_8, u8_t, a ^ b)

KERNEL(sum_16, u16_t, (uint16_t)(a + b))
KERNEL(prod_16, u16_t, (uint16_t)((unsigned)a *b))
KERNEL(min_s16, s16_t, a < b ? a : b)
KERNEL(max_s16, s16_t, a > b ? a : b)
KERNEL(min_u16, u16_t, a < b ? a : b)
KERNEL(max_u16, u16_t, a > b ? a : b)
KERNEL(band_16, u16_t, a &b)
KERNEL(bor_16, u16_t, a | b)
KERNEL(bxor_16, u16_t, a ^ b)

KERNEL(sum_32, u32_t, a + b)
KERNEL(prod_32, u32_t, a *b)
KERNEL(min_s32, s32_t, a < b ? a : b)
KERNEL(max_s32, s32_t, a > b ? a : b)
KERNEL(min_u32, u32_t, a < b ? a : b)
KERNEL(max_u32, u32_t, a > b ? a : b)
KERNEL(band_32, u32_t, a &b)
KERNEL(bor_32, u32_t, a | b)
KERNEL(bxor_32, u32_t, a ^ b)

KERNEL(sum_64, u64_t, a + b)
KERNEL(prod_64, u64_t, a *b)
KERNEL(min_s64, u64_t, select64(less_s64(a, b), a, b))
KERNEL(max_s64, u64_t, select64(less_s64(b, a), a, b))
KERNEL(min_u64, u64_t, select64(less_s64(a ^ SIGN64, b ^ SIGN64), a, b))
KERNEL(max_u64, u64_t, select64(less_s64(b ^ SIGN64, a ^ SIGN64), a, b))
KERNEL(band_64, u64_t, a &b)
KERNEL(bor_64, u64_t, a | b)
KERNEL(bxor_64, u64_t, a ^ b)

KERNEL(sum_f32, f32_t, canon32(a + b))
KERNEL(prod_f32, f32_t, canon32(a *b))
KERNEL(min_f32, f32_t, min32(a, b))
KERNEL(max_f32, f32_t, max32(a, b))

KERNEL(sum_f64, f64_t, canon64(a + b))
KERNEL(prod_f64, f64_t, canon64(a *b))
KERNEL(min_f64, f64_t, min64(a, b))
KERNEL(max_f64, f64_t, max64(a, b))

#define INTEGER_KERNELS(w, sign) \
	{ \
		[UROM_COLL_SUM] = sum_##w, [UROM_COLL_PROD] = prod_##w, [UROM_COLL_MIN] = min_##sign##w, \
		[UROM_COLL_MAX] = max_##sign##w, [UROM_COLL_BAND] = band_##w, [UROM_COLL_BOR] = bor_##w, \
		[UROM_COLL_BXOR] = bxor_##w, \
	}

#define FLOAT_KERNELS(w) \
	{ \
		[UROM_COLL_SUM] = sum_f##w, [UROM_COLL_PROD] = prod_f##w, [UROM_COLL_MIN] = min_f##w, \
		[UROM_COLL_MAX] = max_f##w, \
	}

static const kernel_fn kernels[UROM_COLL_DTYPE_COUNT][UROM_COLL_OP_COUNT] = {
	[UROM_COLL_INT8] = INTEGER_KERNELS(8, s),    [UROM_COLL_INT16] = INTEGER_KERNELS(16, s),
	[UROM_COLL_INT32] = INTEGER_KERNELS(32, s),  [UROM_COLL_INT64] = INTEGER_KERNELS(64, s),
	[UROM_COLL_UINT8] = INTEGER_KERNELS(8, u),   [UROM_COLL_UINT16] = INTEGER_KERNELS(16, u),
	[UROM_COLL_UINT32] = INTEGER_KERNELS(32, u), [UROM_COLL_UINT64] = INTEGER_KERNELS(64, u),
	[UROM_COLL_FLOAT32] = FLOAT_KERNELS(32),     [UROM_COLL_FLOAT64] = FLOAT_KERNELS(64),
};

static const uint8_t dtype_sizes[UROM_COLL_DTYPE_COUNT] = {
	[UROM_COLL_INT8] = 1,    [UROM_COLL_INT16] = 2,   [UROM_COLL_INT32] = 4,  [UROM_COLL_INT64] = 8,
	[UROM_COLL_UINT8] = 1,   [UROM_COLL_UINT16] = 2,  [UROM_COLL_UINT32] = 4, [UROM_COLL_UINT64] = 8,
	[UROM_COLL_FLOAT32] = 4, [UROM_COLL_FLOAT64] = 8,
};

size_t coll_dtype_size(uint8_t dtype)
{
	return dtype < UROM_COLL_DTYPE_COUNT ? dtype_sizes[dtype] : 0;
}

int coll_op_valid(uint8_t dtype, uint8_t op)
{
	return dtype < UROM_COLL_DTYPE_COUNT && op < UROM_COLL_OP_COUNT && kernels[dtype][op] != NULL;
}

int coll_reduce(uint8_t dtype, uint8_t op, void *dst, const void *left, const void *right, size_t count)
{
	if (!coll_op_valid(dtype, op))
		return -1;
	kernels[dtype][op](dst, left, right, count);
	return 0;
}
