/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Drives sandbox_files.c for SandboxFilesNativeIT: one command per run, one
 * line of output, exit status 0 (2 for a usage error). The test decides what
 * the line must be.
 *
 *   open walk|auto <root> <rest>   "opened" or "error <ERRNO>"
 *   parse <text>                   "valid <uid>" or "error <ERRNO>" (the text of UROM_OWNER_UID)
 *   owner <file> [<UROM_OWNER_UID>] "accepted" or "refused <uid>": the rule on the owner of <file>
 *   shrunk <dir>                   "copy <ERRNO|0> read <ERRNO|0> write <ERRNO|0>": copies into and
 *                                  out of a mapped file in <dir> after it was truncated to 0
 *   intact <dir>                   "copied" or "mismatch": a kernel copy into a mapping that is whole
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox_files.h"

#define PAGES 2

static const char *error_name(int error)
{
	const char *name = error == 0 ? "0" : strerrorname_np(-error);

	return name != NULL ? name : "UNKNOWN";
}

static int probe_open(const char *how, const char *root, const char *rest)
{
	int root_fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	int fd;

	if (root_fd < 0) {
		printf("cannot open root %s: %s\n", root, strerror(errno));
		return 2;
	}
	fd = strcmp(how, "walk") == 0 ? sandbox_open_beneath_by_walk(root_fd, rest)
				      : sandbox_open_beneath(root_fd, rest);
	if (fd >= 0) {
		printf("opened\n");
		close(fd);
	} else {
		printf("error %s\n", error_name(fd));
	}
	close(root_fd);
	return 0;
}

static int probe_parse(const char *text)
{
	struct sandbox_owners owners;
	int error = sandbox_owners_parse(&owners, geteuid(), text);

	if (error != 0)
		printf("error %s\n", error_name(error));
	else
		printf("valid %lu\n", (unsigned long)owners.principal_uid);
	return 0;
}

static int probe_owner(const char *file, const char *principal)
{
	struct sandbox_owners owners;
	struct stat info;
	int fd = open(file, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &info) != 0 || sandbox_owners_parse(&owners, geteuid(), principal) != 0) {
		printf("cannot check %s: %s\n", file, strerror(errno));
		return 2;
	}
	close(fd);
	if (sandbox_owner_accepted(&owners, info.st_uid))
		printf("accepted\n");
	else
		printf("refused %lu\n", (unsigned long)info.st_uid);
	return 0;
}

/* A file of PAGES pages in dir, mapped shared read-write at *mapping; its descriptor, or -1. */
static int mapped_file(const char *dir, uint8_t **mapping, size_t length)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/probe-XXXXXX", dir);
	fd = mkstemp(path);
	if (fd < 0 || unlink(path) != 0 || ftruncate(fd, (off_t)length) != 0) {
		printf("cannot make a file in %s: %s\n", dir, strerror(errno));
		return -1;
	}
	*mapping = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (*mapping == MAP_FAILED) {
		printf("cannot map the file: %s\n", strerror(errno));
		return -1;
	}
	return fd;
}

static int probe_shrunk(const char *dir)
{
	size_t length = PAGES * (size_t)sysconf(_SC_PAGESIZE);
	uint8_t *mapping;
	uint8_t *bytes = calloc(1, length);
	int fd = mapped_file(dir, &mapping, length);
	int copy, read, write;

	if (fd < 0 || bytes == NULL)
		return 2;
	memset(mapping, 0x5a, length);
	if (ftruncate(fd, 0) != 0) {
		printf("cannot truncate the file: %s\n", strerror(errno));
		return 2;
	}
	copy = sandbox_copy_through_kernel(mapping, bytes, length);
	read = sandbox_read_at(fd, 0, bytes, length);
	write = sandbox_write_at(fd, mapping, 0, bytes, length);
	printf("copy %s read %s write %s\n", error_name(copy), error_name(read), error_name(write));
	return 0;
}

static int probe_intact(const char *dir)
{
	size_t length = PAGES * (size_t)sysconf(_SC_PAGESIZE);
	uint8_t *mapping;
	uint8_t *bytes = malloc(length);
	uint8_t *back = malloc(length);
	int fd = mapped_file(dir, &mapping, length);
	int error;

	if (fd < 0 || bytes == NULL || back == NULL)
		return 2;
	for (size_t i = 0; i < length; i++)
		bytes[i] = (uint8_t)(i * 7 + 1);
	error = sandbox_copy_through_kernel(mapping, bytes, length);
	if (error != 0) {
		printf("error %s\n", error_name(error));
		return 0;
	}
	error = sandbox_read_at(fd, 0, back, length);
	printf("%s\n", error == 0 && memcmp(back, bytes, length) == 0 && memcmp(mapping, bytes, length) == 0
			       ? "copied"
			       : "mismatch");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "open") == 0)
		return probe_open(argv[2], argv[3], argv[4]);
	if (argc == 3 && strcmp(argv[1], "parse") == 0)
		return probe_parse(argv[2]);
	if ((argc == 3 || argc == 4) && strcmp(argv[1], "owner") == 0)
		return probe_owner(argv[2], argc == 4 ? argv[3] : NULL);
	if (argc == 3 && strcmp(argv[1], "shrunk") == 0)
		return probe_shrunk(argv[2]);
	if (argc == 3 && strcmp(argv[1], "intact") == 0)
		return probe_intact(argv[2]);
	fprintf(stderr, "usage: see the comment at the top of sandbox_files_probe.c\n");
	return 2;
}
