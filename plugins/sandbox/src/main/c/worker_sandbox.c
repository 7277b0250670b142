/*
 * urom-java sandbox sample plugin: MEM_MAP, TAG_SEND and TAG_RECV between
 * workers, over Unix stream sockets. docs/sandbox-protocol.md is the contract
 * (command and notification bytes, tag matching, the worker-to-worker frames).
 *
 * Each open() creates one instance; all of its state hangs off plugin_ctx, so
 * several instances (and several copies of this library) live side by side in
 * one process. The worker drives an instance from one thread: nothing here
 * locks. No entry point blocks: every socket is non-blocking, partial reads
 * and writes are buffered, and progress() moves bytes when the sockets allow.
 *
 * MEM_MAP trusts nothing in the path a host sends: the file is opened beneath
 * its root (/dev/shm or a hugetlbfs mount) through no symbolic link, must be
 * owned by the worker's user or by UROM_OWNER_UID's (read in open()), and
 * stays open; TAG_SEND and TAG_RECV move region bytes with pread/pwrite on it
 * (sandbox_files.h), so a file that shrinks fails those commands with
 * IO_FAILED instead of raising SIGBUS in the worker.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <urom_log.h>
#include <urom_plugin.h>

#include "sandbox_files.h"

#define SANDBOX_EXPORT __attribute__((visibility("default")))

#define SANDBOX_PLUGIN_VERSION 1

#define CMD_MEM_MAP 0
#define CMD_TAG_SEND 1
#define CMD_TAG_RECV 2

#define MEM_MAP_FIXED_BYTES (4 * 8)
#define TAG_SEND_FIXED_BYTES (7 * 8)
#define TAG_RECV_FIXED_BYTES (7 * 8)

#define NOTIF_MEM_MAP_BYTES (3 * 8)
#define NOTIF_TAG_SEND_BYTES (2 * 8 + 8)
#define NOTIF_TAG_RECV_BYTES (5 * 8 + 8)
#define INLINE_RECV_BUFFER 1

#define FRAME_MAGIC 0x58424453u
#define FRAME_HELLO 1u
#define FRAME_MESSAGE 2u
#define FRAME_BYE 3u
#define FRAME_HEADER_BYTES 8
#define FRAME_MESSAGE_HEADER_BYTES (FRAME_HEADER_BYTES + 16)
#define FRAME_MAX_MESSAGE ((uint64_t)64 << 20)
#define UNKNOWN_DOMAIN_ID UINT64_MAX

#define ADDRESS_SCHEME "unix:"
#define SHM_ROOT "/dev/shm"
#define OWNER_UID_VARIABLE "UROM_OWNER_UID"
/* Host-supplied text (a path) is cut to this many characters in a log line. */
#define LOGGED_TEXT_MAX 200
#define READ_CHUNK 65536
#define SOCKET_NAME_ATTEMPTS 1000

UROM_LOG_SOURCE(UROM::WORKER::SANDBOX);

/* A byte queue: bytes live in data[start, end). */
struct byte_queue {
	uint8_t *data;
	size_t start;
	size_t end;
	size_t capacity;
};

/* A MEM_MAP: the file stays open; its bytes move with pread/pwrite, base is for hugetlbfs (no write). */
struct region {
	urom_list_link_t link;
	uint64_t id;
	int fd;
	uint8_t *base;
	size_t length;
};

/* A connection to a peer, accepted or outgoing. */
struct connection {
	urom_list_link_t link;
	int fd;
	int outgoing;
	uint64_t peer_id; /* dest for an outgoing one, the HELLO's id for an accepted one */
	int bye_received;
	struct byte_queue in;
	struct byte_queue out;
	uint64_t bytes_queued;  /* ever appended to out */
	uint64_t bytes_written; /* ever written to the socket */
};

/* What a notification must echo from its command. */
struct reply_to {
	uint64_t dest_id;
	uint64_t type;
	uint64_t urom_context;
	uint64_t context;
};

struct send_op {
	urom_list_link_t link;
	struct reply_to reply;
	struct connection *connection;
	uint64_t frame_end; /* the connection's bytes_written once this frame is out */
};

struct recv_op {
	urom_list_link_t link;
	struct reply_to reply;
	struct region *region; /* NULL: inline */
	uint64_t buffer;
	uint64_t count;
	uint64_t tag;
	uint64_t tag_mask;
};

struct unexpected {
	urom_list_link_t link;
	uint64_t tag;
	uint64_t length;
	uint8_t data[];
};

struct sandbox {
	struct urom_worker_ctx *ctx;
	int listen_fd;
	struct sockaddr_un socket_address;
	char address[sizeof(ADDRESS_SCHEME) + sizeof(((struct sockaddr_un *)0)->sun_path)];
	size_t address_len;
	uint64_t next_memh_id;
	struct sandbox_owners owners;
	urom_list_link_t notifications;
	urom_list_link_t regions;
	urom_list_link_t connections;
	urom_list_link_t sends;
	urom_list_link_t receives;
	urom_list_link_t unexpected;
	struct pollfd *pollfds;
	size_t pollfds_capacity;
};

/* ---- lists and bytes ---- */

static void list_init(urom_list_link_t *head)
{
	head->prev = head;
	head->next = head;
}

static int list_empty(const urom_list_link_t *head)
{
	return head->next == head;
}

static void link_remove(urom_list_link_t *link)
{
	link->prev->next = link->next;
	link->next->prev = link->prev;
}

static void link_append(urom_list_link_t *head, urom_list_link_t *link)
{
	link->prev = head->prev;
	link->next = head;
	head->prev->next = link;
	head->prev = link;
}

static void store_le64(uint8_t *out, uint64_t value)
{
	for (int i = 0; i < 8; i++)
		out[i] = (uint8_t)(value >> (8 * i));
}

static void store_le32(uint8_t *out, uint32_t value)
{
	for (int i = 0; i < 4; i++)
		out[i] = (uint8_t)(value >> (8 * i));
}

static uint64_t load_le64(const uint8_t *in)
{
	uint64_t value = 0;

	for (int i = 0; i < 8; i++)
		value |= (uint64_t)in[i] << (8 * i);
	return value;
}

static uint32_t load_le32(const uint8_t *in)
{
	uint32_t value = 0;

	for (int i = 0; i < 4; i++)
		value |= (uint32_t)in[i] << (8 * i);
	return value;
}

static size_t queue_size(const struct byte_queue *queue)
{
	return queue->end - queue->start;
}

/* Makes room for `more` bytes after end; 0 on success. */
static int queue_reserve(struct byte_queue *queue, size_t more)
{
	size_t used = queue_size(queue);
	size_t needed;
	uint8_t *grown;

	if (queue->capacity - queue->end >= more)
		return 0;
	if (queue->start > 0) {
		memmove(queue->data, queue->data + queue->start, used);
		queue->start = 0;
		queue->end = used;
		if (queue->capacity - queue->end >= more)
			return 0;
	}
	needed = used + more;
	if (needed < used)
		return -1;
	if (needed < 2 * queue->capacity)
		needed = 2 * queue->capacity;
	grown = realloc(queue->data, needed);
	if (grown == NULL)
		return -1;
	queue->data = grown;
	queue->capacity = needed;
	return 0;
}

static void queue_consume(struct byte_queue *queue, size_t bytes)
{
	queue->start += bytes;
	if (queue->start == queue->end) {
		queue->start = 0;
		queue->end = 0;
	}
}

static void queue_free(struct byte_queue *queue)
{
	free(queue->data);
	memset(queue, 0, sizeof(*queue));
}

/* ---- notifications ---- */

static struct urom_worker_notif_desc *notification_new(const struct reply_to *reply, urom_status_t status,
							 size_t payload_len)
{
	struct urom_worker_notif_desc *desc = malloc(sizeof(*desc) + payload_len);

	if (desc == NULL) {
		UROM_LOG_ERR("cannot allocate a notification of %zu bytes", payload_len);
		return NULL;
	}
	desc->dest_id = reply->dest_id;
	desc->worker_notif.type = reply->type;
	desc->worker_notif.urom_context = reply->urom_context;
	desc->worker_notif.len = payload_len;
	desc->worker_notif.status = status;
	desc->worker_notif.reserved = 0;
	return desc;
}

static urom_status_t notify_mem_map(struct sandbox *sb, const struct reply_to *reply, uint64_t memh_id)
{
	struct urom_worker_notif_desc *desc = notification_new(reply, UROM_SUCCESS, NOTIF_MEM_MAP_BYTES);

	if (desc == NULL)
		return UROM_ERR_NO_MEMORY;
	store_le64(desc->worker_notif.plugin_notif, CMD_MEM_MAP);
	store_le64(desc->worker_notif.plugin_notif + 8, reply->context);
	store_le64(desc->worker_notif.plugin_notif + 16, memh_id);
	link_append(&sb->notifications, &desc->entry);
	return UROM_SUCCESS;
}

static void notify_tag_send(struct sandbox *sb, const struct reply_to *reply, urom_status_t status)
{
	struct urom_worker_notif_desc *desc = notification_new(reply, status, NOTIF_TAG_SEND_BYTES);

	if (desc == NULL)
		return;
	store_le64(desc->worker_notif.plugin_notif, CMD_TAG_SEND);
	store_le64(desc->worker_notif.plugin_notif + 8, reply->context);
	store_le32(desc->worker_notif.plugin_notif + 16, (uint32_t)status);
	store_le32(desc->worker_notif.plugin_notif + 20, 0);
	link_append(&sb->notifications, &desc->entry);
}

/* Answers a receive; `data` (inline receives only) holds `count` bytes. */
static void notify_tag_recv(struct sandbox *sb, const struct recv_op *recv, uint64_t count, uint64_t sender_tag,
			    urom_status_t status, const uint8_t *data)
{
	size_t inline_bytes = (recv->region == NULL && status == UROM_SUCCESS) ? count : 0;
	struct urom_worker_notif_desc *desc = notification_new(&recv->reply, status, NOTIF_TAG_RECV_BYTES + inline_bytes);
	uint8_t *out;

	if (desc == NULL)
		return;
	out = desc->worker_notif.plugin_notif;
	store_le64(out, CMD_TAG_RECV);
	store_le64(out + 8, recv->reply.context);
	store_le64(out + 16, recv->region == NULL ? INLINE_RECV_BUFFER : recv->buffer);
	store_le64(out + 24, count);
	store_le64(out + 32, sender_tag);
	store_le32(out + 40, (uint32_t)status);
	store_le32(out + 44, 0);
	if (inline_bytes > 0)
		memcpy(out + NOTIF_TAG_RECV_BYTES, data, inline_bytes);
	link_append(&sb->notifications, &desc->entry);
}

/* ---- tag matching ---- */

static int tag_matches(uint64_t tag, uint64_t posted_tag, uint64_t mask)
{
	return (tag & mask) == (posted_tag & mask);
}

/* Logs a failed copy between a region and a message. */
static void log_region_failure(const char *what, const struct region *region, uint64_t offset, uint64_t count, int error)
{
	UROM_LOG_ERR("%s region memh_id %llu at [%llu, +%llu) failed: %s", what, (unsigned long long)region->id,
		     (unsigned long long)offset, (unsigned long long)count,
		     error == -SANDBOX_FILE_TOO_SHORT ? "the file is now shorter than that (it shrank after MEM_MAP)" :
							strerror(-error));
}

/*
 * Completes `recv` with a message; the caller frees both. A region receive
 * whose bytes cannot be written (the file shrank) fails with IO_FAILED.
 */
static void complete_receive(struct sandbox *sb, const struct recv_op *recv, uint64_t tag, const uint8_t *data,
			     uint64_t length)
{
	if (length > recv->count) {
		UROM_LOG_DBG("message of %llu bytes (tag 0x%llx) is longer than the receive's %llu bytes",
			     (unsigned long long)length, (unsigned long long)tag, (unsigned long long)recv->count);
		notify_tag_recv(sb, recv, 0, tag, UROM_ERR_TOO_BIG, NULL);
		return;
	}
	if (recv->region != NULL) {
		int error = sandbox_write_at(recv->region->fd, recv->region->base, recv->buffer, data, (size_t)length);

		if (error != 0) {
			log_region_failure("TAG_RECV into", recv->region, recv->buffer, length, error);
			notify_tag_recv(sb, recv, 0, tag, UROM_ERR_IO_FAILED, NULL);
			return;
		}
	}
	notify_tag_recv(sb, recv, length, tag, UROM_SUCCESS, data);
}

/* An arriving message goes to the oldest posted receive it matches, else to the unexpected queue. */
static void deliver_message(struct sandbox *sb, uint64_t tag, const uint8_t *data, uint64_t length)
{
	struct unexpected *queued;

	for (urom_list_link_t *it = sb->receives.next; it != &sb->receives; it = it->next) {
		struct recv_op *recv = (struct recv_op *)it;

		if (tag_matches(tag, recv->tag, recv->tag_mask)) {
			link_remove(&recv->link);
			complete_receive(sb, recv, tag, data, length);
			free(recv);
			return;
		}
	}
	queued = malloc(sizeof(*queued) + length);
	if (queued == NULL) {
		UROM_LOG_ERR("cannot keep an unexpected message of %llu bytes (tag 0x%llx): dropped",
			     (unsigned long long)length, (unsigned long long)tag);
		return;
	}
	queued->tag = tag;
	queued->length = length;
	if (length > 0)
		memcpy(queued->data, data, length);
	link_append(&sb->unexpected, &queued->link);
}

static void fail_all_receives(struct sandbox *sb, urom_status_t status)
{
	while (!list_empty(&sb->receives)) {
		struct recv_op *recv = (struct recv_op *)sb->receives.next;

		link_remove(&recv->link);
		notify_tag_recv(sb, recv, 0, 0, status, NULL);
		free(recv);
	}
}

/* ---- connections ---- */

static struct connection *connection_new(int fd, int outgoing, uint64_t peer_id)
{
	struct connection *conn = calloc(1, sizeof(*conn));

	if (conn == NULL)
		return NULL;
	conn->fd = fd;
	conn->outgoing = outgoing;
	conn->peer_id = peer_id;
	return conn;
}

/* Closes the socket and frees the connection; the caller has taken it off its list. */
static void connection_free(struct connection *conn)
{
	close(conn->fd);
	queue_free(&conn->in);
	queue_free(&conn->out);
	free(conn);
}

/* Answers, with status, the sends on conn whose frames end at or before byte up_to. */
static void finish_sends(struct sandbox *sb, const struct connection *conn, uint64_t up_to, urom_status_t status)
{
	urom_list_link_t *it = sb->sends.next;

	while (it != &sb->sends) {
		struct send_op *send = (struct send_op *)it;

		it = it->next;
		if (send->connection == conn && send->frame_end <= up_to) {
			link_remove(&send->link);
			notify_tag_send(sb, &send->reply, status);
			free(send);
		}
	}
}

/* Writes what the socket takes now; -1 when the connection is broken. */
static int connection_flush(struct sandbox *sb, struct connection *conn)
{
	while (queue_size(&conn->out) > 0) {
		ssize_t written = send(conn->fd, conn->out.data + conn->out.start, queue_size(&conn->out),
				       MSG_NOSIGNAL | MSG_DONTWAIT);

		if (written < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			UROM_LOG_WARN("write to peer %llu failed: %s", (unsigned long long)conn->peer_id, strerror(errno));
			return -1;
		}
		queue_consume(&conn->out, (size_t)written);
		conn->bytes_written += (uint64_t)written;
	}
	finish_sends(sb, conn, conn->bytes_written, UROM_SUCCESS);
	return 0;
}

/*
 * Writes the header and fields of a frame after the output's end and returns
 * where its data_len data bytes go (NULL when out of memory). The frame is
 * part of the output once connection_commit_frame counts it.
 */
static uint8_t *connection_begin_frame(struct connection *conn, uint32_t kind, const uint8_t *fields,
				       size_t fields_len, size_t data_len)
{
	uint8_t *out;

	if (queue_reserve(&conn->out, FRAME_HEADER_BYTES + fields_len + data_len) != 0)
		return NULL;
	out = conn->out.data + conn->out.end;
	store_le32(out, FRAME_MAGIC);
	store_le32(out + 4, kind);
	if (fields_len > 0)
		memcpy(out + FRAME_HEADER_BYTES, fields, fields_len);
	return out + FRAME_HEADER_BYTES + fields_len;
}

static void connection_commit_frame(struct connection *conn, size_t frame_bytes)
{
	conn->out.end += frame_bytes;
	conn->bytes_queued += frame_bytes;
}

/* Queues a frame without data; -1 when out of memory. */
static int connection_queue_frame(struct connection *conn, uint32_t kind, const uint8_t *fields, size_t fields_len)
{
	if (connection_begin_frame(conn, kind, fields, fields_len, 0) == NULL)
		return -1;
	connection_commit_frame(conn, FRAME_HEADER_BYTES + fields_len);
	return 0;
}

/*
 * Ends a connection. One that ended without BYE (or was dropped for a bad
 * frame) fails every waiting receive with CONNECTION_RESET; sends whose bytes
 * never left fail the same way.
 */
static void connection_end(struct sandbox *sb, struct connection *conn, int clean)
{
	finish_sends(sb, conn, UINT64_MAX, UROM_ERR_CONNECTION_RESET);
	if (!clean) {
		UROM_LOG_WARN("connection with peer %llu ended without BYE: waiting receives fail with CONNECTION_RESET",
			      (unsigned long long)conn->peer_id);
		fail_all_receives(sb, UROM_ERR_CONNECTION_RESET);
	}
	link_remove(&conn->link);
	connection_free(conn);
}

#define READ_ENDED 1
#define READ_BROKEN (-1)
#define READ_BAD_FRAME (-2)

/* Handles the whole frames in the input; READ_BAD_FRAME when the connection must be dropped. */
static int connection_parse(struct sandbox *sb, struct connection *conn)
{
	while (queue_size(&conn->in) >= FRAME_HEADER_BYTES) {
		const uint8_t *frame = conn->in.data + conn->in.start;
		size_t available = queue_size(&conn->in);
		uint32_t magic = load_le32(frame);
		uint32_t kind = load_le32(frame + 4);

		if (magic != FRAME_MAGIC) {
			UROM_LOG_ERR("frame with bad magic 0x%08x from peer %llu: connection dropped", magic,
				     (unsigned long long)conn->peer_id);
			return READ_BAD_FRAME;
		}
		if (kind == FRAME_HELLO) {
			if (available < FRAME_HEADER_BYTES + 8)
				return 0;
			if (!conn->outgoing)
				conn->peer_id = load_le64(frame + FRAME_HEADER_BYTES);
			queue_consume(&conn->in, FRAME_HEADER_BYTES + 8);
		} else if (kind == FRAME_MESSAGE) {
			uint64_t tag, length;

			if (available < FRAME_MESSAGE_HEADER_BYTES)
				return 0;
			tag = load_le64(frame + FRAME_HEADER_BYTES);
			length = load_le64(frame + FRAME_HEADER_BYTES + 8);
			if (length > FRAME_MAX_MESSAGE) {
				UROM_LOG_ERR("message of %llu bytes from peer %llu exceeds the limit of %llu bytes: connection dropped",
					     (unsigned long long)length, (unsigned long long)conn->peer_id,
					     (unsigned long long)FRAME_MAX_MESSAGE);
				return READ_BAD_FRAME;
			}
			if (available < FRAME_MESSAGE_HEADER_BYTES + length)
				return 0;
			deliver_message(sb, tag, frame + FRAME_MESSAGE_HEADER_BYTES, length);
			queue_consume(&conn->in, FRAME_MESSAGE_HEADER_BYTES + (size_t)length);
		} else if (kind == FRAME_BYE) {
			conn->bye_received = 1;
			queue_consume(&conn->in, FRAME_HEADER_BYTES);
		} else {
			UROM_LOG_ERR("frame of unknown kind %u from peer %llu: connection dropped", kind,
				     (unsigned long long)conn->peer_id);
			return READ_BAD_FRAME;
		}
	}
	return 0;
}

/* Reads what the socket has: 0 while open, READ_ENDED at the end of the stream, else a READ_ error. */
static int connection_read(struct sandbox *sb, struct connection *conn)
{
	for (;;) {
		ssize_t got;

		if (queue_reserve(&conn->in, READ_CHUNK) != 0) {
			UROM_LOG_ERR("cannot grow the input buffer of the connection with peer %llu",
				     (unsigned long long)conn->peer_id);
			return READ_BROKEN;
		}
		got = recv(conn->fd, conn->in.data + conn->in.end, conn->in.capacity - conn->in.end, MSG_DONTWAIT);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			if (errno != ECONNRESET)
				UROM_LOG_WARN("read from peer %llu failed: %s", (unsigned long long)conn->peer_id,
					      strerror(errno));
			return READ_BROKEN;
		}
		if (got == 0)
			return READ_ENDED;
		conn->in.end += (size_t)got;
		if (connection_parse(sb, conn) != 0)
			return READ_BAD_FRAME;
	}
}

static struct connection *outgoing_connection(struct sandbox *sb, uint64_t dest)
{
	for (urom_list_link_t *it = sb->connections.next; it != &sb->connections; it = it->next) {
		struct connection *conn = (struct connection *)it;

		if (conn->outgoing && conn->peer_id == dest)
			return conn;
	}
	return NULL;
}

/* Finds or opens the connection to `dest`; a status when it cannot. */
static urom_status_t connect_peer(struct sandbox *sb, uint64_t dest, struct connection **found)
{
	struct sockaddr_un peer;
	struct connection *conn = outgoing_connection(sb, dest);
	void *addr = NULL;
	const char *text;
	size_t path_len;
	urom_status_t status;
	uint8_t hello[8];
	int fd;

	if (conn != NULL) {
		*found = conn;
		return UROM_SUCCESS;
	}
	if (sb->ctx->domain_iface.addr_lookup == NULL)
		return UROM_ERR_NOT_FOUND;
	status = sb->ctx->domain_iface.addr_lookup(sb->ctx, dest, &addr);
	if (status != UROM_SUCCESS || addr == NULL) {
		UROM_LOG_DBG("no address for peer %llu (status %d)", (unsigned long long)dest, (int)status);
		return status == UROM_SUCCESS ? UROM_ERR_NOT_FOUND : status;
	}
	text = addr;
	path_len = strnlen(text, sizeof(sb->address));
	if (strncmp(text, ADDRESS_SCHEME, strlen(ADDRESS_SCHEME)) != 0 || path_len == sizeof(sb->address) ||
	    path_len - strlen(ADDRESS_SCHEME) >= sizeof(peer.sun_path) || text[strlen(ADDRESS_SCHEME)] != '/') {
		UROM_LOG_ERR("the address of peer %llu is not a sandbox address (unix:<absolute path>)",
			     (unsigned long long)dest);
		return UROM_ERR_INVALID_VALUE;
	}
	memset(&peer, 0, sizeof(peer));
	peer.sun_family = AF_UNIX;
	memcpy(peer.sun_path, text + strlen(ADDRESS_SCHEME), path_len - strlen(ADDRESS_SCHEME));
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		UROM_LOG_ERR("cannot create a socket for peer %llu: %s", (unsigned long long)dest, strerror(errno));
		return UROM_ERR_OPERATING_SYSTEM;
	}
	if (connect(fd, (struct sockaddr *)&peer, sizeof(peer)) != 0 && errno != EINPROGRESS) {
		UROM_LOG_ERR("cannot connect to peer %llu at %s: %s", (unsigned long long)dest, peer.sun_path,
			     strerror(errno));
		close(fd);
		return UROM_ERR_NOT_CONNECTED;
	}
	conn = connection_new(fd, 1, dest);
	store_le64(hello, UNKNOWN_DOMAIN_ID);
	if (conn == NULL || connection_queue_frame(conn, FRAME_HELLO, hello, sizeof(hello)) != 0) {
		UROM_LOG_ERR("cannot allocate the connection to peer %llu", (unsigned long long)dest);
		if (conn != NULL)
			connection_free(conn);
		else
			close(fd);
		return UROM_ERR_NO_MEMORY;
	}
	link_append(&sb->connections, &conn->link);
	*found = conn;
	return UROM_SUCCESS;
}

/* ---- memory regions ---- */

static struct region *find_region(struct sandbox *sb, uint64_t id)
{
	for (urom_list_link_t *it = sb->regions.next; it != &sb->regions; it = it->next) {
		struct region *region = (struct region *)it;

		if (region->id == id)
			return region;
	}
	return NULL;
}

/* The region and range of a TAG_SEND/TAG_RECV that names a memh_id. */
static urom_status_t resolve_range(struct sandbox *sb, uint64_t memh_id, uint64_t buffer, uint64_t count,
				   struct region **found)
{
	struct region *region = find_region(sb, memh_id);

	if (region == NULL) {
		UROM_LOG_ERR("memh_id %llu is not mapped", (unsigned long long)memh_id);
		return UROM_ERR_NOT_FOUND;
	}
	if (buffer > region->length || count > region->length - buffer) {
		UROM_LOG_ERR("range [%llu, +%llu) is beyond region %llu of %zu bytes", (unsigned long long)buffer,
			     (unsigned long long)count, (unsigned long long)memh_id, region->length);
		return UROM_ERR_INVALID_VALUE;
	}
	*found = region;
	return UROM_SUCCESS;
}

/* The length of dir without its trailing slashes when path lies strictly below it, else 0. */
static size_t root_prefix(const char *path, const char *dir)
{
	size_t dir_len = strlen(dir);

	while (dir_len > 1 && dir[dir_len - 1] == '/')
		dir_len--;
	return strncmp(path, dir, dir_len) == 0 && path[dir_len] == '/' ? dir_len : 0;
}

/* Decodes, in place, the octal escapes of a /proc/mounts field (\040 is a space). */
static void unescape_mount_field(char *field)
{
	char *out = field;

	for (const char *in = field; *in != '\0';) {
		if (in[0] == '\\' && in[1] >= '0' && in[1] <= '7' && in[2] >= '0' && in[2] <= '7' && in[3] >= '0' &&
		    in[3] <= '7') {
			*out++ = (char)(((in[1] - '0') << 6) | ((in[2] - '0') << 3) | (in[3] - '0'));
			in += 4;
		} else {
			*out++ = *in++;
		}
	}
	*out = '\0';
}

/*
 * The directory MEM_MAP resolves path beneath: the longest of /dev/shm and the
 * hugetlbfs mount points (from /proc/mounts) that path lies below, copied into
 * root. Returns its length in path, 0 when path is below none of them.
 */
static size_t find_root(const char *path, char root[PATH_MAX])
{
	size_t best = root_prefix(path, SHM_ROOT);
	char line[4096];
	FILE *mounts;

	if (best > 0)
		snprintf(root, PATH_MAX, "%s", SHM_ROOT);
	mounts = fopen("/proc/mounts", "re");
	if (mounts == NULL) {
		UROM_LOG_WARN("cannot read /proc/mounts (%s): MEM_MAP allows only files under %s", strerror(errno), SHM_ROOT);
		return best;
	}
	while (fgets(line, sizeof(line), mounts) != NULL) {
		char *save = NULL;
		char *device = strtok_r(line, " ", &save);
		char *mount_point = device == NULL ? NULL : strtok_r(NULL, " ", &save);
		char *fs_type = mount_point == NULL ? NULL : strtok_r(NULL, " ", &save);
		size_t length;

		if (fs_type == NULL || strcmp(fs_type, "hugetlbfs") != 0 || mount_point[0] != '/')
			continue;
		unescape_mount_field(mount_point);
		length = root_prefix(path, mount_point);
		if (length > best && length < PATH_MAX) {
			best = length;
			memcpy(root, mount_point, length);
			root[length] = '\0';
		}
	}
	fclose(mounts);
	return best;
}

static urom_status_t open_failure_status(int error)
{
	switch (error) {
	case -ELOOP:
	case -EXDEV:
	case -EACCES:
	case -EPERM:
		return UROM_ERR_NOT_PERMITTED;
	case -ENOENT:
	case -ENOTDIR:
		return UROM_ERR_NOT_FOUND;
	case -EISDIR:
	case -ENXIO:
	case -ENODEV:
		return UROM_ERR_INVALID_VALUE;
	default:
		return UROM_ERR_OPERATING_SYSTEM;
	}
}

static const char *open_failure_reason(int error)
{
	switch (error) {
	case -ELOOP:
		return "the path goes through a symbolic link";
	case -EXDEV:
		return "the path crosses a mount point";
	case -ENOENT:
		return "no such file";
	case -ENOTDIR:
		return "a component of the path is not a directory";
	case -EISDIR:
	case -ENXIO:
	case -ENODEV:
		return "it is not a regular file";
	default:
		return strerror(-error);
	}
}

/*
 * Opens the file a MEM_MAP names, read-write, beneath its root and through no
 * symbolic link; UROM_SUCCESS with *fd set, else the refusal (logged).
 */
static urom_status_t open_mapped_file(const char *path, int *fd)
{
	char root[PATH_MAX];
	size_t root_len = strstr(path, "..") == NULL ? find_root(path, root) : 0;
	const char *rest = path + root_len;
	int root_fd, opened;

	if (root_len == 0) {
		UROM_LOG_ERR("MEM_MAP of %.*s refused: only files under %s or a hugetlbfs mount, without '..'",
			     LOGGED_TEXT_MAX, path, SHM_ROOT);
		return UROM_ERR_NOT_PERMITTED;
	}
	root_fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root_fd < 0) {
		UROM_LOG_ERR("MEM_MAP of %.*s failed: cannot open %s: %s", LOGGED_TEXT_MAX, path, root, strerror(errno));
		return UROM_ERR_OPERATING_SYSTEM;
	}
	while (*rest == '/')
		rest++;
	opened = sandbox_open_beneath(root_fd, rest);
	close(root_fd);
	if (opened < 0) {
		UROM_LOG_ERR("MEM_MAP of %.*s refused: %s", LOGGED_TEXT_MAX, path, open_failure_reason(opened));
		return open_failure_status(opened);
	}
	*fd = opened;
	return UROM_SUCCESS;
}

/* NOT_PERMITTED (logged) unless a file owned by owner may be mapped. */
static urom_status_t check_owner(const struct sandbox *sb, const char *path, uid_t owner)
{
	const struct sandbox_owners *owners = &sb->owners;

	if (sandbox_owner_accepted(owners, owner))
		return UROM_SUCCESS;
	if (owners->has_principal)
		UROM_LOG_ERR("MEM_MAP of %.*s refused: the file is owned by uid %lu; accepted: uid %lu (the worker) and uid %lu (%s)",
			     LOGGED_TEXT_MAX, path, (unsigned long)owner, (unsigned long)owners->worker_uid,
			     (unsigned long)owners->principal_uid, OWNER_UID_VARIABLE);
	else
		UROM_LOG_ERR("MEM_MAP of %.*s refused: the file is owned by uid %lu; accepted: uid %lu (the worker; %s is not set)",
			     LOGGED_TEXT_MAX, path, (unsigned long)owner, (unsigned long)owners->worker_uid,
			     OWNER_UID_VARIABLE);
	return UROM_ERR_NOT_PERMITTED;
}

/* Checks the opened file of a MEM_MAP: a regular file of an accepted owner, at least length bytes. */
static urom_status_t check_mapped_file(const struct sandbox *sb, const char *path, int fd, uint64_t length)
{
	struct stat info;
	urom_status_t status;

	if (fstat(fd, &info) != 0) {
		UROM_LOG_ERR("MEM_MAP of %.*s failed: fstat: %s", LOGGED_TEXT_MAX, path, strerror(errno));
		return UROM_ERR_OPERATING_SYSTEM;
	}
	if (!S_ISREG(info.st_mode)) {
		UROM_LOG_ERR("MEM_MAP of %.*s refused: it is not a regular file", LOGGED_TEXT_MAX, path);
		return UROM_ERR_INVALID_VALUE;
	}
	status = check_owner(sb, path, info.st_uid);
	if (status != UROM_SUCCESS)
		return status;
	if (length == 0 || (uint64_t)info.st_size < length || length > SIZE_MAX) {
		UROM_LOG_ERR("MEM_MAP of %llu bytes refused: %.*s is %lld bytes (length must be 1 to the file's size)",
			     (unsigned long long)length, LOGGED_TEXT_MAX, path, (long long)info.st_size);
		return UROM_ERR_INVALID_VALUE;
	}
	return UROM_SUCCESS;
}

static urom_status_t mem_map(struct sandbox *sb, const struct reply_to *reply, const uint8_t *cmd, uint64_t len)
{
	uint64_t length, path_len;
	struct region *region;
	char *path;
	void *base;
	int fd;
	urom_status_t status;

	if (len < MEM_MAP_FIXED_BYTES) {
		UROM_LOG_ERR("MEM_MAP of %llu bytes is shorter than its fixed part (%d bytes)", (unsigned long long)len,
			     MEM_MAP_FIXED_BYTES);
		return UROM_ERR_INVALID_VALUE;
	}
	length = load_le64(cmd + 16);
	path_len = load_le64(cmd + 24);
	if (path_len != len - MEM_MAP_FIXED_BYTES || path_len == 0 ||
	    memchr(cmd + MEM_MAP_FIXED_BYTES, '\0', path_len) != NULL) {
		UROM_LOG_ERR("MEM_MAP path_len %llu does not match the %llu path bytes that follow (or the path holds a NUL)",
			     (unsigned long long)path_len, (unsigned long long)(len - MEM_MAP_FIXED_BYTES));
		return UROM_ERR_INVALID_VALUE;
	}
	path = malloc(path_len + 1);
	if (path == NULL)
		return UROM_ERR_NO_MEMORY;
	memcpy(path, cmd + MEM_MAP_FIXED_BYTES, path_len);
	path[path_len] = '\0';
	status = open_mapped_file(path, &fd);
	if (status == UROM_SUCCESS) {
		status = check_mapped_file(sb, path, fd, length);
		if (status != UROM_SUCCESS)
			close(fd);
	}
	if (status != UROM_SUCCESS) {
		free(path);
		return status;
	}
	base = mmap(NULL, (size_t)length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		UROM_LOG_ERR("MEM_MAP cannot map %llu bytes of %.*s: %s", (unsigned long long)length, LOGGED_TEXT_MAX, path,
			     strerror(errno));
		close(fd);
		free(path);
		return UROM_ERR_OPERATING_SYSTEM;
	}
	free(path);
	region = calloc(1, sizeof(*region));
	if (region == NULL) {
		munmap(base, (size_t)length);
		close(fd);
		return UROM_ERR_NO_MEMORY;
	}
	region->id = sb->next_memh_id++;
	region->fd = fd;
	region->base = base;
	region->length = (size_t)length;
	status = notify_mem_map(sb, reply, region->id);
	if (status != UROM_SUCCESS) {
		munmap(base, (size_t)length);
		close(fd);
		free(region);
		return status;
	}
	link_append(&sb->regions, &region->link);
	return UROM_SUCCESS;
}

/* ---- TAG_SEND / TAG_RECV ---- */

static urom_status_t tag_send(struct sandbox *sb, const struct reply_to *reply, const uint8_t *cmd, uint64_t len)
{
	uint64_t dest, buffer, count, tag, memh_id;
	const uint8_t *data = NULL;
	struct region *region = NULL;
	struct connection *conn;
	struct send_op *send;
	uint8_t fields[16];
	uint8_t *frame_data;
	urom_status_t status;

	if (len < TAG_SEND_FIXED_BYTES) {
		UROM_LOG_ERR("TAG_SEND of %llu bytes is shorter than its fixed part (%d bytes)", (unsigned long long)len,
			     TAG_SEND_FIXED_BYTES);
		return UROM_ERR_INVALID_VALUE;
	}
	dest = load_le64(cmd + 16);
	buffer = load_le64(cmd + 24);
	count = load_le64(cmd + 32);
	tag = load_le64(cmd + 40);
	memh_id = load_le64(cmd + 48);
	if (memh_id == 0) {
		if (count != len - TAG_SEND_FIXED_BYTES) {
			UROM_LOG_ERR("TAG_SEND count %llu differs from its %llu inline data bytes", (unsigned long long)count,
				     (unsigned long long)(len - TAG_SEND_FIXED_BYTES));
			return UROM_ERR_INVALID_VALUE;
		}
		data = cmd + TAG_SEND_FIXED_BYTES;
	} else {
		if (len != TAG_SEND_FIXED_BYTES) {
			UROM_LOG_ERR("TAG_SEND through memh_id %llu carries %llu unexpected inline bytes",
				     (unsigned long long)memh_id, (unsigned long long)(len - TAG_SEND_FIXED_BYTES));
			return UROM_ERR_INVALID_VALUE;
		}
		status = resolve_range(sb, memh_id, buffer, count, &region);
		if (status != UROM_SUCCESS)
			return status;
	}
	if (count > FRAME_MAX_MESSAGE) {
		UROM_LOG_ERR("TAG_SEND of %llu bytes exceeds the message limit of %llu bytes", (unsigned long long)count,
			     (unsigned long long)FRAME_MAX_MESSAGE);
		return UROM_ERR_INVALID_VALUE;
	}
	status = connect_peer(sb, dest, &conn);
	if (status != UROM_SUCCESS)
		return status;
	send = calloc(1, sizeof(*send));
	store_le64(fields, tag);
	store_le64(fields + 8, count);
	frame_data = send == NULL ? NULL : connection_begin_frame(conn, FRAME_MESSAGE, fields, sizeof(fields), (size_t)count);
	if (frame_data == NULL) {
		UROM_LOG_ERR("cannot queue a TAG_SEND of %llu bytes", (unsigned long long)count);
		free(send);
		return UROM_ERR_NO_MEMORY;
	}
	if (region == NULL) {
		if (count > 0)
			memcpy(frame_data, data, (size_t)count);
	} else {
		int error = sandbox_read_at(region->fd, buffer, frame_data, (size_t)count);

		if (error != 0) {
			log_region_failure("TAG_SEND from", region, buffer, count, error);
			free(send);
			return UROM_ERR_IO_FAILED;
		}
	}
	connection_commit_frame(conn, FRAME_MESSAGE_HEADER_BYTES + (size_t)count);
	send->reply = *reply;
	send->connection = conn;
	send->frame_end = conn->bytes_queued;
	link_append(&sb->sends, &send->link);
	if (connection_flush(sb, conn) != 0)
		connection_end(sb, conn, conn->bye_received);
	return UROM_SUCCESS;
}

static urom_status_t tag_recv(struct sandbox *sb, const struct reply_to *reply, const uint8_t *cmd, uint64_t len)
{
	struct recv_op *recv;
	struct region *region = NULL;
	uint64_t memh_id;

	if (len != TAG_RECV_FIXED_BYTES) {
		UROM_LOG_ERR("TAG_RECV of %llu bytes: a TAG_RECV is exactly %d bytes", (unsigned long long)len,
			     TAG_RECV_FIXED_BYTES);
		return UROM_ERR_INVALID_VALUE;
	}
	recv = calloc(1, sizeof(*recv));
	if (recv == NULL)
		return UROM_ERR_NO_MEMORY;
	recv->reply = *reply;
	recv->buffer = load_le64(cmd + 16);
	recv->count = load_le64(cmd + 24);
	recv->tag = load_le64(cmd + 32);
	recv->tag_mask = load_le64(cmd + 40);
	memh_id = load_le64(cmd + 48);
	if (memh_id != 0) {
		urom_status_t status = resolve_range(sb, memh_id, recv->buffer, recv->count, &region);

		if (status != UROM_SUCCESS) {
			free(recv);
			return status;
		}
	}
	recv->region = region;
	for (urom_list_link_t *it = sb->unexpected.next; it != &sb->unexpected; it = it->next) {
		struct unexpected *queued = (struct unexpected *)it;

		if (tag_matches(queued->tag, recv->tag, recv->tag_mask)) {
			link_remove(&queued->link);
			complete_receive(sb, recv, queued->tag, queued->data, queued->length);
			free(queued);
			free(recv);
			return UROM_SUCCESS;
		}
	}
	link_append(&sb->receives, &recv->link);
	return UROM_SUCCESS;
}

static urom_status_t run_command(struct sandbox *sb, const struct urom_worker_cmd_desc *desc)
{
	const uint8_t *cmd = desc->worker_cmd.plugin_cmd;
	uint64_t len = desc->worker_cmd.len;
	struct reply_to reply;
	uint64_t type;

	if (len < 8) {
		UROM_LOG_ERR("command of %llu bytes has no type", (unsigned long long)len);
		return UROM_ERR_INVALID_VALUE;
	}
	type = load_le64(cmd);
	if (type != CMD_MEM_MAP && type != CMD_TAG_SEND && type != CMD_TAG_RECV) {
		UROM_LOG_ERR("command type %llu is not supported (MEM_MAP 0, TAG_SEND 1, TAG_RECV 2)",
			     (unsigned long long)type);
		return UROM_ERR_NOT_SUPPORTED;
	}
	if (len < 16) {
		UROM_LOG_ERR("command of %llu bytes is shorter than its fixed part", (unsigned long long)len);
		return UROM_ERR_INVALID_VALUE;
	}
	reply.dest_id = desc->dest_id;
	reply.type = desc->worker_cmd.type;
	reply.urom_context = desc->worker_cmd.urom_context;
	reply.context = load_le64(cmd + 8);
	switch (type) {
	case CMD_MEM_MAP:
		return mem_map(sb, &reply, cmd, len);
	case CMD_TAG_SEND:
		return tag_send(sb, &reply, cmd, len);
	default:
		return tag_recv(sb, &reply, cmd, len);
	}
}

/* ---- the listening socket ---- */

static urom_status_t listen_socket(struct sandbox *sb)
{
	const char *dir = getenv("TMPDIR");
	int fd;

	if (dir == NULL || dir[0] == '\0')
		dir = "/tmp";
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		UROM_LOG_ERR("cannot create the listening socket: %s", strerror(errno));
		return UROM_ERR_OPERATING_SYSTEM;
	}
	for (int n = 1; n <= SOCKET_NAME_ATTEMPTS; n++) {
		struct sockaddr_un *address = &sb->socket_address;
		int written;

		memset(address, 0, sizeof(*address));
		address->sun_family = AF_UNIX;
		written = snprintf(address->sun_path, sizeof(address->sun_path), "%s/urom-sandbox-%ld-%d.sock", dir,
				   (long)getpid(), n);
		if (written < 0 || (size_t)written >= sizeof(address->sun_path) || address->sun_path[0] != '/') {
			UROM_LOG_ERR("TMPDIR '%s' is not an absolute directory short enough for a Unix socket path (%zu bytes)",
				     dir, sizeof(address->sun_path) - 1);
			close(fd);
			return UROM_ERR_BAD_CONFIG;
		}
		if (bind(fd, (struct sockaddr *)address, sizeof(*address)) == 0) {
			if (listen(fd, SOMAXCONN) != 0) {
				UROM_LOG_ERR("cannot listen on %s: %s", address->sun_path, strerror(errno));
				unlink(address->sun_path);
				close(fd);
				return UROM_ERR_OPERATING_SYSTEM;
			}
			sb->listen_fd = fd;
			sb->address_len = (size_t)snprintf(sb->address, sizeof(sb->address), "%s%s", ADDRESS_SCHEME,
							   address->sun_path);
			UROM_LOG_DBG("listening on %s", address->sun_path);
			return UROM_SUCCESS;
		}
		if (errno != EADDRINUSE) {
			UROM_LOG_ERR("cannot bind %s: %s", address->sun_path, strerror(errno));
			close(fd);
			return UROM_ERR_OPERATING_SYSTEM;
		}
	}
	UROM_LOG_ERR("no free socket name urom-sandbox-%ld-<n>.sock in %s", (long)getpid(), dir);
	close(fd);
	return UROM_ERR_OPERATING_SYSTEM;
}

static void accept_connections(struct sandbox *sb)
{
	for (;;) {
		struct connection *conn;
		int fd = accept4(sb->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				UROM_LOG_WARN("accept failed: %s", strerror(errno));
			return;
		}
		conn = connection_new(fd, 0, UNKNOWN_DOMAIN_ID);
		if (conn == NULL) {
			UROM_LOG_ERR("cannot allocate an accepted connection: closed");
			close(fd);
			continue;
		}
		link_append(&sb->connections, &conn->link);
	}
}

/* ---- entry points ---- */

static void sandbox_free(struct sandbox *sb)
{
	while (!list_empty(&sb->connections)) {
		struct connection *conn = (struct connection *)sb->connections.next;

		link_remove(&conn->link);
		connection_free(conn);
	}
	while (!list_empty(&sb->regions)) {
		struct region *region = (struct region *)sb->regions.next;

		link_remove(&region->link);
		munmap(region->base, region->length);
		close(region->fd);
		free(region);
	}
	urom_list_link_t *lists[] = { &sb->notifications, &sb->sends, &sb->receives, &sb->unexpected };

	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		while (!list_empty(lists[i])) {
			urom_list_link_t *item = lists[i]->next;

			link_remove(item);
			free(item);
		}
	}
	if (sb->listen_fd >= 0) {
		close(sb->listen_fd);
		unlink(sb->socket_address.sun_path);
	}
	free(sb->pollfds);
	free(sb);
}

static urom_status_t sandbox_open(struct urom_worker_ctx *ctx)
{
	const char *owner_uid = getenv(OWNER_UID_VARIABLE);
	struct sandbox_owners owners;
	struct sandbox *sb;
	urom_status_t status;

	if (ctx == NULL)
		return UROM_ERR_INVALID_VALUE;
	if (sandbox_owners_parse(&owners, geteuid(), owner_uid) != 0) {
		UROM_LOG_ERR("%s='%.*s' is not a decimal uid (0 to 4294967294): the sandbox plugin does not open",
			     OWNER_UID_VARIABLE, LOGGED_TEXT_MAX, owner_uid);
		return UROM_ERR_BAD_CONFIG;
	}
	sb = calloc(1, sizeof(*sb));
	if (sb == NULL) {
		UROM_LOG_ERR("cannot allocate the sandbox plugin instance");
		return UROM_ERR_NO_MEMORY;
	}
	sb->ctx = ctx;
	sb->listen_fd = -1;
	sb->next_memh_id = 1;
	sb->owners = owners;
	list_init(&sb->notifications);
	list_init(&sb->regions);
	list_init(&sb->connections);
	list_init(&sb->sends);
	list_init(&sb->receives);
	list_init(&sb->unexpected);
	status = listen_socket(sb);
	if (status != UROM_SUCCESS) {
		sandbox_free(sb);
		return status;
	}
	ctx->plugin_ctx = sb;
	return UROM_SUCCESS;
}

/* Says BYE on every connection (best effort: what the sockets take now) and frees everything. */
static void sandbox_close(struct urom_worker_ctx *ctx)
{
	struct sandbox *sb;

	if (ctx == NULL || ctx->plugin_ctx == NULL)
		return;
	sb = ctx->plugin_ctx;
	for (urom_list_link_t *it = sb->connections.next; it != &sb->connections; it = it->next) {
		struct connection *conn = (struct connection *)it;

		if (connection_queue_frame(conn, FRAME_BYE, NULL, 0) == 0)
			(void)connection_flush(sb, conn);
	}
	sandbox_free(sb);
	ctx->plugin_ctx = NULL;
}

static urom_status_t sandbox_addr(struct urom_worker_ctx *ctx, void *addr, size_t *addr_len)
{
	struct sandbox *sb;

	if (ctx == NULL || ctx->plugin_ctx == NULL || addr_len == NULL)
		return UROM_ERR_INVALID_VALUE;
	sb = ctx->plugin_ctx;
	if (*addr_len < sb->address_len || addr == NULL) {
		*addr_len = sb->address_len;
		return UROM_ERR_INVALID_VALUE;
	}
	memcpy(addr, sb->address, sb->address_len);
	*addr_len = sb->address_len;
	return UROM_SUCCESS;
}

/*
 * Takes commands off cmd_list one by one. On the first refused command its
 * status is returned and the commands behind it stay on the list, still owned
 * by the caller.
 */
static urom_status_t sandbox_worker_cmd(struct urom_worker_ctx *ctx, urom_list_link_t *cmd_list)
{
	struct sandbox *sb;

	if (ctx == NULL || ctx->plugin_ctx == NULL || cmd_list == NULL)
		return UROM_ERR_INVALID_VALUE;
	sb = ctx->plugin_ctx;
	while (!list_empty(cmd_list)) {
		struct urom_worker_cmd_desc *cmd = (struct urom_worker_cmd_desc *)cmd_list->next;
		urom_status_t status;

		link_remove(&cmd->entry);
		status = run_command(sb, cmd);
		free(cmd);
		if (status != UROM_SUCCESS)
			return status;
	}
	return UROM_SUCCESS;
}

/* Accepts, reads, writes; then hands out every notification ready. */
static void poll_sockets(struct sandbox *sb)
{
	size_t count = 1;
	size_t i;
	urom_list_link_t *it;

	for (it = sb->connections.next; it != &sb->connections; it = it->next)
		count++;
	if (count > sb->pollfds_capacity) {
		struct pollfd *grown = realloc(sb->pollfds, count * 2 * sizeof(*grown));

		if (grown == NULL) {
			UROM_LOG_ERR("cannot grow the poll set to %zu sockets", count);
			return;
		}
		sb->pollfds = grown;
		sb->pollfds_capacity = count * 2;
	}
	sb->pollfds[0].fd = sb->listen_fd;
	sb->pollfds[0].events = POLLIN;
	sb->pollfds[0].revents = 0;
	for (i = 1, it = sb->connections.next; it != &sb->connections; it = it->next, i++) {
		struct connection *conn = (struct connection *)it;

		sb->pollfds[i].fd = conn->fd;
		sb->pollfds[i].events = (short)(POLLIN | (queue_size(&conn->out) > 0 ? POLLOUT : 0));
		sb->pollfds[i].revents = 0;
	}
	if (poll(sb->pollfds, count, 0) <= 0)
		return;
	/* Connections accepted now are appended after the ones polled, so indexes stay aligned. */
	it = sb->connections.next;
	for (i = 1; i < count; i++) {
		struct connection *conn = (struct connection *)it;
		short revents = sb->pollfds[i].revents;
		int ended = 0;

		it = it->next;
		if (revents & (POLLIN | POLLHUP | POLLERR)) {
			int read_status = connection_read(sb, conn);

			if (read_status != 0) {
				connection_end(sb, conn, read_status != READ_BAD_FRAME && conn->bye_received);
				ended = 1;
			}
		}
		if (!ended && (revents & POLLOUT) && connection_flush(sb, conn) != 0)
			connection_end(sb, conn, conn->bye_received);
	}
	if (sb->pollfds[0].revents & POLLIN)
		accept_connections(sb);
}

static urom_status_t sandbox_progress(struct urom_worker_ctx *ctx, urom_list_link_t *notif_list)
{
	struct sandbox *sb;

	if (ctx == NULL || ctx->plugin_ctx == NULL || notif_list == NULL)
		return UROM_ERR_INVALID_VALUE;
	sb = ctx->plugin_ctx;
	poll_sockets(sb);
	if (list_empty(&sb->notifications))
		return UROM_ERR_EMPTY;
	while (!list_empty(&sb->notifications)) {
		urom_list_link_t *notification = sb->notifications.next;

		link_remove(notification);
		link_append(notif_list, notification);
	}
	return UROM_SUCCESS;
}

/* Header then payload; a too small buffer gets the needed size back. */
static urom_status_t sandbox_notif_pack(struct urom_worker_notify *notif, size_t *packed_notif_len, void *packed_notif)
{
	size_t needed;

	if (notif == NULL || packed_notif_len == NULL)
		return UROM_ERR_INVALID_VALUE;
	needed = sizeof(*notif) + notif->len;
	if (*packed_notif_len < needed || packed_notif == NULL) {
		*packed_notif_len = needed;
		return UROM_ERR_INVALID_VALUE;
	}
	memcpy(packed_notif, notif, needed);
	*packed_notif_len = needed;
	return UROM_SUCCESS;
}

SANDBOX_EXPORT urom_status_t urom_plugin_get_iface(struct urom_plugin_iface *iface)
{
	if (iface == NULL)
		return UROM_ERR_INVALID_VALUE;
	iface->api_version = UROM_PLUGIN_API_VERSION;
	iface->open = sandbox_open;
	iface->close = sandbox_close;
	iface->addr = sandbox_addr;
	iface->worker_cmd = sandbox_worker_cmd;
	iface->progress = sandbox_progress;
	iface->notif_pack = sandbox_notif_pack;
	return UROM_SUCCESS;
}

SANDBOX_EXPORT urom_status_t urom_plugin_get_version(uint64_t *version)
{
	if (version == NULL)
		return UROM_ERR_INVALID_VALUE;
	*version = SANDBOX_PLUGIN_VERSION;
	return UROM_SUCCESS;
}
