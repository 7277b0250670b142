/* SPDX-License-Identifier: Apache-2.0 */
/*
 * launch_check [accept]: the program the urom-launch tests have the launcher
 * exec. It reports what it finds as key=value lines on stderr:
 *
 *   fds=0,1,2,3            the open fds (from /proc/self/fd), looked at first
 *   fd0_listening=1|0      getsockopt(SO_ACCEPTCONN) on fd 0
 *   fd0_family=AF_UNIX|AF_INET|AF_INET6|other
 *   fd0_address=...        the path, or the numeric host
 *   fd0_port=N             TCP only
 *   socket_mode=0NNN socket_uid=N socket_gid=N   AF_UNIX only: stat of the path
 *   fd3_fifo=1|0           fstat(3) is a FIFO
 *   fd3_hex=...            the bytes read from fd 3 up to end of file, as hex
 *   cwd=...
 *   uids=R,E,S gids=R,E,S groups=G1,G2,...   from /proc/self/status
 *   no_new_privs=N         from /proc/self/status
 *   pdeathsig=N            prctl(PR_GET_PDEATHSIG)
 *   setuid0=ok|errno-name setgid0=ok|errno-name   whether it could become root
 *
 * With "accept" it then writes "READY <port>" (0 for AF_UNIX) on stdout,
 * accepts one connection on fd 0, sends "hello\n" on it and reports
 * accepted=1. Exit status 0, or 3 when something it needs fails.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

static void die(const char *what)
{
	dprintf(2, "error=%s: %s\n", what, strerror(errno));
	exit(3);
}

static void report_fds(void)
{
	DIR *listing = opendir("/proc/self/fd");
	struct dirent *entry;
	int fds[1024], count = 0;

	if (listing == NULL)
		die("opendir /proc/self/fd");
	while ((entry = readdir(listing)) != NULL && count < 1024) {
		if (entry->d_name[0] == '.')
			continue;
		int fd = atoi(entry->d_name);
		if (fd != dirfd(listing))
			fds[count++] = fd;
	}
	closedir(listing);
	for (int i = 1; i < count; i++)
		for (int j = i; j > 0 && fds[j - 1] > fds[j]; j--) {
			int t = fds[j];
			fds[j] = fds[j - 1];
			fds[j - 1] = t;
		}
	dprintf(2, "fds=");
	for (int i = 0; i < count; i++)
		dprintf(2, i == 0 ? "%d" : ",%d", fds[i]);
	dprintf(2, "\n");
}

static int report_fd0(void)
{
	struct sockaddr_storage address;
	socklen_t len = sizeof(address);
	int listening = 0, port = 0;
	socklen_t option_len = sizeof(listening);
	char host[INET6_ADDRSTRLEN] = "";

	if (getsockopt(0, SOL_SOCKET, SO_ACCEPTCONN, &listening, &option_len) != 0) {
		dprintf(2, "fd0_listening=0\n");
		return 0;
	}
	dprintf(2, "fd0_listening=%d\n", listening);
	if (getsockname(0, (struct sockaddr *)&address, &len) != 0)
		die("getsockname 0");
	if (address.ss_family == AF_UNIX) {
		struct sockaddr_un *un = (struct sockaddr_un *)&address;
		struct stat st;

		dprintf(2, "fd0_family=AF_UNIX\nfd0_address=%s\n", un->sun_path);
		if (stat(un->sun_path, &st) != 0)
			die("stat socket path");
		dprintf(2, "socket_mode=%04o\nsocket_uid=%u\nsocket_gid=%u\n", (unsigned)(st.st_mode & 07777),
			(unsigned)st.st_uid, (unsigned)st.st_gid);
	} else if (address.ss_family == AF_INET) {
		struct sockaddr_in *in = (struct sockaddr_in *)&address;

		inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
		port = ntohs(in->sin_port);
		dprintf(2, "fd0_family=AF_INET\nfd0_address=%s\nfd0_port=%d\n", host, port);
	} else if (address.ss_family == AF_INET6) {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&address;

		inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
		port = ntohs(in6->sin6_port);
		dprintf(2, "fd0_family=AF_INET6\nfd0_address=%s\nfd0_port=%d\n", host, port);
	} else {
		dprintf(2, "fd0_family=other\n");
	}
	return port;
}

static void report_fd3(void)
{
	struct stat st;
	unsigned char buf[4096];
	size_t total = 0;

	if (fstat(3, &st) != 0) {
		dprintf(2, "fd3_fifo=0\n");
		return;
	}
	dprintf(2, "fd3_fifo=%d\n", S_ISFIFO(st.st_mode) ? 1 : 0);
	if (!S_ISFIFO(st.st_mode))
		return;
	for (;;) {
		ssize_t n = read(3, buf + total, sizeof(buf) - total);
		if (n < 0)
			die("read 3");
		if (n == 0 || (total += (size_t)n) == sizeof(buf))
			break;
	}
	dprintf(2, "fd3_hex=");
	for (size_t i = 0; i < total; i++)
		dprintf(2, "%02x", buf[i]);
	dprintf(2, "\n");
}

/* "Uid:\t0\t0\t0\t0" becomes "uids=0,0,0" (the first three fields: real, effective, saved). */
static void report_status(void)
{
	FILE *status = fopen("/proc/self/status", "r");
	char line[4096];

	if (status == NULL)
		die("fopen /proc/self/status");
	while (fgets(line, sizeof(line), status) != NULL) {
		const char *key = NULL;
		int fields = 0;

		if (strncmp(line, "Uid:", 4) == 0) {
			key = "uids";
			fields = 3;
		} else if (strncmp(line, "Gid:", 4) == 0) {
			key = "gids";
			fields = 3;
		} else if (strncmp(line, "Groups:", 7) == 0) {
			key = "groups";
			fields = 1 << 20;
		} else if (strncmp(line, "NoNewPrivs:", 11) == 0) {
			key = "no_new_privs";
			fields = 1;
		}
		if (key == NULL)
			continue;
		dprintf(2, "%s=", key);
		char *save, *token = strtok_r(strchr(line, ':') + 1, " \t\n", &save);
		for (int i = 0; token != NULL && i < fields; i++) {
			dprintf(2, i == 0 ? "%s" : ",%s", token);
			token = strtok_r(NULL, " \t\n", &save);
		}
		dprintf(2, "\n");
	}
	fclose(status);
}

static void report_become_root(void)
{
	int setgid_result = setgid(0);
	int setgid_error = errno;
	int setuid_result = setuid(0);
	int setuid_error = errno;

	dprintf(2, "setgid0=%s\n", setgid_result == 0 ? "ok" : strerrorname_np(setgid_error));
	dprintf(2, "setuid0=%s\n", setuid_result == 0 ? "ok" : strerrorname_np(setuid_error));
}

int main(int argc, char **argv)
{
	char cwd[4096];
	int signal_number = -1, port;

	report_fds();
	port = report_fd0();
	report_fd3();
	if (getcwd(cwd, sizeof(cwd)) == NULL)
		die("getcwd");
	dprintf(2, "cwd=%s\n", cwd);
	report_status();
	if (prctl(PR_GET_PDEATHSIG, &signal_number) != 0)
		die("prctl PR_GET_PDEATHSIG");
	dprintf(2, "pdeathsig=%d\n", signal_number);
	report_become_root();

	if (argc > 1 && strcmp(argv[1], "accept") == 0) {
		int client;

		dprintf(1, "READY %d\n", port);
		client = accept(0, NULL, NULL);
		if (client < 0)
			die("accept");
		if (write(client, "hello\n", 6) != 6)
			die("write to the client");
		close(client);
		dprintf(2, "accepted=1\n");
	}
	return 0;
}
