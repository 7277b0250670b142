/* SPDX-License-Identifier: Apache-2.0 */
/*
 * uds_pingpong: the floor for the end-to-end benchmark. Two processes exchange fixed-size
 * messages over a Unix-domain stream socket, as the host and a worker exchange a COMMAND frame
 * and its NOTIFY frame, with nothing else in the way (no framing, no dispatch, no plugin).
 *
 *   uds_pingpong server     SOCKET REQ_BYTES REPLY_BYTES
 *       listens on SOCKET, prints "READY" on stdout, then serves connections one after the other:
 *       reads REQ_BYTES, writes REPLY_BYTES, until the peer closes. Ends on SIGTERM/SIGINT or
 *       when stdin reaches end of file (its parent went away), removing SOCKET.
 *   uds_pingpong relay      SOCKET REQ_BYTES REPLY_BYTES UPSTREAM
 *       like server, but each connection is forwarded to the server at UPSTREAM: a request is read,
 *       written upstream, the reply read back and passed on. Two hops instead of one: what a data
 *       path through the daemon would cost on top of a direct one.
 *   uds_pingpong latency    SOCKET REQ_BYTES REPLY_BYTES WARMUP ROUNDS
 *       one message in flight; prints "latency rounds=N p50_ns=.. p99_ns=.. mean_ns=.."
 *   uds_pingpong throughput SOCKET REQ_BYTES REPLY_BYTES WARMUP ROUNDS IN_FLIGHT
 *       IN_FLIGHT messages in flight on one connection; prints
 *       "throughput rounds=N in_flight=K seconds=.. ops_per_s=.."
 *
 * The two clients pause around their measured rounds so that the parent can read the CPU time of
 * every process involved: after the warm-up they print "warm", after the measured rounds (still
 * connected) "done", and each time wait for a line, or end of file, on stdin.
 *
 * Messages are 1 to MAX_MESSAGE (1 MiB) bytes.
 *
 * Errors: one line on stderr naming the call and the reason, exit status 1; usage errors exit 2.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define MAX_MESSAGE (1024 * 1024)

static const char *socket_path;
static volatile sig_atomic_t stop_requested;

static void fail(const char *what)
{
	fprintf(stderr, "uds_pingpong: %s: %s\n", what, strerror(errno));
	exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static long parse_count(const char *text, const char *name, long min, long max)
{
	char *end;
	errno = 0;
	long value = strtol(text, &end, 10);
	if (errno != 0 || *end != '\0' || end == text || value < min || value > max) {
		fprintf(stderr, "uds_pingpong: %s '%s' is not a number from %ld to %ld\n", name, text, min, max);
		exit(2);
	}
	return value;
}

/* 1 when all bytes moved, 0 on end of file before the first byte. */
static int read_fully(int fd, char *buffer, size_t length)
{
	size_t done = 0;
	while (done < length) {
		ssize_t n = read(fd, buffer + done, length - done);
		if (n == 0) {
			if (done == 0)
				return 0;
			errno = EPIPE;
			fail("read (peer closed in the middle of a message)");
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fail("read");
		}
		done += (size_t)n;
	}
	return 1;
}

static void write_fully(int fd, const char *buffer, size_t length)
{
	size_t done = 0;
	while (done < length) {
		ssize_t n = write(fd, buffer + done, length - done);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fail("write");
		}
		done += (size_t)n;
	}
}

static struct sockaddr_un address_of(const char *path)
{
	struct sockaddr_un address;
	memset(&address, 0, sizeof(address));
	address.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(address.sun_path)) {
		fprintf(stderr, "uds_pingpong: socket path %s is longer than %zu bytes\n", path,
			sizeof(address.sun_path) - 1);
		exit(2);
	}
	strcpy(address.sun_path, path);
	return address;
}

/* Prints `marker` on a line of its own, then waits for a line or end of file on stdin. */
static void pause_at(const char *marker)
{
	char c;
	ssize_t n;

	printf("%s\n", marker);
	fflush(stdout);
	while ((n = read(STDIN_FILENO, &c, 1)) != 0) {
		if (n < 0 && errno != EINTR)
			fail("read (stdin)");
		if (n == 1 && c == '\n')
			return;
	}
}

static void on_signal(int signal_number)
{
	(void)signal_number;
	stop_requested = 1;
}

static void remove_socket(void)
{
	if (socket_path != NULL)
		unlink(socket_path);
}

/* Waits for a connection, or returns -1 when asked to stop or stdin ended. */
static int accept_or_stop(int listener)
{
	struct pollfd fds[2] = {{.fd = listener, .events = POLLIN}, {.fd = STDIN_FILENO, .events = POLLIN}};
	while (!stop_requested) {
		int ready = poll(fds, 2, -1);
		if (ready < 0) {
			if (errno == EINTR)
				continue;
			fail("poll");
		}
		if (fds[1].revents != 0) {
			char scratch[256];
			if (read(STDIN_FILENO, scratch, sizeof(scratch)) <= 0)
				return -1;
		}
		if (fds[0].revents & POLLIN) {
			int connection = accept(listener, NULL, NULL);
			if (connection < 0) {
				if (errno == EINTR)
					continue;
				fail("accept");
			}
			return connection;
		}
	}
	return -1;
}

static int connect_to(const char *path);

static int run_server(size_t request_bytes, size_t reply_bytes, const char *upstream)
{
	static char request[MAX_MESSAGE], reply[MAX_MESSAGE];
	struct sigaction action;
	memset(&action, 0, sizeof(action));
	action.sa_handler = on_signal;
	sigaction(SIGTERM, &action, NULL);
	sigaction(SIGINT, &action, NULL);
	signal(SIGPIPE, SIG_IGN);

	int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (listener < 0)
		fail("socket");
	struct sockaddr_un address = address_of(socket_path);
	unlink(socket_path);
	if (bind(listener, (struct sockaddr *)&address, sizeof(address)) < 0)
		fail("bind");
	atexit(remove_socket);
	if (listen(listener, 4) < 0)
		fail("listen");
	memset(reply, 'r', reply_bytes);
	printf("READY\n");
	fflush(stdout);

	int connection;
	while ((connection = accept_or_stop(listener)) >= 0) {
		int next = upstream == NULL ? -1 : connect_to(upstream);
		while (!stop_requested && read_fully(connection, request, request_bytes)) {
			if (next >= 0) {
				write_fully(next, request, request_bytes);
				if (!read_fully(next, reply, reply_bytes))
					break;
			}
			write_fully(connection, reply, reply_bytes);
		}
		if (next >= 0)
			close(next);
		close(connection);
	}
	close(listener);
	return 0;
}

static int connect_to(const char *path)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		fail("socket");
	struct sockaddr_un address = address_of(path);
	if (connect(fd, (struct sockaddr *)&address, sizeof(address)) < 0)
		fail("connect");
	return fd;
}

static int connect_to_server(void)
{
	return connect_to(socket_path);
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static uint64_t percentile(const uint64_t *sorted, long count, double fraction)
{
	long index = (long)(fraction * (double)count + 0.999999) - 1;
	if (index < 0)
		index = 0;
	if (index >= count)
		index = count - 1;
	return sorted[index];
}

static int run_latency(size_t request_bytes, size_t reply_bytes, long warmup, long rounds)
{
	static char request[MAX_MESSAGE], reply[MAX_MESSAGE];
	uint64_t *samples = malloc(sizeof(uint64_t) * (size_t)rounds);
	if (samples == NULL)
		fail("malloc");
	memset(request, 'q', request_bytes);
	int fd = connect_to_server();
	for (long i = 0; i < warmup; i++) {
		write_fully(fd, request, request_bytes);
		read_fully(fd, reply, reply_bytes);
	}
	pause_at("warm");
	uint64_t total = 0;
	for (long i = 0; i < rounds; i++) {
		uint64_t start = now_ns();
		write_fully(fd, request, request_bytes);
		if (!read_fully(fd, reply, reply_bytes)) {
			errno = EPIPE;
			fail("read (server closed)");
		}
		samples[i] = now_ns() - start;
		total += samples[i];
	}
	pause_at("done");
	close(fd);
	qsort(samples, (size_t)rounds, sizeof(uint64_t), compare_u64);
	printf("latency rounds=%ld p50_ns=%llu p99_ns=%llu mean_ns=%llu\n", rounds,
	       (unsigned long long)percentile(samples, rounds, 0.50),
	       (unsigned long long)percentile(samples, rounds, 0.99), (unsigned long long)(total / (uint64_t)rounds));
	free(samples);
	return 0;
}

/* Keeps in_flight requests outstanding; returns the nanoseconds that `rounds` replies took. */
static uint64_t pipelined(int fd, size_t request_bytes, size_t reply_bytes, long rounds, long in_flight)
{
	static char request[MAX_MESSAGE], reply[MAX_MESSAGE];
	memset(request, 'q', request_bytes);
	long sent = 0, received = 0;
	uint64_t start = now_ns();
	while (sent < rounds && sent < in_flight) {
		write_fully(fd, request, request_bytes);
		sent++;
	}
	while (received < rounds) {
		if (!read_fully(fd, reply, reply_bytes)) {
			errno = EPIPE;
			fail("read (server closed)");
		}
		received++;
		if (sent < rounds) {
			write_fully(fd, request, request_bytes);
			sent++;
		}
	}
	return now_ns() - start;
}

static int run_throughput(size_t request_bytes, size_t reply_bytes, long warmup, long rounds, long in_flight)
{
	int fd = connect_to_server();
	if (warmup > 0)
		pipelined(fd, request_bytes, reply_bytes, warmup, in_flight);
	pause_at("warm");
	uint64_t elapsed = pipelined(fd, request_bytes, reply_bytes, rounds, in_flight);
	pause_at("done");
	close(fd);
	double seconds = (double)elapsed / 1e9;
	printf("throughput rounds=%ld in_flight=%ld seconds=%.6f ops_per_s=%.0f\n", rounds, in_flight, seconds,
	       (double)rounds / seconds);
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: uds_pingpong server SOCKET REQ_BYTES REPLY_BYTES\n"
			"       uds_pingpong relay SOCKET REQ_BYTES REPLY_BYTES UPSTREAM\n"
			"       uds_pingpong latency SOCKET REQ_BYTES REPLY_BYTES WARMUP ROUNDS\n"
			"       uds_pingpong throughput SOCKET REQ_BYTES REPLY_BYTES WARMUP ROUNDS IN_FLIGHT\n");
	exit(2);
}

int main(int argc, char **argv)
{
	if (argc < 5)
		usage();
	const char *mode = argv[1];
	socket_path = argv[2];
	size_t request_bytes = (size_t)parse_count(argv[3], "REQ_BYTES", 1, MAX_MESSAGE);
	size_t reply_bytes = (size_t)parse_count(argv[4], "REPLY_BYTES", 1, MAX_MESSAGE);
	if (strcmp(mode, "server") == 0 && argc == 5)
		return run_server(request_bytes, reply_bytes, NULL);
	if (strcmp(mode, "relay") == 0 && argc == 6)
		return run_server(request_bytes, reply_bytes, argv[5]);
	if (strcmp(mode, "latency") == 0 && argc == 7)
		return run_latency(request_bytes, reply_bytes, parse_count(argv[5], "WARMUP", 0, 100000000),
				   parse_count(argv[6], "ROUNDS", 1, 100000000));
	if (strcmp(mode, "throughput") == 0 && argc == 8)
		return run_throughput(request_bytes, reply_bytes, parse_count(argv[5], "WARMUP", 0, 100000000),
				      parse_count(argv[6], "ROUNDS", 1, 100000000),
				      parse_count(argv[7], "IN_FLIGHT", 1, 4096));
	usage();
	return 2;
}
