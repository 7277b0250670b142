/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Test program: urom_bridge_peer_process on a kernel without SO_PEERPIDFD.
 * A seccomp filter makes getsockopt(SOL_SOCKET, SO_PEERPIDFD) fail with
 * ENOPROTOOPT, as a kernel before 6.5 does; then the bridge (argv[1]) is asked
 * for the peer of one end of a socketpair, which is this very process. Prints
 * "rc=R pid=P self=S exact=E pidfd_pid=Q": the pidfd's process from its
 * fdinfo (Q equals S when the pidfd names this process).
 */
#include <dlfcn.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SO_PEERPIDFD_OPTION 77

static int refuse_peerpidfd(void)
{
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_getsockopt, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[2])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SO_PEERPIDFD_OPTION, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOPROTOOPT),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog program = {sizeof(filter) / sizeof(filter[0]), filter};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program);
}

/* The Pid: line of the fdinfo of fd, or -1. */
static int fdinfo_pid(int fd)
{
	char path[64], line[256];
	FILE *in;
	int pid = -1;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	in = fopen(path, "r");
	if (in == NULL)
		return -1;
	while (fgets(line, sizeof(line), in) != NULL)
		if (strncmp(line, "Pid:", 4) == 0)
			pid = atoi(line + 4);
	fclose(in);
	return pid;
}

int main(int argc, char **argv)
{
	int (*peer_process)(int32_t, int32_t *, int32_t *, int32_t *);
	int32_t pid = 0, pidfd = -1, exact = -1;
	int sv[2];
	void *bridge;
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: %s liburom_bridge.so\n", argv[0]);
		return 2;
	}
	bridge = dlopen(argv[1], RTLD_NOW);
	if (bridge == NULL) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 2;
	}
	*(void **)&peer_process = dlsym(bridge, "urom_bridge_peer_process");
	if (peer_process == NULL || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
		fprintf(stderr, "no urom_bridge_peer_process or no socketpair\n");
		return 2;
	}
	if (refuse_peerpidfd() != 0) {
		fprintf(stderr, "seccomp: %s\n", strerror(errno));
		return 2;
	}
	rc = peer_process(sv[0], &pid, &pidfd, &exact);
	printf("rc=%d pid=%d self=%d exact=%d pidfd_pid=%d\n", rc, pid, (int)getpid(), exact,
	       pidfd >= 0 ? fdinfo_pid(pidfd) : -1);
	return 0;
}
