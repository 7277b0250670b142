/* SPDX-License-Identifier: Apache-2.0 */
/* urom-java host library: little-endian field writer and reader of the wire protocol. */
#include "wire.h"

#include <stdlib.h>
#include <string.h>

void urom_writer_init(struct urom_writer *w, size_t limit)
{
	memset(w, 0, sizeof(*w));
	w->limit = limit;
}

void urom_writer_reset(struct urom_writer *w, size_t limit)
{
	w->len = 0;
	w->failed = false;
	w->limit = limit;
}

void urom_writer_free(struct urom_writer *w)
{
	free(w->data);
	memset(w, 0, sizeof(*w));
}

static bool reserve(struct urom_writer *w, size_t n)
{
	size_t cap;
	uint8_t *grown;

	if (w->failed)
		return false;
	if (n > w->limit || w->len > w->limit - n) {
		w->failed = true;
		return false;
	}
	if (w->len + n <= w->cap)
		return true;
	cap = w->cap == 0 ? 256 : w->cap;
	while (cap < w->len + n)
		cap *= 2;
	if (cap > w->limit)
		cap = w->limit;
	grown = realloc(w->data, cap);
	if (grown == NULL) {
		w->failed = true;
		return false;
	}
	w->data = grown;
	w->cap = cap;
	return true;
}

static void put_le(struct urom_writer *w, uint64_t v, size_t n)
{
	size_t i;

	if (!reserve(w, n))
		return;
	for (i = 0; i < n; i++)
		w->data[w->len + i] = (uint8_t)(v >> (8 * i));
	w->len += n;
}

void urom_w_u8(struct urom_writer *w, uint8_t v)
{
	put_le(w, v, 1);
}

void urom_w_u16(struct urom_writer *w, uint16_t v)
{
	put_le(w, v, 2);
}

void urom_w_u32(struct urom_writer *w, uint32_t v)
{
	put_le(w, v, 4);
}

void urom_w_u64(struct urom_writer *w, uint64_t v)
{
	put_le(w, v, 8);
}

void urom_w_raw(struct urom_writer *w, const void *p, size_t n)
{
	if (n == 0 || !reserve(w, n))
		return;
	memcpy(w->data + w->len, p, n);
	w->len += n;
}

void urom_w_bytes(struct urom_writer *w, const void *p, size_t n)
{
	if (n > UINT32_MAX) {
		w->failed = true;
		return;
	}
	urom_w_u32(w, (uint32_t)n);
	urom_w_raw(w, p, n);
}

void urom_w_string(struct urom_writer *w, const char *s)
{
	size_t n = s == NULL ? 0 : strlen(s);

	if (n > UINT16_MAX) {
		w->failed = true;
		return;
	}
	urom_w_u16(w, (uint16_t)n);
	urom_w_raw(w, s, n);
}

size_t urom_w_frame_begin(struct urom_writer *w, uint16_t type, uint64_t request_id)
{
	size_t start = w->len;

	urom_w_u32(w, 0);
	urom_w_u16(w, type);
	urom_w_u16(w, 0);
	urom_w_u64(w, request_id);
	return start;
}

void urom_w_frame_end(struct urom_writer *w, size_t frame_start)
{
	size_t n;
	int i;

	if (w->failed)
		return;
	n = w->len - frame_start - 4;
	if (n > UINT32_MAX) {
		w->failed = true;
		return;
	}
	for (i = 0; i < 4; i++)
		w->data[frame_start + i] = (uint8_t)(n >> (8 * i));
}

void urom_reader_init(struct urom_reader *r, const void *data, size_t len)
{
	r->data = data;
	r->len = len;
	r->off = 0;
	r->bad = false;
}

const uint8_t *urom_r_raw(struct urom_reader *r, size_t n)
{
	const uint8_t *p;

	if (r->bad || n > r->len - r->off) {
		r->bad = true;
		return NULL;
	}
	p = r->data + r->off;
	r->off += n;
	return p;
}

static uint64_t get_le(struct urom_reader *r, size_t n)
{
	const uint8_t *p = urom_r_raw(r, n);
	uint64_t v = 0;
	size_t i;

	if (p == NULL)
		return 0;
	for (i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

uint8_t urom_r_u8(struct urom_reader *r)
{
	return (uint8_t)get_le(r, 1);
}

uint16_t urom_r_u16(struct urom_reader *r)
{
	return (uint16_t)get_le(r, 2);
}

uint32_t urom_r_u32(struct urom_reader *r)
{
	return (uint32_t)get_le(r, 4);
}

uint64_t urom_r_u64(struct urom_reader *r)
{
	return get_le(r, 8);
}

const uint8_t *urom_r_bytes(struct urom_reader *r, size_t max, size_t *n)
{
	uint32_t len = urom_r_u32(r);

	*n = 0;
	if (r->bad || len > max) {
		r->bad = true;
		return NULL;
	}
	*n = len;
	return len == 0 ? r->data + r->off : urom_r_raw(r, len);
}

void urom_r_string(struct urom_reader *r, char *out, size_t out_size)
{
	uint16_t len = urom_r_u16(r);
	const uint8_t *p = urom_r_raw(r, len);
	size_t keep, i;

	if (out_size == 0)
		return;
	out[0] = '\0';
	if (p == NULL)
		return;
	keep = len < out_size - 1 ? len : out_size - 1;
	for (i = 0; i < keep; i++)
		out[i] = (p[i] < 0x20 || p[i] == 0x7f) ? '?' : (char)p[i];
	out[keep] = '\0';
}

uint32_t urom_r_count(struct urom_reader *r, size_t min_item)
{
	uint32_t count = urom_r_u32(r);

	if (r->bad)
		return 0;
	if (min_item != 0 && count > (r->len - r->off) / min_item) {
		r->bad = true;
		return 0;
	}
	return count;
}

size_t urom_r_remaining(const struct urom_reader *r)
{
	return r->bad ? 0 : r->len - r->off;
}

bool urom_r_done(const struct urom_reader *r)
{
	return !r->bad && r->off == r->len;
}
