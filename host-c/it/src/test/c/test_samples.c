/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The C samples (host-c/samples), built from the distribution as a user builds them (the Makefile's
 * `samples` target puts them in $UROM_IT_SAMPLES), run against a real daemon: their exit status
 * and the lines they print. Every program runs in a process group of its own, is waited for with a
 * time limit and killed (with its group) past it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "it_daemon.h"

#define RUN_TIMEOUT_MS 240000
#define OUTPUT_MAX (256 * 1024)

static struct it_daemon daemon_;
static char samples_dir[PATH_MAX];
static char *output;

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static int setup(void **unused)
{
	const char *dir = getenv("UROM_IT_SAMPLES");

	(void)unused;
	if (dir == NULL || (size_t)snprintf(samples_dir, sizeof(samples_dir), "%s", dir) >= sizeof(samples_dir)) {
		fprintf(stderr, "test_samples: UROM_IT_SAMPLES (the folder of the built samples) is not set\n");
		return -1;
	}
	output = malloc(OUTPUT_MAX);
	if (output == NULL)
		return -1;
	return it_daemon_start(&daemon_, NULL);
}

static int teardown(void **unused)
{
	(void)unused;
	it_daemon_stop(&daemon_);
	free(output);
	return 0;
}

/*
 * Runs argv (argv[0] looked up on PATH) with stdout and stderr into `output`, at most timeout_ms.
 * Returns its exit status, 128 + the signal that ended it, or -1 when it ran past the limit (it and
 * its process group are then killed) or could not be started.
 */
static int run(char *const argv[], int timeout_ms)
{
	long deadline = now_ms() + timeout_ms;
	size_t len = 0;
	bool open = true, timed_out = false;
	int fds[2], status = 0;
	pid_t pid;

	output[0] = '\0';
	if (pipe2(fds, O_CLOEXEC) != 0)
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		setpgid(0, 0);
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		execvp(argv[0], argv);
		fprintf(stderr, "test_samples: exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	close(fds[1]);
	while (open) {
		struct pollfd p = {.fd = fds[0], .events = POLLIN};
		long left = deadline - now_ms();
		char chunk[4096];
		ssize_t n;

		if (left <= 0) {
			timed_out = true;
			break;
		}
		if (poll(&p, 1, (int)(left < 1000 ? left : 1000)) <= 0)
			continue;
		n = read(fds[0], chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			open = false;
			break;
		}
		if (len + 1 < OUTPUT_MAX) {
			size_t take = (size_t)n < OUTPUT_MAX - 1 - len ? (size_t)n : OUTPUT_MAX - 1 - len;

			memcpy(output + len, chunk, take);
			len += take;
			output[len] = '\0';
		}
	}
	close(fds[0]);
	/* The output has ended: the program should exit at once; it gets the rest of its time. */
	while (!timed_out && waitpid(pid, &status, WNOHANG) == 0) {
		if (now_ms() > deadline)
			timed_out = true;
		else
			usleep(10000);
	}
	if (timed_out) {
		fprintf(stderr, "test_samples: %s ran past %d s; killed with its process group\n", argv[0],
			timeout_ms / 1000);
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	printf("---- output of %s ----\n%s---- end of output ----\n", argv[0], output);
	if (timed_out)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Whether the output holds this exact line. */
static bool has_line(const char *line)
{
	size_t n = strlen(line);

	for (const char *at = output; (at = strstr(at, line)) != NULL; at += n) {
		if ((at == output || at[-1] == '\n') && (at[n] == '\n' || at[n] == '\0'))
			return true;
	}
	return false;
}

static void assert_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void assert_line(const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (!has_line(line))
		fail_msg("the output has no line \"%s\"", line);
}

static void program(char *path, size_t size, const char *name)
{
	assert_true((size_t)snprintf(path, size, "%s/%s", samples_dir, name) < size);
	assert_int_equal(access(path, X_OK), 0);
}

static void the_bootstrap_sample_loops_four_ids_back_and_finds_the_even_and_odd_groups(void **unused)
{
	char bin[PATH_MAX + 64];
	char *argv[] = {bin, NULL};

	(void)unused;
	program(bin, sizeof(bin), "urom_multi_workers_bootstrap");
	assert_int_equal(run(argv, RUN_TIMEOUT_MS), 0);
	for (int i = 0; i < 4; i++)
		assert_line("worker %d gid %d: loopback %d -> %d: ok", i, i % 2, i, i);
	assert_line("gid 0: workers [0 2], expected [0 2]: ok");
	assert_line("gid 1: workers [1 3], expected [1 3]: ok");
	assert_line("multi_workers_bootstrap: 4 workers: all results matched");
	assert_null(strstr(output, "FAILED"));
}

static void the_bootstrap_sample_takes_a_worker_count_and_a_device_name(void **unused)
{
	char bin[PATH_MAX + 64];
	char *argv[] = {bin, "-n", "3", "-d", "urom0", NULL};

	(void)unused;
	program(bin, sizeof(bin), "urom_multi_workers_bootstrap");
	assert_int_equal(run(argv, RUN_TIMEOUT_MS), 0);
	for (int i = 0; i < 3; i++)
		assert_line("worker %d gid %d: loopback %d -> %d: ok", i, i % 2, i, i);
	assert_line("gid 0: workers [0 2], expected [0 2]: ok");
	assert_line("gid 1: workers [1], expected [1]: ok");
	assert_line("multi_workers_bootstrap: 3 workers: all results matched");
	assert_false(has_line("worker 3 gid 1: loopback 3 -> 3: ok"));
}

static void the_bootstrap_sample_fails_for_a_device_the_service_file_does_not_name(void **unused)
{
	char bin[PATH_MAX + 64];
	char *argv[] = {bin, "-d", "mlx5_42", NULL};
	char *bad_count[] = {bin, "-n", "0", NULL};

	(void)unused;
	program(bin, sizeof(bin), "urom_multi_workers_bootstrap");
	assert_int_equal(run(argv, RUN_TIMEOUT_MS), 1);
	assert_non_null(strstr(output, "No device named mlx5_42"));
	assert_line("multi_workers_bootstrap: FAILED (DOCA_ERROR_NOT_FOUND)");
	assert_null(strstr(output, ": ok"));
	assert_int_equal(run(bad_count, RUN_TIMEOUT_MS), 1);
	assert_non_null(strstr(output, "The number of workers must be 1 to 64, not 0"));
}

static void the_ping_pong_sample_sends_a_message_to_the_other_rank_and_gets_it_back(void **unused)
{
	char bin[PATH_MAX + 64];
	char *argv[] = {"mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "2", bin, "-m", "hello", NULL};

	(void)unused;
	program(bin, sizeof(bin), "urom_ping_pong");
	assert_int_equal(run(argv, RUN_TIMEOUT_MS), 0);
	assert_line("rank 0: domain of 2 ranks running");
	assert_line("rank 1: domain of 2 ranks running");
	assert_line("rank 0: sent \"hello\" (5 bytes, tag 0x1234)");
	assert_line("rank 1: received \"hello\" (5 bytes, tag 0x1234)");
	assert_line("rank 1: sent it back (tag 0x5678)");
	assert_line("rank 0: received \"hello\" (5 bytes, tag 0x5678): matches what was sent");
	assert_line("rank 0: ping-pong done");
	assert_line("rank 1: ping-pong done");
	assert_null(strstr(output, "FAILED"));
}

/* How many lines of the output contain text. */
static int lines_containing(const char *text)
{
	int n = 0;

	for (const char *p = output; (p = strstr(p, text)) != NULL; p += strlen(text))
		n++;
	return n;
}

/* The coll sample's seven groups of checks, each against MPI, and no failure. */
static void assert_every_coll_check_passed(void)
{
	assert_line("rank 0: 3 ranks in one team");
	assert_int_equal(lines_containing("every result matches MPI's"), 7);
	assert_true(has_line("rank 0: coll done"));
	assert_true(has_line("rank 1: coll done"));
	assert_true(has_line("rank 2: coll done"));
	assert_null(strstr(output, "FAILED"));
}

static void the_coll_sample_offloads_every_collective_to_c_workers_and_matches_mpi(void **unused)
{
	char bin[PATH_MAX + 64];
	char *argv[] = {"mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "3", bin, NULL};

	(void)unused;
	program(bin, sizeof(bin), "urom_coll");
	assert_int_equal(run(argv, RUN_TIMEOUT_MS), 0);
	for (int rank = 0; rank < 3; rank++)
		assert_line("rank %d: a worker running the worker_coll plugin", rank);
	assert_every_coll_check_passed();
}

static void the_coll_sample_offloads_to_a_team_of_c_and_java_workers_and_matches_mpi(void **unused)
{
	char bin[PATH_MAX + 64];
	char *argv[] = {"mpirun",
			"--allow-run-as-root",
			"--oversubscribe",
			"-np",
			"2",
			bin,
			":",
			"-np",
			"1",
			bin,
			"-p",
			"worker_coll_java",
			NULL};

	(void)unused;
	program(bin, sizeof(bin), "urom_coll");
	assert_int_equal(run(argv, RUN_TIMEOUT_MS), 0);
	assert_line("rank 0: a worker running the worker_coll plugin");
	assert_line("rank 1: a worker running the worker_coll plugin");
	assert_line("rank 2: a worker running the worker_coll_java plugin");
	assert_every_coll_check_passed();
}

static void the_coll_sample_names_a_missing_plugin(void **unused)
{
	char bin[PATH_MAX + 64];
	char *argv[] = {"mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "2", bin, "-p", "worker_nope", NULL};

	(void)unused;
	program(bin, sizeof(bin), "urom_coll");
	assert_int_not_equal(run(argv, RUN_TIMEOUT_MS), 0);
	/* The first rank to fail aborts the job: the other may be gone before it says so. */
	assert_true(lines_containing(": the service has no plugin named worker_nope: FAILED") >= 1);
	assert_null(strstr(output, "every result matches"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_bootstrap_sample_loops_four_ids_back_and_finds_the_even_and_odd_groups),
		cmocka_unit_test(the_bootstrap_sample_takes_a_worker_count_and_a_device_name),
		cmocka_unit_test(the_bootstrap_sample_fails_for_a_device_the_service_file_does_not_name),
		cmocka_unit_test(the_ping_pong_sample_sends_a_message_to_the_other_rank_and_gets_it_back),
		cmocka_unit_test(the_coll_sample_offloads_every_collective_to_c_workers_and_matches_mpi),
		cmocka_unit_test(the_coll_sample_offloads_to_a_team_of_c_and_java_workers_and_matches_mpi),
		cmocka_unit_test(the_coll_sample_names_a_missing_plugin),
	};

	return cmocka_run_group_tests_name("host-c samples", tests, setup, teardown);
}
