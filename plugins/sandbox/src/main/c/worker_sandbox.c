/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom-java sandbox sample plugin: MEM_MAP, TAG_SEND and TAG_RECV between
 * workers, over UCX's UCP tag matching, and BOUNCE, a benchmark of tag round
 * trips between two workers with no host in the loop. docs/sandbox-protocol.md is the
 * contract (command and notification bytes, tag matching, worker to worker).
 *
 * Each open() creates one instance: one UCP context and one UCP worker
 * (features TAG and WAKEUP, single-threaded), whose worker address is the
 * plugin's address. All state hangs off plugin_ctx, so several instances (and
 * several copies of this library) live side by side in one process. The
 * worker drives an instance from one thread: nothing here locks. No entry
 * point blocks, but for progress() running a BOUNCE (it holds the thread for
 * the run, at most its bound): UCX requests complete in the callbacks that
 * progress() runs (or at once, inside worker_cmd), and every completion
 * queues one notification.
 *
 * A TAG_SEND is one ucp_tag_send_nbx on the peer's endpoint (created on the
 * first send to that domain id from addr_lookup's address, kept, error mode
 * PEER; a send UCX completes at once is answered at once); the UCP tag is the sandbox tag and the data is the message bytes,
 * nothing else. A TAG_RECV is one ucp_tag_recv_nbx with tag and mask: UCP
 * matches. A peer whose endpoint fails has its pending sends answered
 * CONNECTION_RESET and is forgotten, so the next send to it connects again.
 *
 * TAG_SEND and TAG_RECV are also accepted DOCA-sized (a fixed part of 64 or 72
 * bytes, the size of DOCA's command struct, whose fields lie where ours do):
 * such a command is answered in DOCA's layout, a 48-byte TAG_SEND answer and
 * UCX's ucs_status_t inside both answers, so NVIDIA's own host code works
 * unchanged (docs/sandbox-protocol.md, "DOCA-sized commands").
 *
 * MEM_MAP trusts nothing in the path a host sends: the file is opened beneath
 * its root (/dev/shm or a hugetlbfs mount) through no symbolic link, must be
 * owned by the worker's user or by UROM_OWNER_UID's (read in open()), and
 * stays open; the mapping is registered with ucp_mem_map. UCX never reads or
 * writes the mapping itself: TAG_SEND preads region bytes into a bounce
 * buffer that UCX sends, and TAG_RECV receives into a bounce buffer that is
 * pwritten into the file (sandbox_files.h), so a file that shrinks fails
 * those commands with IO_FAILED instead of raising SIGBUS in the worker.
 *
 * A BOUNCE is checked and its peer connected by worker_cmd, then run by the
 * next progress(): rounds of one ucp_tag_recv_nbx (its tag, full mask) and one
 * ucp_tag_send_nbx on the peer's endpoint, ucp_worker_progress spun until both
 * complete, up to UROM_SANDBOX_BOUNCE_TIMEOUT_MS (read in open()).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <ucp/api/ucp.h>
#include <ucs/debug/debug.h>

#include <urom_log.h>
#include <urom_plugin.h>
#include <urom_plugin_util.h>

#include "sandbox_files.h"

#define SANDBOX_PLUGIN_VERSION 1
#define SANDBOX_TRANSPORT "ucp-tag"

#define CMD_MEM_MAP 0
#define CMD_TAG_SEND 1
#define CMD_TAG_RECV 2
#define CMD_BOUNCE 3

#define MEM_MAP_FIXED_BYTES (4 * 8)
#define TAG_SEND_FIXED_BYTES (7 * 8)
#define TAG_RECV_FIXED_BYTES (7 * 8)
#define BOUNCE_BYTES (7 * 8)
/*
 * The fixed part of DOCA's TAG_SEND and TAG_RECV: sizeof its command struct,
 * u64 type and a union whose largest member is MEM_MAP's (u64 context,
 * ucp_mem_map_params_t, size_t), from a host built with UCX 1.13 (40-byte
 * params) or with UCX 1.14 and later (48 bytes: they add exported_memh_buffer).
 * Bytes 56.. are ignored.
 */
#define DOCA_FIXED_BYTES_UCX_1_13 64
#define DOCA_FIXED_BYTES_UCX_1_14 72

#define NOTIF_MEM_MAP_BYTES (3 * 8)
#define NOTIF_TAG_SEND_BYTES (2 * 8 + 8)
#define NOTIF_TAG_RECV_BYTES (5 * 8 + 8)
#define NOTIF_BOUNCE_BYTES (4 * 8 + 8)
/* DOCA's notification struct: u64 type and the union of the answers (TAG_RECV's, 40 bytes, the largest). */
#define NOTIF_DOCA_BYTES 48
#define INLINE_RECV_BUFFER 1

/* The longest message a plugin sends; a receive never takes more than this many bytes. */
#define MAX_MESSAGE ((uint64_t)64 << 20)

#define SHM_ROOT "/dev/shm"
#define OWNER_UID_VARIABLE "UROM_OWNER_UID"
/* Host-supplied text (a path) is cut to this many characters in a log line. */
#define LOGGED_TEXT_MAX 200
/* progress() runs ucp_worker_progress until it reports nothing done, at most this many times. */
#define PROGRESS_ROUNDS 64
/* close() waits at most this long for the endpoints' forced closes to complete. */
#define CLOSE_DEADLINE_NS 2000000000LL

/* BOUNCE: the most bytes per message, the most iterations, the roles. */
#define BOUNCE_MAX_COUNT 65536
#define BOUNCE_MAX_ITERATIONS 1000000
#define BOUNCE_INITIATOR 0
#define BOUNCE_RESPONDER 1
/* How long one BOUNCE may hold the worker's thread: this many ms, or UROM_SANDBOX_BOUNCE_TIMEOUT_MS's. */
#define BOUNCE_TIMEOUT_VARIABLE "UROM_SANDBOX_BOUNCE_TIMEOUT_MS"
#define BOUNCE_DEFAULT_TIMEOUT_MS 30000
#define BOUNCE_MAX_TIMEOUT_MS 3600000
/* A BOUNCE looks at the clock after this many ucp_worker_progress calls that did nothing. */
#define BOUNCE_IDLE_POLLS_PER_CLOCK 256

UROM_LOG_SOURCE(UROM::WORKER::SANDBOX);

/* A MEM_MAP: the file stays open; its bytes move with pread/pwrite, base is for hugetlbfs (no write). */
struct region {
	urom_list_link_t link;
	uint64_t id;
	int fd;
	uint8_t *base;
	size_t length;
	ucp_mem_h memh; /* the mapping, registered with UCP */
};

struct sandbox;

/*
 * The endpoint to one peer (a domain id). On sb->peers while usable; after
 * its error callback on sb->failed_peers until its forced close completes.
 */
struct peer {
	urom_list_link_t link;
	struct sandbox *sb;
	uint64_t dest;
	ucp_ep_h ep;
	void *close_request; /* the ucp_ep_close_nbx request once closing; NULL before */
	int closing;
};

/* What a notification must echo from its command, and in which layout (doca_layout: DOCA's). */
struct reply_to {
	uint64_t dest_id;
	uint64_t type;
	uint64_t urom_context;
	uint64_t context;
	int doca_layout;
};

/*
 * A TAG_SEND whose UCX request is outstanding, on sb->sends until its
 * callback. `answered` once its peer failed (answered CONNECTION_RESET then);
 * `peer` is NULL from then on. `owned` is what the request reads from: the
 * command descriptor (inline data) or a bounce buffer (region data).
 */
struct send_op {
	urom_list_link_t link;
	struct sandbox *sb;
	struct reply_to reply;
	struct peer *peer;
	void *owned;
	int answered;
};

/*
 * A TAG_RECV whose UCX request is outstanding, on sb->receives until its
 * callback. The answer is allocated when the receive is posted: an inline
 * receive takes its message straight into the answer's payload; a region
 * receive takes it into `bounce`, which is then written into the file.
 */
struct recv_op {
	urom_list_link_t link;
	struct sandbox *sb;
	struct reply_to reply;
	struct region *region; /* NULL: inline */
	uint64_t buffer;
	uint64_t count;
	struct urom_worker_notif_desc *answer;
	uint8_t *bounce;
	void *request;
};

/*
 * A BOUNCE: accepted by worker_cmd onto sb->bounces, run to its end by the
 * next progress(). A request still outstanding when the run ends (a timeout,
 * a failure) keeps the operation alive on sb->abandoned, since UCX may still
 * write into its buffers, until the request's callback frees it.
 */
struct bounce_op {
	urom_list_link_t link;
	struct sandbox *sb;
	struct reply_to reply;
	uint64_t dest;
	uint64_t count;
	uint64_t tag;
	uint64_t iterations;
	uint64_t role;
	uint8_t *send_buffer; /* the initiator's message */
	uint8_t *recv_buffer; /* what arrives; the responder sends it back from here */
	void *recv_request;   /* the outstanding receive's request, for a cancel */
	int send_pending;
	int recv_pending;
	int abandoned;
	ucs_status_t send_status;
	ucs_status_t recv_status;
};

struct sandbox {
	struct urom_worker_ctx *ctx;
	ucp_context_h context;
	ucp_worker_h worker;
	ucp_address_t *address;
	size_t address_len;
	int wakeup_fd;           /* -1: none, the instance is polled */
	int closing;             /* set by close(): completions free their operation and answer nothing */
	struct recv_op *posting; /* the receive being posted, while ucp_tag_recv_nbx runs */
	int posting_completed;   /* set when that receive completed inside ucp_tag_recv_nbx */
	uint64_t next_memh_id;
	int64_t bounce_timeout_ns;
	struct sandbox_owners owners;
	urom_list_link_t notifications;
	urom_list_link_t regions;
	urom_list_link_t peers;
	urom_list_link_t failed_peers;
	urom_list_link_t sends;
	urom_list_link_t receives;
	urom_list_link_t bounces;   /* accepted, not yet run */
	urom_list_link_t abandoned; /* run, a request still outstanding */
};

/*
 * libucs, once loaded, handles SIGSEGV, SIGBUS, SIGILL and SIGFPE itself (its
 * error reports, UCX_ERROR_SIGNALS). The JVM that hosts every worker raises
 * SIGSEGV on purpose (implicit null checks, safepoint polls) and must get it:
 * with UCX's handler in place the JVM dies at its first such fault. So the
 * plugin hands these signals back to the handlers that were there before, as
 * soon as it is loaded (this constructor runs right after libucs's). When
 * UCX_ERROR_SIGNALS is set, UCX took only the signals it lists: the daemon sets
 * it empty for every worker (and so does the Java UCX binding for its process),
 * and then there is nothing to give back.
 */
__attribute__((constructor)) static void give_back_error_signals(void)
{
	static const int signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE};

	if (getenv("UCX_ERROR_SIGNALS") != NULL)
		return;
	for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
		ucs_debug_disable_signal(signals[i]);
}

/* Whether len is the size of a TAG_SEND's or TAG_RECV's fixed part: ours or DOCA's. */
static int tag_fixed_size(uint64_t len)
{
	return len == TAG_SEND_FIXED_BYTES || len == DOCA_FIXED_BYTES_UCX_1_13 || len == DOCA_FIXED_BYTES_UCX_1_14;
}

static int64_t monotonic_ns(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec;
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
	urom_store_le64(desc->worker_notif.plugin_notif, CMD_MEM_MAP);
	urom_store_le64(desc->worker_notif.plugin_notif + 8, reply->context);
	urom_store_le64(desc->worker_notif.plugin_notif + 16, memh_id);
	urom_list_add_tail(&sb->notifications, &desc->entry);
	return UROM_SUCCESS;
}

/*
 * The UCX status nearest to one of ours, what an answer in DOCA's layout
 * carries; ucs_status_t is a one-byte enum in UCX's header, stored here as a
 * little-endian i32 (its first byte is the enum's). The Java plugin's
 * UcsStatus holds the same values.
 */
static int32_t ucs_status_of(urom_status_t status)
{
	switch (status) {
	case UROM_SUCCESS:
		return UCS_OK; /* 0 */
	case UROM_ERR_TOO_BIG:
		return UCS_ERR_MESSAGE_TRUNCATED; /* -9 */
	case UROM_ERR_CONNECTION_RESET:
		return UCS_ERR_CONNECTION_RESET; /* -25 */
	case UROM_ERR_NOT_FOUND:
		return UCS_ERR_NO_ELEM; /* -12 */
	case UROM_ERR_INVALID_VALUE:
		return UCS_ERR_INVALID_PARAM; /* -5 */
	case UROM_ERR_IO_FAILED:
		return UCS_ERR_IO_ERROR; /* -3 */
	default:
		return UCS_ERR_NO_MESSAGE; /* -1 */
	}
}

/* The status field of an answer: ours, or in DOCA's layout the UCX status. */
static uint32_t answer_status(const struct reply_to *reply, urom_status_t status)
{
	return reply->doca_layout ? (uint32_t)ucs_status_of(status) : (uint32_t)status;
}

/* 24 bytes in our layout, 48 in DOCA's (zero after the status). */
static void notify_tag_send(struct sandbox *sb, const struct reply_to *reply, urom_status_t status)
{
	size_t len = reply->doca_layout ? NOTIF_DOCA_BYTES : NOTIF_TAG_SEND_BYTES;
	struct urom_worker_notif_desc *desc = notification_new(reply, status, len);

	if (desc == NULL)
		return;
	memset(desc->worker_notif.plugin_notif, 0, len);
	urom_store_le64(desc->worker_notif.plugin_notif, CMD_TAG_SEND);
	urom_store_le64(desc->worker_notif.plugin_notif + 8, reply->context);
	urom_store_le32(desc->worker_notif.plugin_notif + 16, answer_status(reply, status));
	urom_list_add_tail(&sb->notifications, &desc->entry);
}

/*
 * Fills a TAG_RECV answer allocated with room for the inline data, which (an
 * inline receive that succeeded) is already in place after the fixed part.
 */
static void fill_tag_recv(struct urom_worker_notif_desc *desc, const struct recv_op *recv, uint64_t count,
			  uint64_t sender_tag, urom_status_t status)
{
	size_t inline_bytes = (recv->region == NULL && status == UROM_SUCCESS) ? (size_t)count : 0;
	uint8_t *out = desc->worker_notif.plugin_notif;

	desc->worker_notif.len = NOTIF_TAG_RECV_BYTES + inline_bytes;
	desc->worker_notif.status = status;
	urom_store_le64(out, CMD_TAG_RECV);
	urom_store_le64(out + 8, recv->reply.context);
	urom_store_le64(out + 16, recv->region == NULL ? INLINE_RECV_BUFFER : recv->buffer);
	urom_store_le64(out + 24, status == UROM_SUCCESS ? count : 0);
	urom_store_le64(out + 32, sender_tag);
	urom_store_le32(out + 40, answer_status(&recv->reply, status));
	urom_store_le32(out + 44, 0);
}

/* Logs a failed copy between a region and a message. */
static void log_region_failure(const char *what, const struct region *region, uint64_t offset, uint64_t count,
			       int error)
{
	UROM_LOG_ERR("%s region memh_id %llu at [%llu, +%llu) failed: %s", what, (unsigned long long)region->id,
		     (unsigned long long)offset, (unsigned long long)count,
		     error == -SANDBOX_FILE_TOO_SHORT ? "the file is now shorter than that (it shrank after MEM_MAP)"
						      : strerror(-error));
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
		UROM_LOG_WARN("cannot read /proc/mounts (%s): MEM_MAP allows only files under %s", strerror(errno),
			      SHM_ROOT);
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
		UROM_LOG_ERR("MEM_MAP of %.*s failed: cannot open %s: %s", LOGGED_TEXT_MAX, path, root,
			     strerror(errno));
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
		UROM_LOG_ERR("MEM_MAP of %.*s refused: the file is owned by uid %lu; accepted: uid %lu (the worker) "
			     "and uid %lu (%s)",
			     LOGGED_TEXT_MAX, path, (unsigned long)owner, (unsigned long)owners->worker_uid,
			     (unsigned long)owners->principal_uid, OWNER_UID_VARIABLE);
	else
		UROM_LOG_ERR("MEM_MAP of %.*s refused: the file is owned by uid %lu; accepted: uid %lu (the worker; %s "
			     "is not set)",
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

/* Unregisters, unmaps and closes a region; the caller has taken it off its list (or never put it on). */
static void region_free(struct sandbox *sb, struct region *region)
{
	if (region->memh != NULL)
		ucp_mem_unmap(sb->context, region->memh);
	munmap(region->base, region->length);
	close(region->fd);
	free(region);
}

static urom_status_t mem_map(struct sandbox *sb, const struct reply_to *reply, const uint8_t *cmd, uint64_t len)
{
	uint64_t length, path_len;
	struct region *region;
	char *path;
	ucp_mem_map_params_t params;
	ucs_status_t registered;
	void *base;
	int fd;
	urom_status_t status;

	if (len < MEM_MAP_FIXED_BYTES) {
		UROM_LOG_ERR("MEM_MAP of %llu bytes is shorter than its fixed part (%d bytes)", (unsigned long long)len,
			     MEM_MAP_FIXED_BYTES);
		return UROM_ERR_INVALID_VALUE;
	}
	length = urom_load_le64(cmd + 16);
	path_len = urom_load_le64(cmd + 24);
	if (path_len != len - MEM_MAP_FIXED_BYTES || path_len == 0 ||
	    memchr(cmd + MEM_MAP_FIXED_BYTES, '\0', path_len) != NULL) {
		UROM_LOG_ERR("MEM_MAP path_len %llu does not match the %llu path bytes that follow (or the path holds "
			     "a NUL)",
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
		UROM_LOG_ERR("MEM_MAP cannot map %llu bytes of %.*s: %s", (unsigned long long)length, LOGGED_TEXT_MAX,
			     path, strerror(errno));
		close(fd);
		free(path);
		return UROM_ERR_OPERATING_SYSTEM;
	}
	region = calloc(1, sizeof(*region));
	if (region == NULL) {
		munmap(base, (size_t)length);
		close(fd);
		free(path);
		return UROM_ERR_NO_MEMORY;
	}
	region->id = sb->next_memh_id++;
	region->fd = fd;
	region->base = base;
	region->length = (size_t)length;
	memset(&params, 0, sizeof(params));
	params.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH;
	params.address = base;
	params.length = (size_t)length;
	registered = ucp_mem_map(sb->context, &params, &region->memh);
	if (registered != UCS_OK) {
		UROM_LOG_ERR("MEM_MAP cannot register %llu bytes of %.*s with UCP: %s", (unsigned long long)length,
			     LOGGED_TEXT_MAX, path, ucs_status_string(registered));
		region->memh = NULL;
		region_free(sb, region);
		free(path);
		return UROM_ERR_OPERATING_SYSTEM;
	}
	free(path);
	status = notify_mem_map(sb, reply, region->id);
	if (status != UROM_SUCCESS) {
		region_free(sb, region);
		return status;
	}
	urom_list_add_tail(&sb->regions, &region->link);
	return UROM_SUCCESS;
}

/* ---- peers ---- */

static void send_op_free(struct send_op *send)
{
	free(send->owned);
	free(send);
}

/*
 * UCX's error callback for one peer's endpoint (error mode PEER): the peer
 * died or cannot be reached. Its pending sends are answered CONNECTION_RESET
 * now (their requests complete later, with an error, and answer nothing
 * more); the peer is forgotten, so the next TAG_SEND to its domain id looks
 * its address up again; progress() closes the endpoint.
 */
static void peer_failed(void *arg, ucp_ep_h ep, ucs_status_t status)
{
	struct peer *peer = arg;
	struct sandbox *sb = peer->sb;

	(void)ep;
	if (sb->closing || peer->closing)
		return;
	UROM_LOG_WARN(
		"peer %llu failed (%s): its pending sends fail with CONNECTION_RESET and the next send connects again",
		(unsigned long long)peer->dest, ucs_status_string(status));
	for (urom_list_link_t *it = sb->sends.next; it != &sb->sends; it = it->next) {
		struct send_op *send = (struct send_op *)it;

		if (send->peer == peer && !send->answered) {
			notify_tag_send(sb, &send->reply, UROM_ERR_CONNECTION_RESET);
			send->answered = 1;
			send->peer = NULL;
		}
	}
	peer->closing = 1;
	urom_list_del(&peer->link);
	urom_list_add_tail(&sb->failed_peers, &peer->link);
}

/* Starts a forced close of a peer's endpoint; the request (if any) is kept in peer->close_request. */
static void peer_start_close(struct sandbox *sb, struct peer *peer)
{
	ucp_request_param_t param = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS, .flags = UCP_EP_CLOSE_FLAG_FORCE};
	void *request = ucp_ep_close_nbx(peer->ep, &param);

	(void)sb;
	peer->closing = 1;
	if (UCS_PTR_IS_PTR(request))
		peer->close_request = request;
	else if (UCS_PTR_IS_ERR(request))
		UROM_LOG_DBG("closing the endpoint of peer %llu: %s", (unsigned long long)peer->dest,
			     ucs_status_string(UCS_PTR_STATUS(request)));
	peer->ep = NULL;
}

/* Frees the failed peers whose endpoints are closed, starting the closes not yet started. */
static void reap_failed_peers(struct sandbox *sb)
{
	urom_list_link_t *it = sb->failed_peers.next;

	while (it != &sb->failed_peers) {
		struct peer *peer = (struct peer *)it;

		it = it->next;
		if (peer->ep != NULL)
			peer_start_close(sb, peer);
		if (peer->close_request != NULL) {
			if (ucp_request_check_status(peer->close_request) == UCS_INPROGRESS)
				continue;
			ucp_request_free(peer->close_request);
		}
		urom_list_del(&peer->link);
		free(peer);
	}
}

/*
 * Whether `addr` may be handed to ucp_ep_create. UCX trusts the address it
 * is given and aborts the process on one of a format it does not know (a
 * `unix:` text, say), so the plugin checks what it can without knowing the
 * length: the low 4 bits of the first byte hold the address format's version,
 * and UCX 1.13 reads versions 0 and 1 (its V1 and V2) only.
 */
static int ucp_address_plausible(const void *addr)
{
	return (*(const uint8_t *)addr & 0x0f) <= 1;
}

static struct peer *find_peer(struct sandbox *sb, uint64_t dest)
{
	for (urom_list_link_t *it = sb->peers.next; it != &sb->peers; it = it->next) {
		struct peer *peer = (struct peer *)it;

		if (peer->dest == dest)
			return peer;
	}
	return NULL;
}

/*
 * The endpoint to `dest`: the kept one, else one created from the domain's
 * address for it. NOT_FOUND when the domain has none, NOT_CONNECTED when UCP
 * cannot create an endpoint to it.
 */
static urom_status_t connect_peer(struct sandbox *sb, uint64_t dest, struct peer **found)
{
	struct peer *peer = find_peer(sb, dest);
	ucp_ep_params_t params;
	void *addr = NULL;
	urom_status_t status;
	ucs_status_t created;

	if (peer != NULL) {
		*found = peer;
		return UROM_SUCCESS;
	}
	if (sb->ctx->domain_iface.addr_lookup == NULL) {
		UROM_LOG_ERR("no address for peer %llu: the plugin is in no domain", (unsigned long long)dest);
		return UROM_ERR_NOT_FOUND;
	}
	status = sb->ctx->domain_iface.addr_lookup(sb->ctx, dest, &addr);
	if (status != UROM_SUCCESS || addr == NULL) {
		UROM_LOG_ERR("no address for peer %llu (look-up status %d)", (unsigned long long)dest, (int)status);
		return status == UROM_SUCCESS ? UROM_ERR_NOT_FOUND : status;
	}
	if (!ucp_address_plausible(addr)) {
		UROM_LOG_ERR("the address of peer %llu is not a UCP worker address (header byte 0x%02x)",
			     (unsigned long long)dest, *(const uint8_t *)addr);
		return UROM_ERR_INVALID_VALUE;
	}
	peer = calloc(1, sizeof(*peer));
	if (peer == NULL) {
		UROM_LOG_ERR("cannot allocate the peer %llu", (unsigned long long)dest);
		return UROM_ERR_NO_MEMORY;
	}
	peer->sb = sb;
	peer->dest = dest;
	memset(&params, 0, sizeof(params));
	params.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
			    UCP_EP_PARAM_FIELD_ERR_HANDLER;
	params.address = addr;
	params.err_mode = UCP_ERR_HANDLING_MODE_PEER;
	params.err_handler.cb = peer_failed;
	params.err_handler.arg = peer;
	created = ucp_ep_create(sb->worker, &params, &peer->ep);
	if (created != UCS_OK) {
		UROM_LOG_ERR("cannot create a UCP endpoint to peer %llu: %s", (unsigned long long)dest,
			     ucs_status_string(created));
		free(peer);
		return UROM_ERR_NOT_CONNECTED;
	}
	urom_list_add_tail(&sb->peers, &peer->link);
	*found = peer;
	return UROM_SUCCESS;
}

/* ---- sends ---- */

/* A send's request completed: answered with its status unless its peer's failure answered it already. */
static void send_done(void *request, ucs_status_t status, void *user_data)
{
	struct send_op *send = user_data;
	struct sandbox *sb = send->sb;

	ucp_request_free(request);
	urom_list_del(&send->link);
	if (!sb->closing && !send->answered) {
		if (status != UCS_OK)
			UROM_LOG_WARN("TAG_SEND to peer %llu failed: %s",
				      send->peer == NULL ? 0ULL : (unsigned long long)send->peer->dest,
				      ucs_status_string(status));
		notify_tag_send(sb, &send->reply, status == UCS_OK ? UROM_SUCCESS : UROM_ERR_CONNECTION_RESET);
	}
	send_op_free(send);
}

/*
 * Posts the send of `count` bytes at `data` (kept alive by `owned`, which the
 * plugin now owns) to `peer`. A send UCX completes at once is answered now.
 */
static urom_status_t post_send(struct sandbox *sb, const struct reply_to *reply, struct peer *peer, const void *data,
			       uint64_t count, uint64_t tag, void *owned)
{
	struct send_op *send = calloc(1, sizeof(*send));
	ucp_request_param_t param;
	void *request;

	if (send == NULL) {
		UROM_LOG_ERR("cannot allocate a TAG_SEND of %llu bytes", (unsigned long long)count);
		free(owned);
		return UROM_ERR_NO_MEMORY;
	}
	send->sb = sb;
	send->reply = *reply;
	send->peer = peer;
	send->owned = owned;
	memset(&param, 0, sizeof(param));
	param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_MEMORY_TYPE;
	param.cb.send = send_done;
	param.user_data = send;
	param.memory_type = UCS_MEMORY_TYPE_HOST;
	request = ucp_tag_send_nbx(peer->ep, data, (size_t)count, tag, &param);
	if (UCS_PTR_IS_PTR(request)) {
		urom_list_add_tail(&sb->sends, &send->link);
		return UROM_SUCCESS;
	}
	send_op_free(send);
	if (UCS_PTR_IS_ERR(request)) {
		UROM_LOG_ERR("TAG_SEND to peer %llu failed at once: %s", (unsigned long long)peer->dest,
			     ucs_status_string(UCS_PTR_STATUS(request)));
		peer_failed(peer, peer->ep, UCS_PTR_STATUS(request));
		return UROM_ERR_CONNECTION_RESET;
	}
	notify_tag_send(sb, reply, UROM_SUCCESS);
	return UROM_SUCCESS;
}

/* ---- receives ---- */

static void recv_op_free(struct recv_op *recv)
{
	free(recv->answer);
	free(recv->bounce);
	free(recv);
}

/*
 * Answers a receive whose message arrived (status UCS_OK), was longer than
 * the receive (MESSAGE_TRUNCATED: TOO_BIG) or failed; then frees it. A region
 * receive's bytes go into the file; one that cannot be written (the file
 * shrank) is answered IO_FAILED.
 */
static void finish_receive(struct sandbox *sb, struct recv_op *recv, ucs_status_t status,
			   const ucp_tag_recv_info_t *info)
{
	uint64_t sender_tag = info == NULL ? 0 : info->sender_tag;
	uint64_t length = info == NULL ? 0 : info->length;
	urom_status_t answer = UROM_SUCCESS;

	if (status == UCS_ERR_MESSAGE_TRUNCATED) {
		UROM_LOG_DBG("message with tag 0x%llx is longer than the receive's %llu bytes",
			     (unsigned long long)sender_tag, (unsigned long long)recv->count);
		answer = UROM_ERR_TOO_BIG;
	} else if (status != UCS_OK) {
		UROM_LOG_ERR("TAG_RECV failed: %s", ucs_status_string(status));
		answer = UROM_ERR_CONNECTION_RESET;
		sender_tag = 0;
	} else if (recv->region != NULL) {
		int error = sandbox_write_at(recv->region->fd, recv->region->base, recv->buffer, recv->bounce,
					     (size_t)length);

		if (error != 0) {
			log_region_failure("TAG_RECV into", recv->region, recv->buffer, length, error);
			answer = UROM_ERR_IO_FAILED;
		}
	}
	fill_tag_recv(recv->answer, recv, length, sender_tag, answer);
	urom_list_add_tail(&sb->notifications, &recv->answer->entry);
	recv->answer = NULL;
	recv_op_free(recv);
}

/* `info` lies inside the request: it is copied before the request is freed. */
static void recv_done(void *request, ucs_status_t status, const ucp_tag_recv_info_t *info, void *user_data)
{
	struct recv_op *recv = user_data;
	struct sandbox *sb = recv->sb;
	ucp_tag_recv_info_t copy = *info;

	if (recv == sb->posting)
		sb->posting_completed = 1;
	ucp_request_free(request);
	urom_list_del(&recv->link);
	if (sb->closing)
		recv_op_free(recv);
	else
		finish_receive(sb, recv, status, &copy);
}

/*
 * Posts `recv` (its answer and bounce already allocated). The receive asks
 * UCX never to complete at once (NO_IMM_CMPL): UCX before 1.16 does not fill
 * recv_info when a receive completes at once, so neither the sender's tag nor
 * the length would be known. A queued message that matches now runs
 * recv_done inside ucp_tag_recv_nbx instead, which answers the receive and
 * frees it; sb->posting tells the two apart.
 */
static urom_status_t post_receive(struct sandbox *sb, struct recv_op *recv, uint64_t tag, uint64_t tag_mask)
{
	uint64_t capacity = recv->count < MAX_MESSAGE ? recv->count : MAX_MESSAGE;
	void *buffer = recv->region == NULL ? recv->answer->worker_notif.plugin_notif + NOTIF_TAG_RECV_BYTES
					    : (void *)recv->bounce;
	ucp_request_param_t param;
	void *request;
	int completed;

	memset(&param, 0, sizeof(param));
	param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_MEMORY_TYPE |
			     UCP_OP_ATTR_FLAG_NO_IMM_CMPL;
	param.cb.recv = recv_done;
	param.user_data = recv;
	param.memory_type = UCS_MEMORY_TYPE_HOST;
	urom_list_add_tail(&sb->receives, &recv->link);
	sb->posting = recv;
	sb->posting_completed = 0;
	request = ucp_tag_recv_nbx(sb->worker, buffer, (size_t)capacity, tag, tag_mask, &param);
	completed = sb->posting_completed;
	sb->posting = NULL;
	if (completed)
		return UROM_SUCCESS; /* answered and freed by recv_done */
	if (!UCS_PTR_IS_PTR(request)) {
		UROM_LOG_ERR("TAG_RECV cannot be posted: %s", ucs_status_string(UCS_PTR_STATUS(request)));
		urom_list_del(&recv->link);
		recv_op_free(recv);
		return UROM_ERR_DRIVER;
	}
	recv->request = request;
	return UROM_SUCCESS;
}

/* ---- TAG_SEND / TAG_RECV ---- */

/*
 * `desc` is the command's descriptor: an inline send keeps it (*kept set) as
 * the buffer UCX sends from, until the send completes. The fixed part is ours
 * or DOCA's, told by the length (inline: len - count); reply->doca_layout is
 * set for DOCA's.
 */
static urom_status_t tag_send(struct sandbox *sb, struct reply_to *reply, struct urom_worker_cmd_desc *desc, int *kept)
{
	const uint8_t *cmd = desc->worker_cmd.plugin_cmd;
	uint64_t len = desc->worker_cmd.len;
	uint64_t dest, buffer, count, tag, memh_id, fixed;
	struct region *region = NULL;
	struct peer *peer;
	uint8_t *bounce;
	urom_status_t status;
	int error;

	if (len < TAG_SEND_FIXED_BYTES) {
		UROM_LOG_ERR("TAG_SEND of %llu bytes is shorter than its fixed part (%d bytes)",
			     (unsigned long long)len, TAG_SEND_FIXED_BYTES);
		return UROM_ERR_INVALID_VALUE;
	}
	dest = urom_load_le64(cmd + 16);
	buffer = urom_load_le64(cmd + 24);
	count = urom_load_le64(cmd + 32);
	tag = urom_load_le64(cmd + 40);
	memh_id = urom_load_le64(cmd + 48);
	if (memh_id == 0) {
		if (count > len || !tag_fixed_size(len - count)) {
			UROM_LOG_ERR("TAG_SEND count %llu does not match the %llu bytes after its first %d (the fixed "
				     "part is %d, %d or %d bytes, then count data bytes)",
				     (unsigned long long)count, (unsigned long long)(len - TAG_SEND_FIXED_BYTES),
				     TAG_SEND_FIXED_BYTES, TAG_SEND_FIXED_BYTES, DOCA_FIXED_BYTES_UCX_1_13,
				     DOCA_FIXED_BYTES_UCX_1_14);
			return UROM_ERR_INVALID_VALUE;
		}
		fixed = len - count;
	} else {
		if (!tag_fixed_size(len)) {
			UROM_LOG_ERR("TAG_SEND of %llu bytes through memh_id %llu: it is exactly its fixed part (%d, "
				     "%d or %d bytes)",
				     (unsigned long long)len, (unsigned long long)memh_id, TAG_SEND_FIXED_BYTES,
				     DOCA_FIXED_BYTES_UCX_1_13, DOCA_FIXED_BYTES_UCX_1_14);
			return UROM_ERR_INVALID_VALUE;
		}
		fixed = len;
		status = resolve_range(sb, memh_id, buffer, count, &region);
		if (status != UROM_SUCCESS)
			return status;
	}
	if (count > MAX_MESSAGE) {
		UROM_LOG_ERR("TAG_SEND of %llu bytes exceeds the message limit of %llu bytes",
			     (unsigned long long)count, (unsigned long long)MAX_MESSAGE);
		return UROM_ERR_INVALID_VALUE;
	}
	reply->doca_layout = fixed != TAG_SEND_FIXED_BYTES;
	status = connect_peer(sb, dest, &peer);
	if (status != UROM_SUCCESS)
		return status;
	if (region == NULL) {
		*kept = 1;
		return post_send(sb, reply, peer, cmd + fixed, count, tag, desc);
	}
	bounce = malloc(count > 0 ? (size_t)count : 1);
	if (bounce == NULL) {
		UROM_LOG_ERR("cannot allocate %llu bytes for a TAG_SEND from memh_id %llu", (unsigned long long)count,
			     (unsigned long long)memh_id);
		return UROM_ERR_NO_MEMORY;
	}
	error = sandbox_read_at(region->fd, buffer, bounce, (size_t)count);
	if (error != 0) {
		log_region_failure("TAG_SEND from", region, buffer, count, error);
		free(bounce);
		return UROM_ERR_IO_FAILED;
	}
	return post_send(sb, reply, peer, bounce, count, tag, bounce);
}

/* A TAG_RECV is exactly its fixed part, ours or DOCA's; reply->doca_layout is set for DOCA's. */
static urom_status_t tag_recv(struct sandbox *sb, struct reply_to *reply, const uint8_t *cmd, uint64_t len)
{
	struct recv_op *recv;
	struct region *region = NULL;
	uint64_t memh_id, capacity, tag, tag_mask;

	if (!tag_fixed_size(len)) {
		UROM_LOG_ERR("TAG_RECV of %llu bytes: a TAG_RECV is exactly %d, %d or %d bytes",
			     (unsigned long long)len, TAG_RECV_FIXED_BYTES, DOCA_FIXED_BYTES_UCX_1_13,
			     DOCA_FIXED_BYTES_UCX_1_14);
		return UROM_ERR_INVALID_VALUE;
	}
	reply->doca_layout = len != TAG_RECV_FIXED_BYTES;
	recv = calloc(1, sizeof(*recv));
	if (recv == NULL)
		return UROM_ERR_NO_MEMORY;
	recv->sb = sb;
	recv->reply = *reply;
	recv->buffer = urom_load_le64(cmd + 16);
	recv->count = urom_load_le64(cmd + 24);
	tag = urom_load_le64(cmd + 32);
	tag_mask = urom_load_le64(cmd + 40);
	memh_id = urom_load_le64(cmd + 48);
	if (memh_id != 0) {
		urom_status_t status = resolve_range(sb, memh_id, recv->buffer, recv->count, &region);

		if (status != UROM_SUCCESS) {
			free(recv);
			return status;
		}
	}
	recv->region = region;
	capacity = recv->count < MAX_MESSAGE ? recv->count : MAX_MESSAGE;
	recv->answer =
		notification_new(reply, UROM_SUCCESS, NOTIF_TAG_RECV_BYTES + (region == NULL ? (size_t)capacity : 0));
	recv->bounce = region == NULL ? NULL : malloc(capacity > 0 ? (size_t)capacity : 1);
	if (recv->answer == NULL || (region != NULL && recv->bounce == NULL)) {
		UROM_LOG_ERR("cannot allocate the buffers of a TAG_RECV of %llu bytes", (unsigned long long)capacity);
		recv_op_free(recv);
		return UROM_ERR_NO_MEMORY;
	}
	return post_receive(sb, recv, tag, tag_mask);
}

/* ---- BOUNCE ---- */

static void bounce_op_free(struct bounce_op *op)
{
	free(op->send_buffer);
	free(op->recv_buffer);
	free(op);
}

/* Frees an abandoned operation once UCX holds none of its requests. */
static void bounce_release_if_abandoned(struct bounce_op *op)
{
	if (op->abandoned && !op->send_pending && !op->recv_pending) {
		urom_list_del(&op->link);
		bounce_op_free(op);
	}
}

static void bounce_send_done(void *request, ucs_status_t status, void *user_data)
{
	struct bounce_op *op = user_data;

	ucp_request_free(request);
	op->send_pending = 0;
	op->send_status = status;
	bounce_release_if_abandoned(op);
}

static void bounce_recv_done(void *request, ucs_status_t status, const ucp_tag_recv_info_t *info, void *user_data)
{
	struct bounce_op *op = user_data;

	(void)info;
	ucp_request_free(request);
	op->recv_pending = 0;
	op->recv_request = NULL;
	op->recv_status = status;
	bounce_release_if_abandoned(op);
}

/*
 * Posts the receive of one message with exactly the bounce's tag (full mask:
 * it takes no message of another tag). NO_IMM_CMPL, as for TAG_RECV: the
 * callback always runs, inside ucp_tag_recv_nbx when a message is queued.
 */
static ucs_status_t bounce_post_recv(struct bounce_op *op)
{
	ucp_request_param_t param;
	void *request;

	memset(&param, 0, sizeof(param));
	param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_MEMORY_TYPE |
			     UCP_OP_ATTR_FLAG_NO_IMM_CMPL;
	param.cb.recv = bounce_recv_done;
	param.user_data = op;
	param.memory_type = UCS_MEMORY_TYPE_HOST;
	op->recv_pending = 1;
	op->recv_status = UCS_OK;
	request = ucp_tag_recv_nbx(op->sb->worker, op->recv_buffer, (size_t)op->count, op->tag, UINT64_MAX, &param);
	if (UCS_PTR_IS_ERR(request)) {
		op->recv_pending = 0;
		return UCS_PTR_STATUS(request);
	}
	if (op->recv_pending)
		op->recv_request = request;
	return UCS_OK;
}

/* Posts the send of one message from `data`; a send UCX completes at once is done now. */
static ucs_status_t bounce_post_send(struct bounce_op *op, struct peer *peer, const void *data)
{
	ucp_request_param_t param;
	void *request;

	memset(&param, 0, sizeof(param));
	param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_MEMORY_TYPE;
	param.cb.send = bounce_send_done;
	param.user_data = op;
	param.memory_type = UCS_MEMORY_TYPE_HOST;
	op->send_status = UCS_OK;
	request = ucp_tag_send_nbx(peer->ep, data, (size_t)op->count, op->tag, &param);
	if (UCS_PTR_IS_PTR(request)) {
		op->send_pending = 1;
		return UCS_OK;
	}
	return UCS_PTR_STATUS(request);
}

/*
 * Progresses UCX until the operation's posted requests complete, the peer
 * fails (CONNECTION_RESET), or the deadline passes (TIME_OUT).
 */
static urom_status_t bounce_wait(struct bounce_op *op, const struct peer *peer, int64_t deadline)
{
	unsigned idle = 0;

	while (op->send_pending || op->recv_pending) {
		if (peer->closing)
			return UROM_ERR_CONNECTION_RESET;
		if (ucp_worker_progress(op->sb->worker) != 0)
			continue;
		if (++idle % BOUNCE_IDLE_POLLS_PER_CLOCK == 0 && monotonic_ns() - deadline > 0)
			return UROM_ERR_TIME_OUT;
	}
	if (peer->closing)
		return UROM_ERR_CONNECTION_RESET;
	return UROM_SUCCESS;
}

/* The status of a finished round's requests: a longer message is TOO_BIG, any other failure CONNECTION_RESET. */
static urom_status_t bounce_round_status(const struct bounce_op *op)
{
	ucs_status_t failed = op->recv_status != UCS_OK ? op->recv_status : op->send_status;

	if (failed == UCS_OK)
		return UROM_SUCCESS;
	UROM_LOG_ERR("BOUNCE with peer %llu, tag 0x%llx: %s %s", (unsigned long long)op->dest,
		     (unsigned long long)op->tag,
		     op->recv_status != UCS_OK ? "a receive failed:" : "a send failed:", ucs_status_string(failed));
	return failed == UCS_ERR_MESSAGE_TRUNCATED ? UROM_ERR_TOO_BIG : UROM_ERR_CONNECTION_RESET;
}

/* One round: the initiator sends and waits for the answer; the responder waits for a message and sends it back. */
static urom_status_t bounce_round(struct bounce_op *op, struct peer *peer, int64_t deadline)
{
	ucs_status_t posted = bounce_post_recv(op);
	urom_status_t status;

	if (posted != UCS_OK) {
		UROM_LOG_ERR("BOUNCE cannot post its receive: %s", ucs_status_string(posted));
		return UROM_ERR_DRIVER;
	}
	if (op->role == BOUNCE_INITIATOR) {
		posted = bounce_post_send(op, peer, op->send_buffer);
	} else {
		status = bounce_wait(op, peer, deadline);
		if (status != UROM_SUCCESS)
			return status;
		status = bounce_round_status(op);
		if (status != UROM_SUCCESS)
			return status;
		posted = bounce_post_send(op, peer, op->recv_buffer);
	}
	if (posted != UCS_OK) {
		UROM_LOG_ERR("BOUNCE send to peer %llu failed at once: %s", (unsigned long long)op->dest,
			     ucs_status_string(posted));
		peer_failed(peer, peer->ep, posted);
		return UROM_ERR_CONNECTION_RESET;
	}
	status = bounce_wait(op, peer, deadline);
	return status != UROM_SUCCESS ? status : bounce_round_status(op);
}

static void notify_bounce(struct sandbox *sb, const struct reply_to *reply, uint64_t elapsed_ns, uint64_t done,
			  urom_status_t status)
{
	struct urom_worker_notif_desc *desc = notification_new(reply, status, NOTIF_BOUNCE_BYTES);

	if (desc == NULL)
		return;
	urom_store_le64(desc->worker_notif.plugin_notif, CMD_BOUNCE);
	urom_store_le64(desc->worker_notif.plugin_notif + 8, reply->context);
	urom_store_le64(desc->worker_notif.plugin_notif + 16, elapsed_ns);
	urom_store_le64(desc->worker_notif.plugin_notif + 24, done);
	urom_store_le32(desc->worker_notif.plugin_notif + 32, (uint32_t)status);
	urom_store_le32(desc->worker_notif.plugin_notif + 36, 0);
	urom_list_add_tail(&sb->notifications, &desc->entry);
}

/*
 * Runs a BOUNCE to its end on the calling thread: `iterations` rounds, or
 * until a round fails or sb->bounce_timeout_ns has passed since the start.
 * Answers it (elapsed time, rounds done, status) and frees it, or leaves it
 * on sb->abandoned while one of its requests is outstanding.
 */
static void run_bounce(struct sandbox *sb, struct bounce_op *op)
{
	int64_t start = monotonic_ns();
	int64_t deadline = start + sb->bounce_timeout_ns;
	struct peer *peer;
	urom_status_t status = connect_peer(sb, op->dest, &peer);
	uint64_t done = 0;

	while (status == UROM_SUCCESS && done < op->iterations) {
		status = bounce_round(op, peer, deadline);
		if (status == UROM_SUCCESS)
			done++;
	}
	if (status == UROM_ERR_TIME_OUT)
		UROM_LOG_ERR("BOUNCE with peer %llu, tag 0x%llx, timed out after %lld ms with %llu of %llu rounds done",
			     (unsigned long long)op->dest, (unsigned long long)op->tag,
			     (long long)(sb->bounce_timeout_ns / 1000000), (unsigned long long)done,
			     (unsigned long long)op->iterations);
	notify_bounce(sb, &op->reply, (uint64_t)(monotonic_ns() - start), done, status);
	if (op->recv_pending && op->recv_request != NULL)
		ucp_request_cancel(sb->worker, op->recv_request);
	if (op->send_pending || op->recv_pending) {
		op->abandoned = 1;
		urom_list_add_tail(&sb->abandoned, &op->link);
	} else {
		bounce_op_free(op);
	}
}

/* Checks a BOUNCE and connects to its peer; the next progress() runs it. */
static urom_status_t bounce(struct sandbox *sb, const struct reply_to *reply, const uint8_t *cmd, uint64_t len)
{
	struct bounce_op *op;
	struct peer *peer;
	uint64_t dest, count, tag, iterations, role;
	urom_status_t status;

	if (len != BOUNCE_BYTES) {
		UROM_LOG_ERR("BOUNCE of %llu bytes: a BOUNCE is exactly %d bytes", (unsigned long long)len,
			     BOUNCE_BYTES);
		return UROM_ERR_INVALID_VALUE;
	}
	dest = urom_load_le64(cmd + 16);
	count = urom_load_le64(cmd + 24);
	tag = urom_load_le64(cmd + 32);
	iterations = urom_load_le64(cmd + 40);
	role = urom_load_le64(cmd + 48);
	if (count > BOUNCE_MAX_COUNT || iterations == 0 || iterations > BOUNCE_MAX_ITERATIONS ||
	    (role != BOUNCE_INITIATOR && role != BOUNCE_RESPONDER)) {
		UROM_LOG_ERR("BOUNCE of count %llu, iterations %llu, role %llu refused: count 0 to %d, iterations 1 to "
			     "%d, role 0 (initiator) or 1 (responder)",
			     (unsigned long long)count, (unsigned long long)iterations, (unsigned long long)role,
			     BOUNCE_MAX_COUNT, BOUNCE_MAX_ITERATIONS);
		return UROM_ERR_INVALID_VALUE;
	}
	status = connect_peer(sb, dest, &peer);
	if (status != UROM_SUCCESS)
		return status;
	op = calloc(1, sizeof(*op));
	if (op != NULL) {
		op->send_buffer = calloc(1, count > 0 ? (size_t)count : 1);
		op->recv_buffer = malloc(count > 0 ? (size_t)count : 1);
	}
	if (op == NULL || op->send_buffer == NULL || op->recv_buffer == NULL) {
		UROM_LOG_ERR("cannot allocate a BOUNCE of %llu bytes", (unsigned long long)count);
		if (op != NULL)
			bounce_op_free(op);
		return UROM_ERR_NO_MEMORY;
	}
	op->sb = sb;
	op->reply = *reply;
	op->dest = dest;
	op->count = count;
	op->tag = tag;
	op->iterations = iterations;
	op->role = role;
	urom_list_add_tail(&sb->bounces, &op->link);
	return UROM_SUCCESS;
}

/* Runs one command; *kept is set when the plugin keeps the descriptor (it frees it later). */
static urom_status_t run_command(struct sandbox *sb, struct urom_worker_cmd_desc *desc, int *kept)
{
	const uint8_t *cmd = desc->worker_cmd.plugin_cmd;
	uint64_t len = desc->worker_cmd.len;
	struct reply_to reply;
	uint64_t type;

	if (len < 8) {
		UROM_LOG_ERR("command of %llu bytes has no type", (unsigned long long)len);
		return UROM_ERR_INVALID_VALUE;
	}
	type = urom_load_le64(cmd);
	if (type != CMD_MEM_MAP && type != CMD_TAG_SEND && type != CMD_TAG_RECV && type != CMD_BOUNCE) {
		UROM_LOG_ERR("command type %llu is not supported (MEM_MAP 0, TAG_SEND 1, TAG_RECV 2, BOUNCE 3)",
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
	reply.context = urom_load_le64(cmd + 8);
	reply.doca_layout = 0;
	switch (type) {
	case CMD_MEM_MAP:
		return mem_map(sb, &reply, cmd, len);
	case CMD_TAG_SEND:
		return tag_send(sb, &reply, desc, kept);
	case CMD_BOUNCE:
		return bounce(sb, &reply, cmd, len);
	default:
		return tag_recv(sb, &reply, cmd, len);
	}
}

/* ---- entry points ---- */

/*
 * Ends everything: posted receives are cancelled, every endpoint is closed by
 * force (its pending sends are dropped, unanswered), the closes are given up
 * to CLOSE_DEADLINE_NS to complete, then the UCP worker and context go.
 */
static void sandbox_free(struct sandbox *sb)
{
	urom_list_link_t *it;

	sb->closing = 1;
	if (sb->worker != NULL) {
		int64_t deadline;

		it = sb->receives.next;
		while (it != &sb->receives) {
			struct recv_op *recv = (struct recv_op *)it;

			it = it->next;
			ucp_request_cancel(sb->worker, recv->request);
		}
		for (it = sb->abandoned.next; it != &sb->abandoned; it = it->next) {
			struct bounce_op *op = (struct bounce_op *)it;

			if (op->recv_request != NULL)
				ucp_request_cancel(sb->worker, op->recv_request);
		}
		while (!urom_list_is_empty(&sb->peers)) {
			struct peer *peer = (struct peer *)sb->peers.next;

			urom_list_del(&peer->link);
			urom_list_add_tail(&sb->failed_peers, &peer->link);
		}
		deadline = monotonic_ns() + CLOSE_DEADLINE_NS;
		for (;;) {
			reap_failed_peers(sb);
			if (urom_list_is_empty(&sb->failed_peers) || monotonic_ns() > deadline)
				break;
			ucp_worker_progress(sb->worker);
		}
		if (!urom_list_is_empty(&sb->failed_peers))
			UROM_LOG_WARN("endpoints still closing after %lld ms: the UCP worker is destroyed anyway",
				      CLOSE_DEADLINE_NS / 1000000);
		if (sb->address != NULL)
			ucp_worker_release_address(sb->worker, sb->address);
		ucp_worker_destroy(sb->worker);
	}
	/* UCX calls nothing back from here on: what is left is only memory. */
	while (!urom_list_is_empty(&sb->regions)) {
		struct region *region = (struct region *)sb->regions.next;

		urom_list_del(&region->link);
		region_free(sb, region);
	}
	if (sb->context != NULL)
		ucp_cleanup(sb->context);
	while (!urom_list_is_empty(&sb->failed_peers)) {
		struct peer *peer = (struct peer *)sb->failed_peers.next;

		urom_list_del(&peer->link);
		free(peer);
	}
	while (!urom_list_is_empty(&sb->sends)) {
		struct send_op *send = (struct send_op *)sb->sends.next;

		urom_list_del(&send->link);
		send_op_free(send);
	}
	while (!urom_list_is_empty(&sb->receives)) {
		struct recv_op *recv = (struct recv_op *)sb->receives.next;

		urom_list_del(&recv->link);
		recv_op_free(recv);
	}
	while (!urom_list_is_empty(&sb->bounces)) {
		struct bounce_op *op = (struct bounce_op *)sb->bounces.next;

		urom_list_del(&op->link);
		bounce_op_free(op);
	}
	while (!urom_list_is_empty(&sb->abandoned)) {
		struct bounce_op *op = (struct bounce_op *)sb->abandoned.next;

		urom_list_del(&op->link);
		bounce_op_free(op);
	}
	while (!urom_list_is_empty(&sb->notifications)) {
		urom_list_link_t *item = sb->notifications.next;

		urom_list_del(item);
		free(item);
	}
	free(sb);
}

/* Creates the UCP context and worker from UCX's own configuration (its UCX_* environment). */
static urom_status_t open_ucp(struct sandbox *sb)
{
	ucp_config_t *config;
	ucp_params_t params;
	ucp_worker_params_t worker_params;
	ucs_status_t status;

	status = ucp_config_read(NULL, NULL, &config);
	if (status != UCS_OK) {
		UROM_LOG_ERR("cannot read the UCX configuration (UCX_* variables): %s", ucs_status_string(status));
		return UROM_ERR_BAD_CONFIG;
	}
	memset(&params, 0, sizeof(params));
	params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED | UCP_PARAM_FIELD_NAME;
	params.features = UCP_FEATURE_TAG | UCP_FEATURE_WAKEUP;
	params.mt_workers_shared = 0;
	params.name = "urom-sandbox";
	status = ucp_init(&params, config, &sb->context);
	ucp_config_release(config);
	if (status != UCS_OK) {
		sb->context = NULL;
		UROM_LOG_ERR("cannot initialize UCP (features TAG and WAKEUP): %s", ucs_status_string(status));
		return UROM_ERR_INITIALIZATION;
	}
	memset(&worker_params, 0, sizeof(worker_params));
	worker_params.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
	worker_params.thread_mode = UCS_THREAD_MODE_SINGLE;
	status = ucp_worker_create(sb->context, &worker_params, &sb->worker);
	if (status != UCS_OK) {
		sb->worker = NULL;
		UROM_LOG_ERR("cannot create the UCP worker: %s", ucs_status_string(status));
		return UROM_ERR_INITIALIZATION;
	}
	status = ucp_worker_get_address(sb->worker, &sb->address, &sb->address_len);
	if (status != UCS_OK) {
		sb->address = NULL;
		UROM_LOG_ERR("cannot get the UCP worker's address: %s", ucs_status_string(status));
		return UROM_ERR_INITIALIZATION;
	}
	status = ucp_worker_get_efd(sb->worker, &sb->wakeup_fd);
	if (status != UCS_OK) {
		sb->wakeup_fd = -1;
		UROM_LOG_WARN("the UCP worker has no wake-up descriptor (%s): the plugin is polled",
			      ucs_status_string(status));
	}
	return UROM_SUCCESS;
}

/*
 * The bound of one BOUNCE's run in ms from UROM_SANDBOX_BOUNCE_TIMEOUT_MS:
 * unset, BOUNCE_DEFAULT_TIMEOUT_MS; else one or more decimal digits of value 1
 * to BOUNCE_MAX_TIMEOUT_MS. 0 when the text is anything else.
 */
static uint64_t bounce_timeout_ms(const char *text)
{
	uint64_t value = 0;

	if (text == NULL)
		return BOUNCE_DEFAULT_TIMEOUT_MS;
	if (text[0] == '\0')
		return 0;
	for (const char *digit = text; *digit != '\0'; digit++) {
		if (*digit < '0' || *digit > '9')
			return 0;
		value = value * 10 + (uint64_t)(*digit - '0');
		if (value > BOUNCE_MAX_TIMEOUT_MS)
			return 0;
	}
	return value;
}

static urom_status_t sandbox_open(struct urom_worker_ctx *ctx)
{
	const char *owner_uid = getenv(OWNER_UID_VARIABLE);
	const char *bounce_timeout = getenv(BOUNCE_TIMEOUT_VARIABLE);
	uint64_t bounce_ms = bounce_timeout_ms(bounce_timeout);
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
	if (bounce_ms == 0) {
		UROM_LOG_ERR("%s='%.*s' is not a number of milliseconds (1 to %d): the sandbox plugin does not open",
			     BOUNCE_TIMEOUT_VARIABLE, LOGGED_TEXT_MAX, bounce_timeout, BOUNCE_MAX_TIMEOUT_MS);
		return UROM_ERR_BAD_CONFIG;
	}
	sb = calloc(1, sizeof(*sb));
	if (sb == NULL) {
		UROM_LOG_ERR("cannot allocate the sandbox plugin instance");
		return UROM_ERR_NO_MEMORY;
	}
	sb->ctx = ctx;
	sb->wakeup_fd = -1;
	sb->next_memh_id = 1;
	sb->bounce_timeout_ns = (int64_t)bounce_ms * 1000000LL;
	sb->owners = owners;
	urom_list_init(&sb->notifications);
	urom_list_init(&sb->regions);
	urom_list_init(&sb->peers);
	urom_list_init(&sb->failed_peers);
	urom_list_init(&sb->sends);
	urom_list_init(&sb->receives);
	urom_list_init(&sb->bounces);
	urom_list_init(&sb->abandoned);
	status = open_ucp(sb);
	if (status != UROM_SUCCESS) {
		sandbox_free(sb);
		return status;
	}
	ctx->plugin_ctx = sb;
	return UROM_SUCCESS;
}

static void sandbox_close(struct urom_worker_ctx *ctx)
{
	if (ctx == NULL || ctx->plugin_ctx == NULL)
		return;
	sandbox_free(ctx->plugin_ctx);
	ctx->plugin_ctx = NULL;
}

/* The UCP worker address, opaque bytes. */
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
	while (!urom_list_is_empty(cmd_list)) {
		struct urom_worker_cmd_desc *cmd = (struct urom_worker_cmd_desc *)cmd_list->next;
		urom_status_t status;
		int kept = 0;

		urom_list_del(&cmd->entry);
		status = run_command(sb, cmd, &kept);
		if (!kept)
			free(cmd);
		if (status != UROM_SUCCESS)
			return status;
	}
	return UROM_SUCCESS;
}

/*
 * Runs the accepted BOUNCEs to their ends (each holds the thread for its run),
 * then UCX's progress (its callbacks queue the answers), closes failed
 * endpoints, hands out every answer.
 */
static urom_status_t sandbox_progress(struct urom_worker_ctx *ctx, urom_list_link_t *notif_list)
{
	struct sandbox *sb;

	if (ctx == NULL || ctx->plugin_ctx == NULL || notif_list == NULL)
		return UROM_ERR_INVALID_VALUE;
	sb = ctx->plugin_ctx;
	while (!urom_list_is_empty(&sb->bounces)) {
		struct bounce_op *op = (struct bounce_op *)sb->bounces.next;

		urom_list_del(&op->link);
		run_bounce(sb, op);
	}
	for (int round = 0; round < PROGRESS_ROUNDS && ucp_worker_progress(sb->worker) != 0; round++)
		;
	reap_failed_peers(sb);
	if (urom_list_is_empty(&sb->notifications))
		return UROM_ERR_EMPTY;
	urom_list_move_tail(notif_list, &sb->notifications);
	return UROM_SUCCESS;
}

urom_status_t urom_plugin_get_iface(struct urom_plugin_iface *iface)
{
	if (iface == NULL)
		return UROM_ERR_INVALID_VALUE;
	iface->api_version = UROM_PLUGIN_API_VERSION;
	iface->open = sandbox_open;
	iface->close = sandbox_close;
	iface->addr = sandbox_addr;
	iface->worker_cmd = sandbox_worker_cmd;
	iface->progress = sandbox_progress;
	iface->notif_pack = urom_notif_pack_inline;
	return UROM_SUCCESS;
}

urom_status_t urom_plugin_get_version(uint64_t *version)
{
	if (version == NULL)
		return UROM_ERR_INVALID_VALUE;
	*version = SANDBOX_PLUGIN_VERSION;
	return UROM_SUCCESS;
}

/* "ucp-tag": the address is a UCP worker address, read by any plugin that speaks UCP tag matching. */
urom_status_t urom_plugin_get_transport(const char **name)
{
	if (name == NULL)
		return UROM_ERR_INVALID_VALUE;
	*name = SANDBOX_TRANSPORT;
	return UROM_SUCCESS;
}

/* The UCP worker's event descriptor (ucp_worker_get_efd); NOT_SUPPORTED when it has none. */
urom_status_t urom_plugin_get_wakeup_fd(struct urom_worker_ctx *ctx, int *fd)
{
	struct sandbox *sb;

	if (ctx == NULL || ctx->plugin_ctx == NULL || fd == NULL)
		return UROM_ERR_INVALID_VALUE;
	sb = ctx->plugin_ctx;
	if (sb->wakeup_fd < 0)
		return UROM_ERR_NOT_SUPPORTED;
	*fd = sb->wakeup_fd;
	return UROM_SUCCESS;
}

/*
 * AGAIN while answers or BOUNCEs wait for progress() or UCX has unprocessed events
 * (ucp_worker_arm: BUSY); SUCCESS once armed, the descriptor then becomes
 * readable when UCX has something for progress().
 */
urom_status_t urom_plugin_arm_wakeup(struct urom_worker_ctx *ctx)
{
	struct sandbox *sb;
	ucs_status_t status;

	if (ctx == NULL || ctx->plugin_ctx == NULL)
		return UROM_ERR_INVALID_VALUE;
	sb = ctx->plugin_ctx;
	if (sb->wakeup_fd < 0)
		return UROM_ERR_NOT_SUPPORTED;
	if (!urom_list_is_empty(&sb->notifications) || !urom_list_is_empty(&sb->bounces))
		return UROM_ERR_AGAIN;
	status = ucp_worker_arm(sb->worker);
	if (status == UCS_OK)
		return UROM_SUCCESS;
	if (status == UCS_ERR_BUSY)
		return UROM_ERR_AGAIN;
	UROM_LOG_ERR("cannot arm the UCP worker's wake-up: %s", ucs_status_string(status));
	return UROM_ERR_OPERATING_SYSTEM;
}
