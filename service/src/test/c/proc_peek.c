/* SPDX-License-Identifier: Apache-2.0 */
/*
 * proc_peek PID | --control | --dir DIR: what a process of this identity can
 * reach of another process, tried the way an attacker would. One line per try
 * on stdout, "<what> ok" or "<what> <errno name>":
 *
 *   environ   open and read /proc/PID/environ
 *   mem       open /proc/PID/mem and read 64 bytes at the start of the first
 *             mapping (from /proc/PID/maps when this process may read it,
 *             else the conventional start of a program, 0x400000)
 *   fd        list /proc/PID/fd
 *   ptrace    PTRACE_ATTACH (detached again at once when it succeeds)
 *
 * --control runs the same tries on a child of its own (which it then kills):
 * each must say ok, or the tries prove nothing. --dir DIR lists DIR
 * instead: one line, "dir ok" or "dir <errno name>".
 * Exit status 0 when it could try, 2 on bad usage.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *errno_name(int error)
{
	switch (error) {
	case EACCES:
		return "EACCES";
	case EPERM:
		return "EPERM";
	case ENOENT:
		return "ENOENT";
	case ESRCH:
		return "ESRCH";
	case EIO:
		return "EIO";
	default:
		return strerror(error);
	}
}

static void report(const char *what, int error)
{
	printf("%s %s\n", what, error == 0 ? "ok" : errno_name(error));
}

/* Opens path and reads 64 bytes at offset: 0, or the errno of the first step that failed. */
static int try_read(const char *path, off_t offset)
{
	char buf[64];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int error = 0;

	if (fd < 0)
		return errno;
	if (pread(fd, buf, sizeof(buf), offset) < 0)
		error = errno;
	close(fd);
	return error;
}

static int try_environ(pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	return try_read(path, 0);
}

static uint64_t first_mapping(pid_t pid)
{
	char path[64];
	uint64_t start = 0x400000;
	FILE *maps;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	maps = fopen(path, "re");
	if (maps == NULL)
		return start;
	if (fscanf(maps, "%" SCNx64, &start) != 1)
		start = 0x400000;
	fclose(maps);
	return start;
}

static int try_mem(pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	return try_read(path, (off_t)first_mapping(pid));
}

static int try_list(const char *path)
{
	DIR *dir = opendir(path);

	if (dir == NULL)
		return errno;
	errno = 0;
	while (readdir(dir) != NULL)
		;
	int error = errno;
	closedir(dir);
	return error;
}

static int try_fd(pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	return try_list(path);
}

static int try_ptrace(pid_t pid)
{
	int status;

	if (ptrace(PTRACE_ATTACH, pid, NULL, NULL) != 0)
		return errno;
	waitpid(pid, &status, __WALL);
	ptrace(PTRACE_DETACH, pid, NULL, NULL);
	return 0;
}

static void peek(pid_t pid)
{
	report("environ", try_environ(pid));
	report("mem", try_mem(pid));
	report("fd", try_fd(pid));
	report("ptrace", try_ptrace(pid));
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--dir") == 0) {
		report("dir", try_list(argv[2]));
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "--control") == 0) {
		pid_t child = fork();

		if (child < 0) {
			perror("fork");
			return 2;
		}
		if (child == 0) {
			pause();
			_exit(0);
		}
		peek(child);
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		return 0;
	}
	if (argc == 2 && argv[1][0] >= '1' && argv[1][0] <= '9') {
		peek((pid_t)strtol(argv[1], NULL, 10));
		return 0;
	}
	fprintf(stderr, "usage: proc_peek PID | --control | --dir DIR\n");
	return 2;
}
