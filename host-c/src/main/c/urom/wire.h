/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom-java host library, internal: the wire protocol's frames and bodies (docs/wire-protocol.md).
 *
 * struct urom_writer appends little-endian fields to a growing buffer that never exceeds its
 * limit: a field that would pass it marks the writer failed and is dropped, so callers check
 * once, at the end. struct urom_reader reads fields from a body it does not own; a read past the
 * end marks it bad and yields zeros, so a decoder checks once too. Neither is thread-safe.
 */
#ifndef UROM_WIRE_H_
#define UROM_WIRE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define UROM_WIRE_MAGIC 0x4d4f5255u
#define UROM_WIRE_VERSION 2
#define UROM_ROLE_HOST 1
#define UROM_CHANNEL_CONTROL 1
#define UROM_CHANNEL_DATA 2
/* The frame header after the length field: u16 type, u16 flags, u64 request_id. */
#define UROM_FRAME_HEADER 12
#define UROM_HANDSHAKE_FRAME_LIMIT 1024
#define UROM_CONTROL_FRAME_LIMIT 65536
/* A data frame may hold max_msg_size + this. */
#define UROM_DATA_FRAME_SLACK 64
#define UROM_NONCE_BYTES 32
#define UROM_MAC_BYTES 32
/* struct urom_worker_cmd's and struct urom_worker_notify's fixed parts. */
#define UROM_CMD_HEADER 24
#define UROM_NOTIFY_HEADER 32
#define UROM_PLUGIN_INFO_BYTES 72
#define UROM_REASON_MAX 512

enum urom_msg_type {
	UROM_MSG_HELLO = 1,
	UROM_MSG_HELLO_OK = 2,
	UROM_MSG_ERROR = 3,
	UROM_MSG_CHALLENGE = 4,
	UROM_MSG_PROOF = 5,
	UROM_MSG_PLUGINS = 10,
	UROM_MSG_PLUGINS_REPLY = 11,
	UROM_MSG_WORKER_START = 12,
	UROM_MSG_WORKER_START_REPLY = 13,
	UROM_MSG_WORKERS_IN_GROUP = 14,
	UROM_MSG_WORKERS_IN_GROUP_REPLY = 15,
	UROM_MSG_SERVICE_INFO = 18,
	UROM_MSG_SERVICE_INFO_REPLY = 19,
	UROM_MSG_COMMAND = 20,
	UROM_MSG_NOTIFY = 21,
	UROM_MSG_STOP = 22,
	UROM_MSG_STOP_OK = 23,
	UROM_MSG_ADDRESS = 24,
	UROM_MSG_ADDRESS_REPLY = 25,
	UROM_MSG_DOMAIN_SET = 26,
	UROM_MSG_DOMAIN_SET_REPLY = 27,
};

struct urom_writer {
	uint8_t *data;
	size_t len;
	size_t cap;
	size_t limit;
	bool failed;
};

/* A writer whose buffer may grow to limit bytes. */
void urom_writer_init(struct urom_writer *w, size_t limit);
void urom_writer_free(struct urom_writer *w);
/* Empties the writer for reuse, keeping its buffer, with a new limit. */
void urom_writer_reset(struct urom_writer *w, size_t limit);
void urom_w_u8(struct urom_writer *w, uint8_t v);
void urom_w_u16(struct urom_writer *w, uint16_t v);
void urom_w_u32(struct urom_writer *w, uint32_t v);
void urom_w_u64(struct urom_writer *w, uint64_t v);
void urom_w_raw(struct urom_writer *w, const void *p, size_t n);
/* u32 length + bytes. */
void urom_w_bytes(struct urom_writer *w, const void *p, size_t n);
/* u16 length + UTF-8. */
void urom_w_string(struct urom_writer *w, const char *s);
/* Starts a frame: u32 length (patched by urom_w_frame_end), type, flags 0, request_id. */
size_t urom_w_frame_begin(struct urom_writer *w, uint16_t type, uint64_t request_id);
void urom_w_frame_end(struct urom_writer *w, size_t frame_start);

struct urom_reader {
	const uint8_t *data;
	size_t len;
	size_t off;
	bool bad;
};

void urom_reader_init(struct urom_reader *r, const void *data, size_t len);
uint8_t urom_r_u8(struct urom_reader *r);
uint16_t urom_r_u16(struct urom_reader *r);
uint32_t urom_r_u32(struct urom_reader *r);
uint64_t urom_r_u64(struct urom_reader *r);
/* A pointer to the next n bytes (NULL and bad when fewer remain). */
const uint8_t *urom_r_raw(struct urom_reader *r, size_t n);
/* u32 length + bytes, at most max bytes (bad otherwise); *n gets the length. */
const uint8_t *urom_r_bytes(struct urom_reader *r, size_t max, size_t *n);
/* u16 length + bytes copied into out (NUL-terminated, cut to out_size - 1, control characters made '?'). */
void urom_r_string(struct urom_reader *r, char *out, size_t out_size);
/* A list's u32 count, checked against what could still follow (each item at least min_item bytes). */
uint32_t urom_r_count(struct urom_reader *r, size_t min_item);
size_t urom_r_remaining(const struct urom_reader *r);
/* True when every byte was read and nothing was bad. */
bool urom_r_done(const struct urom_reader *r);

#endif /* UROM_WIRE_H_ */
