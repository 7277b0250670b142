/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom-java host library, internal: one framed stream connection (Unix socket or TCP) to the daemon
 * or to a worker, non-blocking underneath.
 *
 * Output is queued and written as the socket takes it; input is read into a buffer that grows as a
 * frame's bytes arrive (never to a length the peer announces up front) and never past the frame
 * limit: a frame over it, or shorter than its header, breaks the connection. Errors are kept as
 * one line in err. Not thread-safe: the owner locks it when threads share it.
 */
#ifndef UROM_CONN_H_
#define UROM_CONN_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_error.h>

#include "wire.h"

#define UROM_CONN_ERR_MAX 256
/* The most output a connection queues before it refuses more (AGAIN). */
#define UROM_CONN_OUT_MAX (4u << 20)

struct urom_frame {
	uint16_t type;
	uint64_t request_id;
	const uint8_t *body;
	size_t body_len;
};

struct urom_conn {
	int fd;
	size_t frame_limit;
	uint8_t *in;
	size_t in_len;
	size_t in_cap;
	/* Bytes of the frame handed out by urom_conn_next, dropped by the next call. */
	size_t in_consumed;
	uint8_t *out;
	size_t out_len;
	size_t out_off;
	size_t out_cap;
	/* The frame being built (urom_conn_begin); its buffer is kept from frame to frame. */
	struct urom_writer frame;
	bool broken;
	doca_error_t broken_status;
	char err[UROM_CONN_ERR_MAX];
};

void urom_conn_init(struct urom_conn *c);
/* Connects to "unix:PATH" or "tcp:HOST:PORT" ("tcp:[v6]:PORT") within timeout_ms.
 * NOT_CONNECTED (nobody listens), INVALID_VALUE (bad address), TIME_OUT, with err set. */
doca_error_t urom_conn_open(struct urom_conn *c, const char *address, int timeout_ms);
void urom_conn_close(struct urom_conn *c);
/* Starts the connection's next frame (type, flags 0, request id); the caller appends its body to the
 * writer returned, valid until urom_conn_send_frame(). */
struct urom_writer *urom_conn_begin(struct urom_conn *c, uint16_t type, uint64_t request_id);
/* Queues the frame begun with urom_conn_begin() and writes what the socket takes now. TOO_BIG when it
 * passed the connection's frame limit, AGAIN when too much output waits (nothing is queued then). */
doca_error_t urom_conn_send_frame(struct urom_conn *c);
/* Writes queued output without blocking. */
doca_error_t urom_conn_flush(struct urom_conn *c);
/* True while output waits. */
bool urom_conn_pending_output(const struct urom_conn *c);
/* Reads what has arrived, without blocking. Returns SUCCESS (data or none), or the reason the
 * connection broke (CONNECTION_RESET at end of stream, IO_FAILED, TOO_BIG for an oversized frame). */
doca_error_t urom_conn_read(struct urom_conn *c);
/* The next complete frame in the input, valid until the next call; false when none is complete. */
bool urom_conn_next(struct urom_conn *c, struct urom_frame *f);
/* Waits up to timeout_ms for a complete frame (flushing output meanwhile). TIME_OUT, or the break. */
doca_error_t urom_conn_wait(struct urom_conn *c, int timeout_ms, struct urom_frame *f);
/* Waits up to timeout_ms until the socket has input (or takes output, while some waits); reads nothing. */
void urom_conn_await(struct urom_conn *c, int timeout_ms);
/* Waits up to timeout_ms until all output is written. */
doca_error_t urom_conn_drain(struct urom_conn *c, int timeout_ms);

/* Milliseconds of CLOCK_MONOTONIC. */
int64_t urom_now_ms(void);

#endif /* UROM_CONN_H_ */
