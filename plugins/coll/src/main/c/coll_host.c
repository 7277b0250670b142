/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The hosts' memory: the process behind each host connection (from the framework, never from what
 * the host sends), its mappings (/proc/<pid>/maps) and MEM_MAP handles, and cross-memory reads and
 * writes (process_vm_readv, process_vm_writev). A write is preceded by a look at the host's pidfd:
 * readable means the process exited, and nothing is written (HOST_GONE).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include <urom_log.h>

#include "coll.h"

UROM_LOG_SOURCE(UROM::WORKER::COLL);

#define YAMA_HINT \
	"; with Yama (kernel.yama.ptrace_scope 1) the host must allow it: prctl(PR_SET_PTRACER), docs/security.md"

static struct coll_host *host_find(struct coll_ctx *ctx, uint64_t dest_id)
{
	for (urom_list_link_t *it = ctx->hosts.next; it != &ctx->hosts; it = it->next) {
		struct coll_host *host = UROM_LIST_ENTRY(it, struct coll_host, link);

		if (host->dest_id == dest_id)
			return host;
	}
	return NULL;
}

static int maps_open(int32_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%" PRId32 "/maps", pid);
	return open(path, O_RDONLY | O_CLOEXEC);
}

/* The mappings attach_refused() tries before it gives up on finding a byte to read. */
#define PROBE_MAPPINGS 8

/*
 * 0 when cross-memory attach to pid works, else the errno that refused it: reads one byte at the
 * start of the first readable mapping in maps (consumed) that gives one. Reading the maps needs
 * less than attaching does: Yama (kernel.yama.ptrace_scope >= 1) and security modules may refuse
 * process_vm_readv to a process whose maps the worker reads.
 */
static int attach_refused(int32_t pid, int maps)
{
	FILE *lines = fdopen(maps, "r");
	char line[512];
	int tried = 0, refusal = EFAULT;

	if (lines == NULL) {
		close(maps);
		return errno;
	}
	while (tried < PROBE_MAPPINGS && fgets(line, sizeof(line), lines) != NULL) {
		uint64_t start, end;
		char perms[5];
		uint8_t byte;
		struct iovec local = {.iov_base = &byte, .iov_len = 1};
		struct iovec remote;

		if (strchr(line, '\n') == NULL)
			break;
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s", &start, &end, perms) != 3 || perms[0] != 'r' ||
		    start >= end)
			continue;
		tried++;
		remote.iov_base = (void *)(uintptr_t)start;
		remote.iov_len = 1;
		if (process_vm_readv(pid, &local, 1, &remote, 1, 0) == 1) {
			refusal = 0;
			break;
		}
		refusal = errno;
		if (refusal != EFAULT)
			break;
	}
	fclose(lines);
	return refusal;
}

struct coll_host *coll_host_get(struct coll_ctx *ctx, uint64_t dest_id, struct coll_fail *fail)
{
	struct coll_host *host = host_find(ctx, dest_id);
	struct urom_host_process process;
	urom_status_t status;
	int maps, refusal;

	if (host != NULL) {
		host->users++;
		return host;
	}
	coll_fail_set(fail, UROM_ERR_NOT_PERMITTED, UROM_COLL_R_HOST_UNREACHABLE, 0);
	if (urom_worker_host_process == NULL) {
		UROM_LOG_WARN("the worker names no host processes: host connection %" PRIu64 " is unreachable",
			      dest_id);
		return NULL;
	}
	status = urom_worker_host_process(ctx->wctx, dest_id, &process);
	if (status != UROM_SUCCESS) {
		UROM_LOG_WARN("no process for host connection %" PRIu64 " (status %d): unreachable", dest_id,
			      (int)status);
		return NULL;
	}
	maps = maps_open(process.pid);
	if (maps < 0) {
		UROM_LOG_WARN("cannot open the maps of host process %" PRId32 " (%s): unreachable", process.pid,
			      strerror(errno));
		close(process.pidfd);
		return NULL;
	}
	refusal = attach_refused(process.pid, maps);
	if (refusal != 0) {
		UROM_LOG_WARN("cross-memory attach to host process %" PRId32 " refused (%s): unreachable%s",
			      process.pid, strerror(refusal), refusal == EPERM ? YAMA_HINT : "");
		close(process.pidfd);
		return NULL;
	}
	host = calloc(1, sizeof(*host));
	if (host == NULL) {
		close(process.pidfd);
		coll_fail_set(fail, UROM_ERR_NO_MEMORY, UROM_COLL_R_NO_MEMORY, 0);
		return NULL;
	}
	host->dest_id = dest_id;
	host->pid = process.pid;
	host->pidfd = process.pidfd;
	host->users = 1;
	urom_list_add_tail(&ctx->hosts, &host->link);
	return host;
}

void coll_host_put(struct coll_ctx *ctx, struct coll_host *host)
{
	(void)ctx;
	if (host == NULL || --host->users > 0)
		return;
	urom_list_del(&host->link);
	if (host->pidfd >= 0)
		close(host->pidfd);
	free(host);
}

int coll_host_gone(const struct coll_host *host)
{
	struct pollfd pfd = {.fd = host->pidfd, .events = POLLIN};

	if (host->pidfd < 0)
		return 0;
	return poll(&pfd, 1, 0) > 0 && (pfd.revents & (POLLIN | POLLHUP | POLLERR)) != 0;
}

static uint32_t io_reason(int error)
{
	return error == ESRCH ? UROM_COLL_R_HOST_GONE : UROM_COLL_R_NOT_MAPPED;
}

uint32_t coll_host_read(const struct coll_host *host, uint64_t address, void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		struct iovec local = {.iov_base = (uint8_t *)buf + done, .iov_len = len - done};
		struct iovec remote = {.iov_base = (void *)(uintptr_t)(address + done), .iov_len = len - done};
		ssize_t got = process_vm_readv(host->pid, &local, 1, &remote, 1, 0);

		if (got <= 0) {
			if (got < 0 && errno == EINTR)
				continue;
			return got < 0 ? io_reason(errno) : UROM_COLL_R_NOT_MAPPED;
		}
		done += (size_t)got;
	}
	return 0;
}

uint32_t coll_host_write(const struct coll_host *host, uint64_t address, const void *buf, size_t len)
{
	size_t done = 0;

	if (len == 0)
		return 0;
	if (coll_host_gone(host))
		return UROM_COLL_R_HOST_GONE;
	while (done < len) {
		struct iovec local = {.iov_base = (uint8_t *)buf + done, .iov_len = len - done};
		struct iovec remote = {.iov_base = (void *)(uintptr_t)(address + done), .iov_len = len - done};
		ssize_t got = process_vm_writev(host->pid, &local, 1, &remote, 1, 0);

		if (got <= 0) {
			if (got < 0 && errno == EINTR)
				continue;
			return got < 0 ? io_reason(errno) : UROM_COLL_R_NOT_MAPPED;
		}
		done += (size_t)got;
	}
	return 0;
}

/* ---- mappings ---- */

/*
 * Where a range stands against the host's mappings, one pass over /proc/<pid>/maps: the part not yet
 * covered starts at `at'; a range is covered once `at' reaches its end through mappings that allow
 * what it needs, in address order (the kernel lists them so).
 */
struct range_scan {
	uint64_t at;
	uint64_t end;
	uint32_t need;
	uint32_t reason; /* 0 while fine */
	int covered;
};

static void scan_mapping(struct range_scan *scan, uint64_t lo, uint64_t hi, const char *perms)
{
	if (scan->covered || scan->reason != 0 || hi <= scan->at)
		return;
	if (lo > scan->at) {
		/* a hole: the mappings come in address order, no later one covers it */
		scan->reason = UROM_COLL_R_NOT_MAPPED;
		return;
	}
	if ((scan->need & UROM_COLL_ACCESS_READ) && perms[0] != 'r') {
		scan->reason = UROM_COLL_R_NOT_READABLE;
		return;
	}
	if ((scan->need & UROM_COLL_ACCESS_WRITE) && perms[1] != 'w') {
		scan->reason = UROM_COLL_R_NOT_WRITABLE;
		return;
	}
	scan->at = hi;
	if (scan->at >= scan->end)
		scan->covered = 1;
}

static int scans_resolved(const struct range_scan *scans, int count)
{
	for (int i = 0; i < count; i++)
		if (!scans[i].covered && scans[i].reason == 0)
			return 0;
	return 1;
}

/* "lo-hi perms ...": 0 and the fields, or -1 for a line of another shape. */
static int parse_mapping(const char *line, const char *end, uint64_t *lo, uint64_t *hi, const char **perms)
{
	uint64_t *field = lo;

	*lo = 0;
	*hi = 0;
	for (const char *c = line; c < end; c++) {
		int digit = *c >= '0' && *c <= '9' ? *c - '0' : *c >= 'a' && *c <= 'f' ? *c - 'a' + 10 : -1;

		if (digit >= 0) {
			*field = (*field << 4) | (uint64_t)digit;
		} else if (*c == '-' && field == lo) {
			field = hi;
		} else if (*c == ' ' && field == hi && end - c > 3) {
			*perms = c + 1;
			return 0;
		} else {
			return -1;
		}
	}
	return -1;
}

/*
 * Checks the scans against the host's maps, read in large blocks and parsed by hand (a JVM's maps run
 * to thousands of lines, read at every POST without handles), stopping once every scan is decided;
 * 0, or the first failing scan's reason.
 */
static uint32_t maps_check(const struct coll_host *host, struct range_scan *scans, int count)
{
	char buf[65536];
	size_t have = 0;
	int fd = maps_open(host->pid);

	if (fd < 0)
		return errno == ENOENT || errno == ESRCH ? UROM_COLL_R_HOST_GONE : UROM_COLL_R_HOST_UNREACHABLE;
	while (!scans_resolved(scans, count)) {
		ssize_t got = read(fd, buf + have, sizeof(buf) - have);
		size_t start = 0;

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		have += (size_t)got;
		for (size_t i = 0; i < have; i++) {
			uint64_t lo, hi;
			const char *perms;

			if (buf[i] != '\n')
				continue;
			if (parse_mapping(buf + start, buf + i, &lo, &hi, &perms) == 0)
				for (int k = 0; k < count; k++)
					scan_mapping(&scans[k], lo, hi, perms);
			start = i + 1;
		}
		if (start == 0 && have == sizeof(buf))
			start = have; /* a line longer than the buffer: no mapping line is */
		memmove(buf, buf + start, have - start);
		have -= start;
	}
	close(fd);
	for (int i = 0; i < count; i++) {
		if (scans[i].reason != 0)
			return scans[i].reason;
		if (!scans[i].covered)
			return UROM_COLL_R_NOT_MAPPED;
	}
	return 0;
}

static struct coll_memh *memh_find(struct coll_ctx *ctx, uint64_t id)
{
	for (urom_list_link_t *it = ctx->memhs.next; it != &ctx->memhs; it = it->next) {
		struct coll_memh *memh = UROM_LIST_ENTRY(it, struct coll_memh, link);

		if (memh->id == id)
			return memh;
	}
	return NULL;
}

uint32_t coll_host_check(struct coll_ctx *ctx, struct coll_host *host, const struct coll_range *ranges, int count)
{
	struct range_scan scans[4];
	int nscans = 0;

	for (int i = 0; i < count; i++) {
		const struct coll_range *range = &ranges[i];

		if (range->length == 0)
			continue;
		if (range->address + range->length < range->address)
			return UROM_COLL_R_NOT_MAPPED;
		if (range->memh != 0) {
			struct coll_memh *memh = memh_find(ctx, range->memh);

			if (memh == NULL || memh->host != host || range->address < memh->address ||
			    range->address + range->length > memh->address + memh->length ||
			    (memh->access & range->need) != range->need)
				return UROM_COLL_R_BAD_MEMH;
			continue;
		}
		scans[nscans].at = range->address;
		scans[nscans].end = range->address + range->length;
		scans[nscans].need = range->need;
		scans[nscans].reason = 0;
		scans[nscans].covered = 0;
		nscans++;
	}
	return nscans == 0 ? 0 : maps_check(host, scans, nscans);
}

/* ---- MEM_MAP, MEM_UNMAP ---- */

void coll_mem_map(struct coll_ctx *ctx, const struct coll_reply *reply, const struct urom_coll_cmd_mem_map *cmd)
{
	struct urom_coll_notif_mem_map body = {0};
	struct coll_fail fail;
	struct coll_range range = {cmd->address, cmd->length, cmd->access, 0};
	struct coll_host *host;
	struct coll_memh *memh;
	uint32_t reason = 0;

	if (cmd->reserved != 0 || cmd->length == 0)
		reason = UROM_COLL_R_BAD_COMMAND;
	else if (cmd->access == 0 || (cmd->access & ~(UROM_COLL_ACCESS_READ | UROM_COLL_ACCESS_WRITE)) != 0)
		reason = UROM_COLL_R_BAD_FLAGS;
	if (reason != 0) {
		coll_fail_set(&fail, coll_reason_status(reason), reason, 0);
		coll_notify(ctx, reply, &fail, (uint8_t *)&body + sizeof(body.hdr), sizeof(body) - sizeof(body.hdr));
		return;
	}
	host = coll_host_get(ctx, reply->dest_id, &fail);
	if (host == NULL) {
		coll_notify(ctx, reply, &fail, (uint8_t *)&body + sizeof(body.hdr), sizeof(body) - sizeof(body.hdr));
		return;
	}
	if (host->handles >= UROM_COLL_MEMH_MAX)
		reason = UROM_COLL_R_TOO_MANY;
	else
		reason = coll_host_check(ctx, host, &range, 1);
	memh = reason == 0 ? calloc(1, sizeof(*memh)) : NULL;
	if (reason == 0 && memh == NULL)
		reason = UROM_COLL_R_NO_MEMORY;
	if (reason != 0) {
		coll_host_put(ctx, host);
		coll_fail_set(&fail, coll_reason_status(reason), reason, 0);
		coll_notify(ctx, reply, &fail, (uint8_t *)&body + sizeof(body.hdr), sizeof(body) - sizeof(body.hdr));
		return;
	}
	memh->id = ctx->next_memh++;
	memh->host = host;
	memh->address = cmd->address;
	memh->length = cmd->length;
	memh->access = cmd->access;
	host->handles++;
	urom_list_add_tail(&ctx->memhs, &memh->link);
	body.memh = memh->id;
	coll_notify(ctx, reply, NULL, (uint8_t *)&body + sizeof(body.hdr), sizeof(body) - sizeof(body.hdr));
}

static void memh_free(struct coll_ctx *ctx, struct coll_memh *memh)
{
	urom_list_del(&memh->link);
	memh->host->handles--;
	coll_host_put(ctx, memh->host);
	free(memh);
}

void coll_mem_unmap(struct coll_ctx *ctx, const struct coll_reply *reply, const struct urom_coll_cmd_mem_unmap *cmd)
{
	struct coll_memh *memh = memh_find(ctx, cmd->memh);
	struct coll_fail fail;

	if (memh == NULL || memh->host->dest_id != reply->dest_id) {
		coll_fail_set(&fail, UROM_ERR_NOT_PERMITTED, UROM_COLL_R_BAD_MEMH, 0);
		coll_notify(ctx, reply, &fail, NULL, 0);
		return;
	}
	memh_free(ctx, memh);
	coll_notify(ctx, reply, NULL, NULL, 0);
}

void coll_memh_free_all(struct coll_ctx *ctx)
{
	while (!urom_list_is_empty(&ctx->memhs))
		memh_free(ctx, UROM_LIST_ENTRY(ctx->memhs.next, struct coll_memh, link));
}
