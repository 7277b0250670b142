/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libdoca_common's logging: DOCA_LOG_* of this program (through urom_log.h's urom_log_write) and the
 * library's own SDK messages, through the backends. The log's state is process-wide and backends are
 * never destroyed, so the tests run in order and each retires its backends (limits that show nothing)
 * when done. The first test runs before any backend exists; the standard backends come last.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <doca_log.h>

#include "urom_core.h"

DOCA_LOG_REGISTER(TEST::LOG);

/* The contents of a stream written so far, as a string (the caller frees it). */
static char *contents(FILE *f)
{
	long size;
	char *s;

	assert_int_equal(fflush(f), 0);
	size = ftell(f);
	assert_true(size >= 0);
	s = calloc(1, (size_t)size + 1);
	assert_non_null(s);
	rewind(f);
	assert_int_equal(fread(s, 1, (size_t)size, f), (size_t)size);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	return s;
}

static size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; *s != '\0'; s++)
		n += *s == '\n';
	return n;
}

static size_t count_of(const char *s, const char *needle)
{
	size_t n = 0;

	while ((s = strstr(s, needle)) != NULL) {
		n++;
		s += strlen(needle);
	}
	return n;
}

static void retire(struct doca_log_backend *b, bool sdk)
{
	if (sdk)
		assert_int_equal(doca_log_backend_set_sdk_level(b, DOCA_LOG_LEVEL_DISABLE), DOCA_SUCCESS);
	else
		assert_int_equal(doca_log_backend_set_level_lower_limit(b, DOCA_LOG_LEVEL_DISABLE), DOCA_SUCCESS);
}

/* Runs fn with the process's file descriptor `fd` going to a temporary file; returns what was written. */
static char *capture_fd(int fd, void (*fn)(void))
{
	FILE *tmp = tmpfile();
	int saved;
	char *s;

	assert_non_null(tmp);
	fflush(fd == 1 ? stdout : stderr);
	saved = dup(fd);
	assert_true(saved >= 0);
	assert_true(dup2(fileno(tmp), fd) >= 0);
	fn();
	fflush(fd == 1 ? stdout : stderr);
	assert_true(dup2(saved, fd) >= 0);
	close(saved);
	s = contents(tmp);
	fclose(tmp);
	return s;
}

static void log_before_backends(void)
{
	DOCA_LOG_ERR("early error %d", 1);
	DOCA_LOG_WARN("early warning");
	DOCA_LOG_INFO("early info");
	urom_sdk_log(DOCA_LOG_LEVEL_CRIT, "TEST::SDK", "early sdk critical");
	urom_sdk_log(DOCA_LOG_LEVEL_WARNING, "TEST::SDK", "early sdk warning");
}

static void test_errors_reach_stderr_before_any_backend(void **state)
{
	char *err;

	(void)state;
	err = capture_fd(2, log_before_backends);
	assert_non_null(strstr(err, "early error 1"));
	assert_non_null(strstr(err, "early sdk critical"));
	assert_null(strstr(err, "early warning"));
	assert_null(strstr(err, "early info"));
	assert_null(strstr(err, "early sdk warning"));
	assert_int_equal(count_lines(err), 2);
	free(err);
}

static void test_file_backend_gets_an_error_line(void **state)
{
	struct doca_log_backend *b;
	FILE *f = tmpfile();
	char *s, pid[32];

	(void)state;
	assert_non_null(f);
	assert_int_equal(doca_log_backend_create_with_file(f, &b), DOCA_SUCCESS);
	DOCA_LOG_ERR("hello %d", 42);
	s = contents(f);
	assert_int_equal(count_lines(s), 1);
	assert_non_null(strstr(s, "[DOCA][ERR][test_log.c:"));
	assert_non_null(strstr(s, "][test_file_backend_gets_an_error_line] hello 42\n"));
	snprintf(pid, sizeof(pid), "][%ld][DOCA]", (long)getpid());
	assert_non_null(strstr(s, pid));
	/* [HH:MM:SS:uuuuuu] */
	assert_int_equal(s[0], '[');
	assert_int_equal(s[3], ':');
	assert_int_equal(s[6], ':');
	assert_int_equal(s[9], ':');
	assert_int_equal(s[16], ']');
	free(s);
	retire(b, false);
}

static void test_levels_filter(void **state)
{
	struct doca_log_backend *b;
	FILE *f = tmpfile();
	char *s;

	(void)state;
	assert_non_null(f);
	assert_int_equal(doca_log_backend_create_with_file(f, &b), DOCA_SUCCESS);
	/* Default: the global lower limit (INFO), so DEBUG is not shown. */
	DOCA_LOG_INFO("info one");
	DOCA_LOG_DBG("debug one");
	assert_int_equal(doca_log_backend_set_level_lower_limit(b, DOCA_LOG_LEVEL_WARNING), DOCA_SUCCESS);
	DOCA_LOG_INFO("info two");
	DOCA_LOG_WARN("warning two");
	DOCA_LOG_CRIT("critical two");
	assert_int_equal(doca_log_backend_set_level_upper_limit(b, DOCA_LOG_LEVEL_ERROR), DOCA_SUCCESS);
	DOCA_LOG_CRIT("critical three");
	DOCA_LOG_ERR("error three");
	assert_int_equal(doca_log_backend_set_level_lower_limit(b, DOCA_LOG_LEVEL_TRACE), DOCA_SUCCESS);
	DOCA_LOG_DBG("debug four");
	DOCA_LOG(DOCA_LOG_LEVEL_TRACE, "trace %s", "four");
	assert_int_equal(doca_log_backend_set_level_lower_limit(b, 35), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_backend_set_level_lower_limit(b, 80), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_backend_set_level_upper_limit(b, 5), DOCA_ERROR_INVALID_VALUE);
	s = contents(f);
	assert_non_null(strstr(s, "info one"));
	assert_null(strstr(s, "debug one"));
	assert_null(strstr(s, "info two"));
	assert_non_null(strstr(s, "[WRN]"));
	assert_non_null(strstr(s, "warning two"));
	assert_non_null(strstr(s, "critical two"));
	assert_null(strstr(s, "critical three"));
	assert_non_null(strstr(s, "error three"));
	assert_non_null(strstr(s, "[DBG]"));
	assert_non_null(strstr(s, "[TRC]"));
	assert_non_null(strstr(s, "trace four"));
	assert_int_equal(count_lines(s), 6);
	free(s);
	/* Disabled: nothing at all. */
	assert_int_equal(doca_log_backend_set_level_lower_limit(b, DOCA_LOG_LEVEL_DISABLE), DOCA_SUCCESS);
	DOCA_LOG_CRIT("never");
	s = contents(f);
	assert_null(strstr(s, "never"));
	free(s);
}

static void test_global_limits_and_strict(void **state)
{
	struct doca_log_backend *a, *b;
	FILE *fa = tmpfile(), *fb = tmpfile();
	char *s;

	(void)state;
	assert_int_equal(doca_log_level_get_global_lower_limit(), DOCA_LOG_LEVEL_INFO);
	assert_int_equal(doca_log_level_get_global_upper_limit(), DOCA_LOG_LEVEL_CRIT);
	assert_int_equal(doca_log_backend_create_with_file(fa, &a), DOCA_SUCCESS);
	assert_int_equal(doca_log_backend_create_with_file(fb, &b), DOCA_SUCCESS);
	assert_int_equal(doca_log_backend_set_level_lower_limit_strict(b), DOCA_SUCCESS);
	assert_int_equal(doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_DEBUG), DOCA_SUCCESS);
	assert_int_equal(doca_log_level_get_global_lower_limit(), DOCA_LOG_LEVEL_DEBUG);
	assert_int_equal(doca_log_level_set_global_lower_limit(45), DOCA_ERROR_INVALID_VALUE);
	DOCA_LOG_DBG("debug for a only");
	/* A strict limit cannot be changed directly either. */
	assert_int_equal(doca_log_backend_set_level_lower_limit(b, DOCA_LOG_LEVEL_TRACE), DOCA_ERROR_NOT_PERMITTED);
	s = contents(fa);
	assert_non_null(strstr(s, "debug for a only"));
	free(s);
	s = contents(fb);
	assert_null(strstr(s, "debug for a only"));
	free(s);
	assert_int_equal(doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_INFO), DOCA_SUCCESS);
	retire(a, false);
	/* Upper limit ERROR: CRIT is too severe for it; upper TRACE past a strict lower INFO: nothing. */
	assert_int_equal(doca_log_backend_set_level_upper_limit(b, DOCA_LOG_LEVEL_ERROR), DOCA_SUCCESS);
	DOCA_LOG_CRIT("hidden by upper limit");
	DOCA_LOG_ERR("shown under upper limit");
	assert_int_equal(doca_log_backend_set_level_upper_limit(b, DOCA_LOG_LEVEL_TRACE), DOCA_SUCCESS);
	DOCA_LOG_ERR("hidden by both limits");
	s = contents(fb);
	assert_null(strstr(s, "hidden by upper limit"));
	assert_non_null(strstr(s, "shown under upper limit"));
	assert_null(strstr(s, "hidden by both limits"));
	free(s);
}

static void test_sdk_levels(void **state)
{
	struct doca_log_backend *sdk, *app;
	FILE *fs = tmpfile(), *fa = tmpfile();
	char *s;

	(void)state;
	assert_int_equal(doca_log_level_get_global_sdk_limit(), DOCA_LOG_LEVEL_INFO);
	assert_int_equal(doca_log_backend_create_with_file_sdk(fs, &sdk), DOCA_SUCCESS);
	assert_int_equal(doca_log_backend_create_with_file(fa, &app), DOCA_SUCCESS);
	urom_sdk_log(DOCA_LOG_LEVEL_INFO, "TEST::SDK", "sdk info %s", "one");
	urom_sdk_log(DOCA_LOG_LEVEL_DEBUG, "TEST::SDK", "sdk debug one");
	DOCA_LOG_ERR("application error");
	assert_int_equal(doca_log_backend_set_sdk_level(sdk, DOCA_LOG_LEVEL_WARNING), DOCA_SUCCESS);
	urom_sdk_log(DOCA_LOG_LEVEL_INFO, "TEST::SDK", "sdk info two");
	urom_sdk_log(DOCA_LOG_LEVEL_WARNING, "TEST::SDK", "sdk warning two");
	urom_sdk_log(DOCA_LOG_LEVEL_ERROR, "TEST::SDK", "sdk error two");
	/* Each setter belongs to its kind. */
	assert_int_equal(doca_log_backend_set_sdk_level(app, DOCA_LOG_LEVEL_INFO), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(doca_log_backend_set_level_lower_limit(sdk, DOCA_LOG_LEVEL_INFO), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(doca_log_backend_set_sdk_level(sdk, 33), DOCA_ERROR_INVALID_VALUE);
	s = contents(fs);
	assert_non_null(strstr(s, "[DOCA][INF][TEST::SDK] sdk info one\n"));
	assert_null(strstr(s, "sdk debug one"));
	assert_null(strstr(s, "sdk info two"));
	assert_non_null(strstr(s, "[WRN][TEST::SDK] sdk warning two"));
	assert_non_null(strstr(s, "sdk error two"));
	assert_null(strstr(s, "application error"));
	assert_int_equal(count_lines(s), 3);
	free(s);
	s = contents(fa);
	assert_non_null(strstr(s, "application error"));
	assert_null(strstr(s, "TEST::SDK"));
	free(s);
	/* The global SDK limit reaches every SDK backend. */
	assert_int_equal(doca_log_level_set_global_sdk_limit(DOCA_LOG_LEVEL_ERROR), DOCA_SUCCESS);
	assert_int_equal(doca_log_level_get_global_sdk_limit(), DOCA_LOG_LEVEL_ERROR);
	urom_sdk_log(DOCA_LOG_LEVEL_WARNING, "TEST::SDK", "sdk warning three");
	s = contents(fs);
	assert_null(strstr(s, "sdk warning three"));
	free(s);
	assert_int_equal(doca_log_level_set_global_sdk_limit(DOCA_LOG_LEVEL_INFO), DOCA_SUCCESS);
	retire(sdk, true);
	retire(app, false);
}

static void test_long_message_is_one_bounded_line(void **state)
{
	struct doca_log_backend *b;
	FILE *f = tmpfile();
	char *big = malloc(3000), *s, *nl;

	(void)state;
	assert_non_null(big);
	memset(big, 'a', 2999);
	big[2999] = '\0';
	big[10] = '\n';
	big[20] = '\t';
	big[30] = '\x1b';
	big[40] = '\r';
	assert_int_equal(doca_log_backend_create_with_file(f, &b), DOCA_SUCCESS);
	DOCA_LOG_ERR("%s", big);
	DOCA_LOG_ERR("two\nlines\n");
	s = contents(f);
	assert_int_equal(count_lines(s), 2);
	nl = strchr(s, '\n');
	assert_non_null(nl);
	/* The message was cut at UROM_LOG_MESSAGE_MAX, and says so. */
	assert_true((size_t)(nl - s) < UROM_LOG_MESSAGE_MAX + 200);
	assert_true((size_t)(nl - s) > UROM_LOG_MESSAGE_MAX - 10);
	assert_memory_equal(nl - 3, "...", 3);
	assert_null(memchr(s, '\x1b', (size_t)(nl - s)));
	assert_null(memchr(s, '\t', (size_t)(nl - s)));
	assert_null(memchr(s, '\r', (size_t)(nl - s)));
	assert_non_null(strstr(s, "aaaaaaaaaa?aaaaaaaaa aaaaaaaaa?aaaaaaaaa?aaa"));
	/* A trailing newline is dropped, an inner one replaced. */
	assert_non_null(strstr(nl + 1, "] two?lines\n"));
	free(s);
	free(big);
	retire(b, false);
}

static char buf_records[4][64];
static int buf_count;

static void on_record(char *buf)
{
	if (buf_count < 4)
		snprintf(buf_records[buf_count++], sizeof(buf_records[0]), "%s", buf);
}

static void test_fd_and_buffer_backends(void **state)
{
	struct doca_log_backend *fdb, *bufb, *sdkb;
	static char buffer[40];
	FILE *f = tmpfile();
	char *s;

	(void)state;
	assert_int_equal(doca_log_backend_create_with_fd(fileno(f), &fdb), DOCA_SUCCESS);
	assert_int_equal(doca_log_backend_create_with_buf(buffer, sizeof(buffer), on_record, &bufb), DOCA_SUCCESS);
	DOCA_LOG_WARN("through a descriptor and a buffer");
	s = contents(f);
	assert_non_null(strstr(s, "through a descriptor and a buffer\n"));
	free(s);
	assert_int_equal(buf_count, 1);
	/* The record is cut to the buffer's capacity, NUL included. */
	assert_int_equal(strlen(buf_records[0]), sizeof(buffer) - 1);
	assert_int_equal(buf_records[0][0], '[');
	retire(fdb, false);
	retire(bufb, false);
	assert_int_equal(doca_log_backend_create_with_fd_sdk(fileno(f), &sdkb), DOCA_SUCCESS);
	urom_sdk_log(DOCA_LOG_LEVEL_ERROR, "TEST::SDK", "sdk through a descriptor");
	s = contents(f);
	assert_non_null(strstr(s, "sdk through a descriptor"));
	free(s);
	retire(sdkb, true);
}

static void test_invalid_arguments(void **state)
{
	struct doca_log_backend *b;
	char buffer[8];
	int x = 0;

	(void)state;
	assert_int_equal(doca_log_backend_create_with_file(NULL, &b), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_backend_create_with_file(stderr, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_backend_create_with_fd(-1, &b), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_backend_create_with_fd_sdk(-1, &b), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_backend_create_with_file_sdk(NULL, &b), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_backend_create_with_buf(buffer, 0, on_record, &b), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_backend_create_with_buf_sdk(buffer, sizeof(buffer), NULL, &b),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_backend_create_with_syslog("x", &b), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_log_backend_create_with_syslog_sdk("x", &b), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_log_backend_set_level_lower_limit(NULL, DOCA_LOG_LEVEL_INFO), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_backend_set_level_lower_limit((struct doca_log_backend *)&x, DOCA_LOG_LEVEL_INFO),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_backend_set_sdk_level(NULL, DOCA_LOG_LEVEL_INFO), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_backend_set_level_upper_limit_strict(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_true(doca_log_get_max_num_backends() >= 8);
	assert_true(doca_log_get_max_num_backends_sdk() >= 8);
}

static void test_doca_log_entry_point(void **state)
{
	struct doca_log_backend *b;
	FILE *f = tmpfile();
	int source = -1;
	char *s;

	(void)state;
	assert_int_equal(doca_log_backend_create_with_file(f, &b), DOCA_SUCCESS);
	assert_int_equal(doca_log_register_source("TEST::DIRECT", &source), DOCA_SUCCESS);
	assert_true(source >= 0);
	assert_int_equal(doca_log(DOCA_LOG_LEVEL_ERROR, source, "dir/file.c", 7, "fn", "direct %d", 3), DOCA_SUCCESS);
	assert_int_equal(doca_log(DOCA_LOG_LEVEL_ERROR, source + 1000, "f.c", 1, "fn", "x"), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log(99, source, "f.c", 1, "fn", "x"), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_register_source(NULL, &source), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_unregister_source(source), DOCA_SUCCESS);
	s = contents(f);
	assert_non_null(strstr(s, "[ERR][file.c:7][fn] direct 3\n"));
	assert_int_equal(count_lines(s), 1);
	free(s);
	retire(b, false);
}

#define THREADS 4
#define LINES_PER_THREAD 200

static void *log_lines(void *arg)
{
	int i, id = (int)(intptr_t)arg;

	for (i = 0; i < LINES_PER_THREAD; i++)
		DOCA_LOG_INFO("thread %d line %d end", id, i);
	return NULL;
}

static void test_threads_do_not_mix_lines(void **state)
{
	struct doca_log_backend *b;
	pthread_t threads[THREADS];
	FILE *f = tmpfile();
	char *s, *line;
	size_t n = 0;
	int i;

	(void)state;
	assert_int_equal(doca_log_backend_create_with_file(f, &b), DOCA_SUCCESS);
	for (i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&threads[i], NULL, log_lines, (void *)(intptr_t)i), 0);
	for (i = 0; i < THREADS; i++)
		assert_int_equal(pthread_join(threads[i], NULL), 0);
	s = contents(f);
	assert_int_equal(count_lines(s), THREADS * LINES_PER_THREAD);
	for (line = s; *line != '\0'; n++) {
		char *nl = strchr(line, '\n');

		assert_non_null(nl);
		*nl = '\0';
		assert_int_equal(count_of(line, "[DOCA]"), 1);
		assert_non_null(strstr(line, "] thread "));
		assert_int_equal(strcmp(line + strlen(line) - 4, " end"), 0);
		line = nl + 1;
	}
	assert_int_equal(n, THREADS * LINES_PER_THREAD);
	free(s);
	retire(b, false);
}

static void log_standard(void)
{
	DOCA_LOG_INFO("standard info");
	DOCA_LOG_WARN("standard warning");
	DOCA_LOG_ERR("standard error");
	DOCA_LOG_DBG("standard debug");
}

static char *standard_err;

static void log_standard_capture_err(void)
{
	standard_err = capture_fd(2, log_standard);
}

static void test_standard_backends(void **state)
{
	char *out;

	(void)state;
	assert_int_equal(doca_log_backend_create_standard(), DOCA_SUCCESS);
	out = capture_fd(1, log_standard_capture_err);
	assert_non_null(strstr(out, "standard info"));
	assert_null(strstr(out, "standard warning"));
	assert_null(strstr(out, "standard error"));
	assert_null(strstr(out, "standard debug"));
	assert_null(strstr(standard_err, "standard info"));
	assert_non_null(strstr(standard_err, "standard warning"));
	assert_non_null(strstr(standard_err, "standard error"));
	assert_null(strstr(standard_err, "standard debug"));
	free(out);
	free(standard_err);
	/* The global lower limit moves stdout's end: DEBUG shows, and stderr still takes no INFO. */
	assert_int_equal(doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_DEBUG), DOCA_SUCCESS);
	out = capture_fd(1, log_standard_capture_err);
	assert_non_null(strstr(out, "standard debug"));
	assert_null(strstr(standard_err, "standard info"));
	assert_null(strstr(standard_err, "standard debug"));
	free(out);
	free(standard_err);
	/* ERROR: stdout shows nothing, stderr only the error. */
	assert_int_equal(doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_ERROR), DOCA_SUCCESS);
	out = capture_fd(1, log_standard_capture_err);
	assert_int_equal(strlen(out), 0);
	assert_null(strstr(standard_err, "standard warning"));
	assert_non_null(strstr(standard_err, "standard error"));
	free(out);
	free(standard_err);
	/* Quiet for the rest of the run. */
	assert_int_equal(doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_DISABLE), DOCA_SUCCESS);
}

static void test_backend_table_fills(void **state)
{
	struct doca_log_backend *b;
	FILE *f = tmpfile();
	uint32_t i;
	doca_error_t r = DOCA_SUCCESS;

	(void)state;
	for (i = 0; i <= doca_log_get_max_num_backends() && r == DOCA_SUCCESS; i++)
		r = doca_log_backend_create_with_file(f, &b);
	assert_int_equal(r, DOCA_ERROR_NO_MEMORY);
	assert_int_equal(doca_log_backend_create_standard(), DOCA_ERROR_NO_MEMORY);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_errors_reach_stderr_before_any_backend),
		cmocka_unit_test(test_file_backend_gets_an_error_line),
		cmocka_unit_test(test_levels_filter),
		cmocka_unit_test(test_global_limits_and_strict),
		cmocka_unit_test(test_sdk_levels),
		cmocka_unit_test(test_long_message_is_one_bounded_line),
		cmocka_unit_test(test_fd_and_buffer_backends),
		cmocka_unit_test(test_invalid_arguments),
		cmocka_unit_test(test_doca_log_entry_point),
		cmocka_unit_test(test_threads_do_not_mix_lines),
		cmocka_unit_test(test_standard_backends),
		cmocka_unit_test(test_backend_table_fills),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
