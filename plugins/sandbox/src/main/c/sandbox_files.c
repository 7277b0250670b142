/* SPDX-License-Identifier: Apache-2.0 */
/* See sandbox_files.h. */
#define _GNU_SOURCE
#include "sandbox_files.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SANDBOX_MAX_UID 4294967294ULL
#define LEAF_OPEN_FLAGS (O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY)

static int open_beneath_openat2(int root_fd, const char *rest)
{
	struct open_how how;
	long fd;

	memset(&how, 0, sizeof(how));
	how.flags = LEAF_OPEN_FLAGS;
	how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV;
	do {
		fd = syscall(SYS_openat2, root_fd, rest[0] == '\0' ? "." : rest, &how, sizeof(how));
	} while (fd < 0 && errno == EINTR);
	return fd < 0 ? -errno : (int)fd;
}

static int has_dot_dot_component(const char *rest)
{
	for (const char *at = strstr(rest, ".."); at != NULL; at = strstr(at + 1, "..")) {
		if ((at == rest || at[-1] == '/') && (at[2] == '\0' || at[2] == '/'))
			return 1;
	}
	return 0;
}

int sandbox_open_beneath(int root_fd, const char *rest)
{
	int fd;

	if (has_dot_dot_component(rest))
		return -EXDEV;
	fd = open_beneath_openat2(root_fd, rest);
	/* ENOSYS: a kernel before 5.6; EPERM: a container whose seccomp profile predates openat2. The walk gives the same answers. */
	return fd == -ENOSYS || fd == -EPERM ? sandbox_open_beneath_by_walk(root_fd, rest) : fd;
}

/* 0 when `fd` (just opened through a component) is a directory on `device`, else -errno. */
static int check_directory(int fd, dev_t device)
{
	struct stat info;

	if (fstat(fd, &info) != 0)
		return -errno;
	if (S_ISLNK(info.st_mode))
		return -ELOOP;
	if (!S_ISDIR(info.st_mode))
		return -ENOTDIR;
	return info.st_dev == device ? 0 : -EXDEV;
}

/* Copies the component [start, end) into name; -EXDEV for "..", as openat2 would refuse leaving the root. */
static int component(const char *start, size_t len, char name[NAME_MAX + 1])
{
	if (len > NAME_MAX)
		return -ENAMETOOLONG;
	if (len == 2 && start[0] == '.' && start[1] == '.')
		return -EXDEV;
	memcpy(name, start, len);
	name[len] = '\0';
	return 0;
}

int sandbox_open_beneath_by_walk(int root_fd, const char *rest)
{
	char name[NAME_MAX + 1];
	struct stat root_info, info;
	const char *at = rest;
	const char *slash;
	int dir = root_fd;
	int result;

	if (fstat(root_fd, &root_info) != 0)
		return -errno;
	for (;;) {
		while (*at == '/')
			at++;
		slash = strchr(at, '/');
		if (slash == NULL)
			break;
		result = component(at, (size_t)(slash - at), name);
		if (result == 0) {
			int next = openat(dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);

			result = next < 0 ? -errno : check_directory(next, root_info.st_dev);
			if (dir != root_fd)
				close(dir);
			dir = next;
		}
		if (result != 0)
			goto out;
		at = slash;
	}
	result = component(at[0] == '\0' ? "." : at, at[0] == '\0' ? 1 : strlen(at), name);
	if (result != 0)
		goto out;
	do {
		result = openat(dir, name, LEAF_OPEN_FLAGS);
	} while (result < 0 && errno == EINTR);
	if (result < 0) {
		result = -errno;
	} else {
		int error = fstat(result, &info) != 0 ? -errno : info.st_dev != root_info.st_dev ? -EXDEV : 0;

		if (error != 0) {
			close(result);
			result = error;
		}
	}
out:
	if (dir != root_fd && dir >= 0)
		close(dir);
	return result;
}

int sandbox_owners_parse(struct sandbox_owners *owners, uid_t worker_uid, const char *principal_text)
{
	unsigned long long value = 0;

	if (principal_text != NULL) {
		if (principal_text[0] == '\0')
			return -EINVAL;
		for (const char *digit = principal_text; *digit != '\0'; digit++) {
			if (*digit < '0' || *digit > '9')
				return -EINVAL;
			value = value * 10 + (unsigned long long)(*digit - '0');
			if (value > SANDBOX_MAX_UID)
				return -EINVAL;
		}
	}
	owners->worker_uid = worker_uid;
	owners->has_principal = principal_text != NULL;
	owners->principal_uid = (uid_t)value;
	return 0;
}

int sandbox_owner_accepted(const struct sandbox_owners *owners, uid_t uid)
{
	return uid == owners->worker_uid || (owners->has_principal && uid == owners->principal_uid);
}

/* -EOVERFLOW when [offset, offset + len) does not fit in off_t. */
static int check_range(uint64_t offset, size_t len)
{
	return offset > (uint64_t)INT64_MAX || (uint64_t)len > (uint64_t)INT64_MAX - offset ? -EOVERFLOW : 0;
}

static int read_fully(int fd, uint64_t offset, uint8_t *dst, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t got = pread(fd, dst + done, len - done, (off_t)(offset + done));

		if (got < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (got == 0)
			return -SANDBOX_FILE_TOO_SHORT;
		done += (size_t)got;
	}
	return 0;
}

static int write_fully(int fd, uint64_t offset, const uint8_t *src, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t put = pwrite(fd, src + done, len - done, (off_t)(offset + done));

		if (put < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (put == 0)
			return -EIO;
		done += (size_t)put;
	}
	return 0;
}

int sandbox_read_at(int fd, uint64_t offset, void *dst, size_t len)
{
	int result = check_range(offset, len);

	return result != 0 ? result : read_fully(fd, offset, dst, len);
}

int sandbox_write_at(int fd, uint8_t *mapping, uint64_t offset, const void *src, size_t len)
{
	struct stat info;
	int result = check_range(offset, len);

	if (result != 0 || len == 0)
		return result;
	if (fstat(fd, &info) != 0)
		return -errno;
	if ((uint64_t)info.st_size < offset + len)
		return -SANDBOX_FILE_TOO_SHORT;
	result = write_fully(fd, offset, src, len);
	if (result == -EINVAL)
		result = sandbox_copy_through_kernel(mapping + offset, src, len);
	return result;
}

int sandbox_copy_through_kernel(void *dst, const void *src, size_t len)
{
	int memfd;
	int result;

	if (len == 0)
		return 0;
	if (len > (size_t)INT64_MAX)
		return -EOVERFLOW;
	memfd = memfd_create("urom-sandbox-copy", MFD_CLOEXEC);
	if (memfd < 0)
		return -errno;
	result = write_fully(memfd, 0, src, len);
	if (result == 0) {
		result = read_fully(memfd, 0, dst, len);
		if (result == -SANDBOX_FILE_TOO_SHORT)
			result = -EIO;
	}
	close(memfd);
	return result;
}
