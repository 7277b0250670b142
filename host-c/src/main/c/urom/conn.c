/* SPDX-License-Identifier: Apache-2.0 */
/* urom-java host library: framed, non-blocking stream connections. */
#include "conn.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <urom_plugin_util.h>

#define READ_CHUNK 65536

int64_t urom_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void urom_conn_init(struct urom_conn *c)
{
	memset(c, 0, sizeof(*c));
	c->fd = -1;
	c->frame_limit = UROM_HANDSHAKE_FRAME_LIMIT;
}

static doca_error_t fail(struct urom_conn *c, doca_error_t status, const char *fmt, const char *a, const char *b)
{
	snprintf(c->err, sizeof(c->err), fmt, a, b);
	return status;
}

static doca_error_t broke(struct urom_conn *c, doca_error_t status, const char *what)
{
	if (!c->broken) {
		c->broken = true;
		c->broken_status = status;
		snprintf(c->err, sizeof(c->err), "%s", what);
	}
	return c->broken_status;
}

static doca_error_t await_connect(struct urom_conn *c, int fd, int timeout_ms, const char *address)
{
	struct pollfd p = {.fd = fd, .events = POLLOUT};
	int so_error = 0;
	socklen_t len = sizeof(so_error);
	int n;

	do {
		n = poll(&p, 1, timeout_ms);
	} while (n < 0 && errno == EINTR);
	if (n == 0)
		return fail(c, DOCA_ERROR_TIME_OUT, "cannot connect to %s: no answer within the time limit%s", address,
			    "");
	if (n < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_error, &len) != 0)
		so_error = errno;
	if (so_error != 0)
		return fail(c, DOCA_ERROR_NOT_CONNECTED, "cannot connect to %s: %s", address, strerror(so_error));
	return DOCA_SUCCESS;
}

static doca_error_t connect_fd(struct urom_conn *c, int fd, const struct sockaddr *sa, socklen_t len, int timeout_ms,
			       const char *address)
{
	if (connect(fd, sa, len) == 0)
		return DOCA_SUCCESS;
	if (errno == EINPROGRESS || errno == EAGAIN)
		return await_connect(c, fd, timeout_ms, address);
	return fail(c, DOCA_ERROR_NOT_CONNECTED, "cannot connect to %s: %s", address, strerror(errno));
}

static doca_error_t open_unix(struct urom_conn *c, const char *address, const char *path, int timeout_ms)
{
	struct sockaddr_un sa;
	doca_error_t status;
	int fd;

	if (path[0] == '\0' || strlen(path) >= sizeof(sa.sun_path))
		return fail(c, DOCA_ERROR_INVALID_VALUE,
			    "address %s: a Unix socket path of 1 to 107 bytes is expected%s", address, "");
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, path, strlen(path));
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fail(c, DOCA_ERROR_OPERATING_SYSTEM, "cannot connect to %s: socket: %s", address,
			    strerror(errno));
	status = connect_fd(c, fd, (struct sockaddr *)&sa, sizeof(sa), timeout_ms, address);
	if (status != DOCA_SUCCESS) {
		close(fd);
		return status;
	}
	c->fd = fd;
	return DOCA_SUCCESS;
}

static doca_error_t open_tcp(struct urom_conn *c, const char *address, const char *hostport, int timeout_ms)
{
	char host[256];
	const char *port;
	const char *colon;
	struct addrinfo hints, *found = NULL, *ai;
	doca_error_t status = DOCA_ERROR_NOT_CONNECTED;
	size_t hlen;
	int rc, one = 1;

	if (hostport[0] == '[') {
		const char *end = strchr(hostport, ']');

		if (end == NULL || end[1] != ':')
			return fail(c, DOCA_ERROR_INVALID_VALUE, "address %s: expected tcp:[IPV6]:PORT%s", address, "");
		hlen = (size_t)(end - hostport - 1);
		hostport++;
		port = end + 2;
	} else {
		colon = strrchr(hostport, ':');
		if (colon == NULL)
			return fail(c, DOCA_ERROR_INVALID_VALUE, "address %s: expected tcp:HOST:PORT%s", address, "");
		hlen = (size_t)(colon - hostport);
		port = colon + 1;
	}
	if (hlen == 0 || hlen >= sizeof(host) || port[0] == '\0' || strspn(port, "0123456789") != strlen(port) ||
	    strlen(port) > 5)
		return fail(c, DOCA_ERROR_INVALID_VALUE,
			    "address %s: expected tcp:HOST:PORT with a port of 1 to 65535%s", address, "");
	memcpy(host, hostport, hlen);
	host[hlen] = '\0';
	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_family = AF_UNSPEC;
	rc = getaddrinfo(host, port, &hints, &found);
	if (rc != 0)
		return fail(c, DOCA_ERROR_NOT_CONNECTED, "cannot connect to %s: %s", address, gai_strerror(rc));
	for (ai = found; ai != NULL; ai = ai->ai_next) {
		int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);

		if (fd < 0)
			continue;
		status = connect_fd(c, fd, ai->ai_addr, ai->ai_addrlen, timeout_ms, address);
		if (status == DOCA_SUCCESS) {
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
			c->fd = fd;
			break;
		}
		close(fd);
	}
	freeaddrinfo(found);
	return status;
}

doca_error_t urom_conn_open(struct urom_conn *c, const char *address, int timeout_ms)
{
	c->err[0] = '\0';
	if (strncmp(address, "unix:", 5) == 0)
		return open_unix(c, address, address + 5, timeout_ms);
	if (strncmp(address, "tcp:", 4) == 0)
		return open_tcp(c, address, address + 4, timeout_ms);
	return fail(c, DOCA_ERROR_INVALID_VALUE, "address %s: expected unix:PATH or tcp:HOST:PORT%s", address, "");
}

void urom_conn_close(struct urom_conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	free(c->in);
	free(c->out);
	urom_writer_free(&c->frame);
	c->fd = -1;
	c->in = c->out = NULL;
	c->in_len = c->in_cap = c->in_consumed = 0;
	c->out_len = c->out_off = c->out_cap = 0;
}

doca_error_t urom_conn_flush(struct urom_conn *c)
{
	while (!c->broken && c->out_off < c->out_len) {
		ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n > 0) {
			c->out_off += (size_t)n;
		} else if (n < 0 && errno == EINTR) {
			continue;
		} else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			return DOCA_SUCCESS;
		} else {
			return broke(c, DOCA_ERROR_CONNECTION_RESET, "the connection failed while sending");
		}
	}
	if (c->broken)
		return c->broken_status;
	c->out_off = c->out_len = 0;
	return DOCA_SUCCESS;
}

bool urom_conn_pending_output(const struct urom_conn *c)
{
	return c->out_off < c->out_len;
}

struct urom_writer *urom_conn_begin(struct urom_conn *c, uint16_t type, uint64_t request_id)
{
	urom_writer_reset(&c->frame, c->frame_limit + 4);
	urom_w_frame_begin(&c->frame, type, request_id);
	return &c->frame;
}

doca_error_t urom_conn_send_frame(struct urom_conn *c)
{
	const struct urom_writer *frame = &c->frame;
	size_t need;

	urom_w_frame_end(&c->frame, 0);
	if (c->broken)
		return c->broken_status;
	if (frame->failed)
		return DOCA_ERROR_TOO_BIG;
	if (c->out_off > 0 && c->out_off == c->out_len)
		c->out_off = c->out_len = 0;
	if (c->out_len - c->out_off + frame->len > UROM_CONN_OUT_MAX)
		return DOCA_ERROR_AGAIN;
	if (c->out_off > 0) {
		memmove(c->out, c->out + c->out_off, c->out_len - c->out_off);
		c->out_len -= c->out_off;
		c->out_off = 0;
	}
	need = c->out_len + frame->len;
	if (need > c->out_cap) {
		size_t cap = c->out_cap == 0 ? 4096 : c->out_cap;
		uint8_t *grown;

		while (cap < need)
			cap *= 2;
		grown = realloc(c->out, cap);
		if (grown == NULL)
			return DOCA_ERROR_NO_MEMORY;
		c->out = grown;
		c->out_cap = cap;
	}
	memcpy(c->out + c->out_len, frame->data, frame->len);
	c->out_len += frame->len;
	return urom_conn_flush(c);
}

static void drop_consumed(struct urom_conn *c)
{
	if (c->in_consumed == 0)
		return;
	memmove(c->in, c->in + c->in_consumed, c->in_len - c->in_consumed);
	c->in_len -= c->in_consumed;
	c->in_consumed = 0;
}

/* How many bytes the frame at the start of the input needs in all, or 0 before its length arrived. */
static size_t frame_need(const struct urom_conn *c)
{
	uint32_t len;

	if (c->in_len < 4)
		return 0;
	len = urom_load_le32(c->in);
	return 4 + (size_t)len;
}

static doca_error_t check_head(struct urom_conn *c)
{
	size_t need = frame_need(c);

	if (need == 0)
		return DOCA_SUCCESS;
	if (need - 4 < UROM_FRAME_HEADER)
		return broke(c, DOCA_ERROR_UNEXPECTED, "the peer sent a frame shorter than its header");
	if (need - 4 > c->frame_limit)
		return broke(c, DOCA_ERROR_TOO_BIG, "the peer sent a frame over the connection's limit");
	return DOCA_SUCCESS;
}

doca_error_t urom_conn_read(struct urom_conn *c)
{
	if (c->broken)
		return c->broken_status;
	drop_consumed(c);
	for (;;) {
		size_t want, need = frame_need(c);
		ssize_t n;

		if (check_head(c) != DOCA_SUCCESS)
			return c->broken_status;
		/* Enough buffered: a whole frame and more than a few chunks; the rest waits in the socket. */
		if (need != 0 && c->in_len >= need && c->in_len >= 4 * READ_CHUNK)
			return DOCA_SUCCESS;
		/* Grow towards the current frame's bytes only, a chunk at a time. */
		want = need > c->in_len ? need - c->in_len : 0;
		if (want < 4096)
			want = 4096;
		if (want > READ_CHUNK)
			want = READ_CHUNK;
		if (c->in_cap - c->in_len < want) {
			size_t cap = c->in_len + want;
			uint8_t *grown = realloc(c->in, cap);

			if (grown == NULL)
				return broke(c, DOCA_ERROR_NO_MEMORY, "no memory for the connection's input");
			c->in = grown;
			c->in_cap = cap;
		}
		n = recv(c->fd, c->in + c->in_len, c->in_cap - c->in_len, MSG_DONTWAIT);
		if (n > 0) {
			c->in_len += (size_t)n;
			continue;
		}
		if (n == 0)
			return broke(c, DOCA_ERROR_CONNECTION_RESET, "the peer closed the connection");
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return check_head(c);
		return broke(c, DOCA_ERROR_CONNECTION_RESET, "the connection failed while receiving");
	}
}

bool urom_conn_next(struct urom_conn *c, struct urom_frame *f)
{
	size_t need;
	const uint8_t *p;

	drop_consumed(c);
	if (check_head(c) != DOCA_SUCCESS)
		return false;
	need = frame_need(c);
	if (need == 0 || c->in_len < need)
		return false;
	p = c->in + 4;
	f->type = urom_load_le16(p);
	f->request_id = urom_load_le64(p + 4);
	f->body = p + UROM_FRAME_HEADER;
	f->body_len = need - 4 - UROM_FRAME_HEADER;
	c->in_consumed = need;
	return true;
}

static doca_error_t wait_fd(struct urom_conn *c, short events, int64_t deadline)
{
	struct pollfd p = {.fd = c->fd, .events = events};
	int64_t left = deadline - urom_now_ms();
	int n;

	if (left <= 0)
		return DOCA_ERROR_TIME_OUT;
	n = poll(&p, 1, left > 1000 ? 1000 : (int)left);
	if (n < 0 && errno != EINTR)
		return broke(c, DOCA_ERROR_IO_FAILED, "poll failed");
	return DOCA_SUCCESS;
}

doca_error_t urom_conn_wait(struct urom_conn *c, int timeout_ms, struct urom_frame *f)
{
	int64_t deadline = urom_now_ms() + timeout_ms;
	doca_error_t status;

	for (;;) {
		if (urom_conn_next(c, f))
			return DOCA_SUCCESS;
		if (c->broken)
			return c->broken_status;
		status = urom_conn_flush(c);
		if (status != DOCA_SUCCESS)
			return status;
		status = urom_conn_read(c);
		if (urom_conn_next(c, f))
			return DOCA_SUCCESS;
		if (status != DOCA_SUCCESS)
			return status;
		status = wait_fd(c, urom_conn_pending_output(c) ? POLLIN | POLLOUT : POLLIN, deadline);
		if (status != DOCA_SUCCESS)
			return status;
	}
}

void urom_conn_await(struct urom_conn *c, int timeout_ms)
{
	wait_fd(c, urom_conn_pending_output(c) ? POLLIN | POLLOUT : POLLIN, urom_now_ms() + timeout_ms);
}

doca_error_t urom_conn_drain(struct urom_conn *c, int timeout_ms)
{
	int64_t deadline = urom_now_ms() + timeout_ms;
	doca_error_t status;

	while (urom_conn_pending_output(c)) {
		status = urom_conn_flush(c);
		if (status != DOCA_SUCCESS)
			return status;
		if (!urom_conn_pending_output(c))
			break;
		status = wait_fd(c, POLLOUT, deadline);
		if (status != DOCA_SUCCESS)
			return status;
	}
	return DOCA_SUCCESS;
}
