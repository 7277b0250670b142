/* SPDX-License-Identifier: Apache-2.0 */
/*
 * liburom_bridge.so: the host processes of the worker's connections, for
 * urom_worker_host_process (urom_plugin.h).
 *
 * One table per process: an entry per open host connection, by its dest id,
 * holding the peer's pid and a pidfd that the table owns, or no process (a
 * TCP connection, or one whose peer the worker could not learn). The Java side
 * (HostProcessTable) enters a connection when it is accepted and removes it
 * when it closes; a look-up hands out a duplicate of the entry's pidfd, so the
 * caller owns what it gets and the entry may go at any time. The table holds
 * at most the capacity the Java side reserved (the data plane's connection
 * limit). An optional "every other dest id" entry serves the test kit, where
 * the test's process is the host of every connection.
 *
 * Every function is safe from any thread (one mutex); none calls back into Java.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <urom_plugin.h>

#define UROM_BRIDGE_EXPORT __attribute__((visibility("default")))

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

/* The largest table the Java side may reserve: far above any connection limit. */
#define HOST_TABLE_MAX (1u << 20)

struct host_entry {
	uint64_t dest_id;
	int32_t pid;   /* 0: the connection has no local process */
	int32_t pidfd; /* -1 when pid is 0 */
};

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static struct host_entry *table;
static uint32_t table_capacity;
static uint32_t table_count;
static int has_fallback;
static struct host_entry fallback;

static void close_entry(struct host_entry *entry)
{
	if (entry->pidfd >= 0)
		close(entry->pidfd);
	entry->pidfd = -1;
	entry->pid = 0;
}

/* The entry of dest_id, or NULL; under table_lock. */
static struct host_entry *find(uint64_t dest_id)
{
	for (uint32_t i = 0; i < table_count; i++)
		if (table[i].dest_id == dest_id)
			return &table[i];
	return NULL;
}

/*
 * Makes room for capacity entries; a table only grows. Returns 0, -EINVAL
 * (over HOST_TABLE_MAX) or -ENOMEM.
 */
UROM_BRIDGE_EXPORT int urom_bridge_host_reserve(uint32_t capacity)
{
	struct host_entry *grown;
	int result = 0;

	if (capacity > HOST_TABLE_MAX)
		return -EINVAL;
	pthread_mutex_lock(&table_lock);
	if (capacity > table_capacity) {
		grown = realloc(table, (size_t)capacity * sizeof(*table));
		if (grown == NULL) {
			result = -ENOMEM;
		} else {
			table = grown;
			table_capacity = capacity;
		}
	}
	pthread_mutex_unlock(&table_lock);
	return result;
}

/*
 * Enters connection dest_id with its peer (pid > 0 and the pidfd, which the
 * table takes over), or with no process (pid 0, pidfd -1). Returns 0, -EEXIST
 * (dest_id is there: the new pidfd is closed) or -ENOSPC (the table is full:
 * likewise).
 */
UROM_BRIDGE_EXPORT int urom_bridge_host_enter(uint64_t dest_id, int32_t pid, int32_t pidfd)
{
	int result = 0;

	if (pid <= 0 || pidfd < 0) {
		if (pidfd >= 0)
			close(pidfd);
		pid = 0;
		pidfd = -1;
	}
	pthread_mutex_lock(&table_lock);
	if (find(dest_id) != NULL) {
		result = -EEXIST;
	} else if (table_count >= table_capacity) {
		result = -ENOSPC;
	} else {
		table[table_count].dest_id = dest_id;
		table[table_count].pid = pid;
		table[table_count].pidfd = pidfd;
		table_count++;
	}
	pthread_mutex_unlock(&table_lock);
	if (result != 0 && pidfd >= 0)
		close(pidfd);
	return result;
}

/* Removes connection dest_id and closes its pidfd. Returns 0 or -ENOENT. */
UROM_BRIDGE_EXPORT int urom_bridge_host_remove(uint64_t dest_id)
{
	struct host_entry *entry;
	int result = -ENOENT;

	pthread_mutex_lock(&table_lock);
	entry = find(dest_id);
	if (entry != NULL) {
		close_entry(entry);
		*entry = table[--table_count];
		result = 0;
	}
	pthread_mutex_unlock(&table_lock);
	return result;
}

/*
 * The entry of every dest id the table does not hold (the test kit's): set
 * with pid > 0 and a pidfd (taken over), or pid 0 (no process); cleared with
 * pid -1. The pidfd of the one it replaces is closed.
 */
UROM_BRIDGE_EXPORT void urom_bridge_host_fallback(int32_t pid, int32_t pidfd)
{
	int32_t replaced = -1;

	if (pid <= 0 || pidfd < 0) {
		if (pidfd >= 0)
			close(pidfd);
		pidfd = -1;
		pid = pid < 0 ? -1 : 0;
	}
	pthread_mutex_lock(&table_lock);
	if (has_fallback)
		replaced = fallback.pidfd;
	has_fallback = pid >= 0;
	fallback.pid = pid > 0 ? pid : 0;
	fallback.pidfd = pidfd;
	pthread_mutex_unlock(&table_lock);
	if (replaced >= 0)
		close(replaced);
}

/* How many connections the table holds (the fallback not counted). */
UROM_BRIDGE_EXPORT uint32_t urom_bridge_host_count(void)
{
	uint32_t count;

	pthread_mutex_lock(&table_lock);
	count = table_count;
	pthread_mutex_unlock(&table_lock);
	return count;
}

/*
 * What urom_worker_host_process answers for dest_id, host being pid and pidfd:
 * the Java side's look-up, which has no plugin context to give.
 */
UROM_BRIDGE_EXPORT urom_status_t urom_bridge_host_lookup(uint64_t dest_id, int32_t *host)
{
	const struct host_entry *entry;
	urom_status_t status;
	int copy;

	if (host == NULL)
		return UROM_ERR_INVALID_VALUE;
	pthread_mutex_lock(&table_lock);
	entry = find(dest_id);
	if (entry == NULL && has_fallback)
		entry = &fallback;
	if (entry == NULL) {
		status = UROM_ERR_NOT_FOUND;
	} else if (entry->pid == 0) {
		status = UROM_ERR_NOT_SUPPORTED;
	} else {
		copy = fcntl(entry->pidfd, F_DUPFD_CLOEXEC, 3);
		if (copy < 0) {
			status = errno == EMFILE || errno == ENFILE || errno == ENOMEM ? UROM_ERR_NO_MEMORY
										       : UROM_ERR_OPERATING_SYSTEM;
		} else {
			host[0] = entry->pid;
			host[1] = copy;
			status = UROM_SUCCESS;
		}
	}
	pthread_mutex_unlock(&table_lock);
	return status;
}

UROM_BRIDGE_EXPORT urom_status_t urom_worker_host_process(struct urom_worker_ctx *ctx, uint64_t dest_id,
							  struct urom_host_process *host)
{
	int32_t found[2];
	urom_status_t status;

	if (ctx == NULL || host == NULL)
		return UROM_ERR_INVALID_VALUE;
	status = urom_bridge_host_lookup(dest_id, found);
	if (status == UROM_SUCCESS) {
		host->pid = found[0];
		host->pidfd = found[1];
	}
	return status;
}

/*
 * The process at the other end of the connected Unix socket sock_fd: its pid
 * (SO_PEERCRED) and a pidfd of it. SO_PEERPIDFD (Linux 6.5) names the very
 * process that connected, whatever happened since; where the kernel lacks it
 * (ENOPROTOOPT) the pidfd comes from pidfd_open(pid), which names whatever
 * process has that pid by then: if the peer has exited and its pid been reused
 * in between, another process (*exact is 0 then, 1 otherwise). Returns 0, or
 * -errno (ESRCH: the peer has gone; ENOSYS: no pidfds at all).
 */
UROM_BRIDGE_EXPORT int urom_bridge_peer_process(int32_t sock_fd, int32_t *pid, int32_t *pidfd, int32_t *exact)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	int fd;

	if (getsockopt(sock_fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
		return -errno;
	if (cred.pid <= 0)
		return -ESRCH;
	len = sizeof(fd);
	if (getsockopt(sock_fd, SOL_SOCKET, SO_PEERPIDFD, &fd, &len) == 0) {
		*exact = 1;
	} else if (errno == ENOPROTOOPT) {
		fd = (int)syscall(SYS_pidfd_open, (pid_t)cred.pid, 0);
		if (fd < 0)
			return -errno;
		*exact = 0;
	} else {
		return -errno;
	}
	*pid = cred.pid;
	*pidfd = fd;
	return 0;
}

/* pidfd_open(pid): a pidfd (close-on-exec), or -errno. */
UROM_BRIDGE_EXPORT int urom_bridge_pidfd_open(int32_t pid)
{
	int fd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);

	return fd < 0 ? -errno : fd;
}

/* A duplicate (close-on-exec) of fd, or -errno. */
UROM_BRIDGE_EXPORT int urom_bridge_fd_dup(int32_t fd)
{
	int copy = fcntl(fd, F_DUPFD_CLOEXEC, 3);

	return copy < 0 ? -errno : copy;
}

/* close(fd): 0 or -errno. */
UROM_BRIDGE_EXPORT int urom_bridge_fd_close(int32_t fd)
{
	return close(fd) == 0 ? 0 : -errno;
}
