/* SPDX-License-Identifier: Apache-2.0 */
/*
 * connect_probe SOCKET: the client the socket-access tests run as another
 * identity. It connects a Unix stream socket to SOCKET and writes one line on
 * stdout: "connected", or the errno of the failed connect() by name for the
 * errors a permission test expects (EACCES, ENOENT, ECONNREFUSED), by number
 * and strerror otherwise. Exit status 0 when it could try, 2 on bad usage or
 * when the socket cannot be made.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static const char *errno_name(int error)
{
	switch (error) {
	case EACCES:
		return "EACCES";
	case ENOENT:
		return "ENOENT";
	case ECONNREFUSED:
		return "ECONNREFUSED";
	default:
		return NULL;
	}
}

int main(int argc, char **argv)
{
	struct sockaddr_un address = {.sun_family = AF_UNIX};
	const char *name;
	int fd;

	if (argc != 2 || strlen(argv[1]) >= sizeof(address.sun_path)) {
		fprintf(stderr, "usage: connect_probe SOCKET (a path of at most %zu bytes)\n",
			sizeof(address.sun_path) - 1);
		return 2;
	}
	memcpy(address.sun_path, argv[1], strlen(argv[1]) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		fprintf(stderr, "socket(AF_UNIX) failed: %s\n", strerror(errno));
		return 2;
	}
	if (connect(fd, (struct sockaddr *)&address, sizeof(address)) == 0) {
		puts("connected");
	} else {
		int error = errno;

		name = errno_name(error);
		if (name != NULL)
			puts(name);
		else
			printf("errno %d: %s\n", error, strerror(error));
	}
	if (close(fd) != 0) {
		fprintf(stderr, "close failed: %s\n", strerror(errno));
		return 2;
	}
	return fflush(stdout) == 0 ? 0 : 2;
}
