/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libdoca_argp: params of every type through their callbacks, the built-in flags, and the errors of a
 * command line (each one line on stderr, then the usage line). -h and -v end the program, so they run
 * in a child process.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <doca_argp.h>
#include <doca_log.h>
#include <doca_version.h>

struct config {
	char text[64];
	int texts;
	int number;
	int numbers;
	bool flag;
	int values;
	bool validated;
	int dpdk_argc;
	char dpdk_last[16];
};

static struct config cfg;
static doca_error_t text_result;

static doca_error_t on_text(void *param, void *config)
{
	struct config *c = config;

	assert_ptr_equal(c, &cfg);
	snprintf(c->text, sizeof(c->text), "%s", (const char *)param);
	c->texts++;
	return text_result;
}

static doca_error_t on_number(void *param, void *config)
{
	((struct config *)config)->number = *(int *)param;
	((struct config *)config)->numbers++;
	return DOCA_SUCCESS;
}

static doca_error_t on_flag(void *param, void *config)
{
	((struct config *)config)->flag = *(bool *)param;
	return DOCA_SUCCESS;
}

static doca_error_t on_value(void *param, void *config)
{
	(void)param;
	((struct config *)config)->values++;
	return DOCA_SUCCESS;
}

static doca_error_t on_validate(void *config)
{
	((struct config *)config)->validated = true;
	return ((struct config *)config)->number == 13 ? DOCA_ERROR_BAD_CONFIG : DOCA_SUCCESS;
}

static doca_error_t on_version(void *param, void *config)
{
	(void)param;
	(void)config;
	printf("custom version 9\n");
	return DOCA_SUCCESS;
}

static doca_error_t on_dpdk(int argc, char **argv)
{
	cfg.dpdk_argc = argc;
	snprintf(cfg.dpdk_last, sizeof(cfg.dpdk_last), "%s", argv[argc - 1]);
	return DOCA_SUCCESS;
}

static struct doca_argp_param *param(const char *short_name, const char *long_name, const char *arguments,
				     enum doca_argp_type type, doca_argp_param_cb_t cb)
{
	struct doca_argp_param *p;

	assert_int_equal(doca_argp_param_create(&p), DOCA_SUCCESS);
	if (short_name != NULL)
		doca_argp_param_set_short_name(p, short_name);
	if (long_name != NULL)
		doca_argp_param_set_long_name(p, long_name);
	if (arguments != NULL)
		doca_argp_param_set_arguments(p, arguments);
	doca_argp_param_set_description(p, "A param of the test.");
	doca_argp_param_set_callback(p, cb);
	doca_argp_param_set_type(p, type);
	return p;
}

/* -s/--text STRING, -n/--number INT, -b/--flag BOOLEAN, --object JSON_OBJ, -m/--many STRING (multiple). */
static int setup(void **state)
{
	struct doca_argp_param *many;

	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	text_result = DOCA_SUCCESS;
	assert_int_equal(doca_argp_init("tester", &cfg), DOCA_SUCCESS);
	assert_int_equal(doca_argp_register_param(param("s", "text", "<text>", DOCA_ARGP_TYPE_STRING, on_text)),
			 DOCA_SUCCESS);
	assert_int_equal(doca_argp_register_param(param("n", "number", "<n>", DOCA_ARGP_TYPE_INT, on_number)),
			 DOCA_SUCCESS);
	assert_int_equal(doca_argp_register_param(param("b", "flag", NULL, DOCA_ARGP_TYPE_BOOLEAN, on_flag)),
			 DOCA_SUCCESS);
	assert_int_equal(doca_argp_register_param(param(NULL, "object", "<json>", DOCA_ARGP_TYPE_JSON_OBJ, on_value)),
			 DOCA_SUCCESS);
	many = param("m", "many", "<v>", DOCA_ARGP_TYPE_STRING, on_value);
	doca_argp_param_set_multiplicity(many);
	assert_int_equal(doca_argp_register_param(many), DOCA_SUCCESS);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	assert_int_equal(doca_argp_destroy(), DOCA_SUCCESS);
	return 0;
}

#define ARGC(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Runs doca_argp_start() with stderr going to a temporary file; returns its result and what it wrote. */
static doca_error_t start_capturing(int argc, char **argv, char *err, size_t cap)
{
	FILE *tmp = tmpfile();
	doca_error_t result;
	size_t n;
	int saved;

	assert_non_null(tmp);
	fflush(stderr);
	saved = dup(2);
	assert_true(saved >= 0);
	assert_true(dup2(fileno(tmp), 2) >= 0);
	result = doca_argp_start(argc, argv);
	fflush(stderr);
	assert_true(dup2(saved, 2) >= 0);
	close(saved);
	rewind(tmp);
	n = fread(err, 1, cap - 1, tmp);
	err[n] = '\0';
	fclose(tmp);
	return result;
}

static size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; *s != '\0'; s++)
		n += *s == '\n';
	return n;
}

static void test_every_type(void **state)
{
	char *argv[] = {"./tester", "-s", "hello", "--number=42", "-b", "--many", "x", "-m", "y", "-my"};

	(void)state;
	assert_int_equal(doca_argp_start(ARGC(argv), argv), DOCA_SUCCESS);
	assert_string_equal(cfg.text, "hello");
	assert_int_equal(cfg.number, 42);
	assert_true(cfg.flag);
	assert_int_equal(cfg.values, 3);
}

static void test_long_and_attached_forms(void **state)
{
	char *argv[] = {"tester", "--text", "long form", "-n", "-7", "--flag"};
	char *argv2[] = {"tester", "-sattached", "--text=eq=sign"};

	(void)state;
	assert_int_equal(doca_argp_start(ARGC(argv), argv), DOCA_SUCCESS);
	assert_string_equal(cfg.text, "long form");
	assert_int_equal(cfg.number, -7);
	assert_true(cfg.flag);
	/* Each start parses anew: "given twice" counts within one command line. */
	cfg.texts = 0;
	assert_int_equal(doca_argp_start(ARGC(argv2), argv2), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(cfg.texts, 1);
	assert_string_equal(cfg.text, "attached");
}

static void test_log_levels(void **state)
{
	char *argv[] = {"tester", "-l", "60", "--sdk-log-level", "30"};
	uint32_t lower = doca_log_level_get_global_lower_limit(), sdk = doca_log_level_get_global_sdk_limit();
	int level = 0;

	(void)state;
	assert_int_equal(doca_argp_get_log_level(&level), DOCA_SUCCESS);
	assert_int_equal(level, (int)lower);
	assert_int_equal(doca_argp_start(ARGC(argv), argv), DOCA_SUCCESS);
	assert_int_equal(doca_log_level_get_global_lower_limit(), DOCA_LOG_LEVEL_DEBUG);
	assert_int_equal(doca_log_level_get_global_sdk_limit(), DOCA_LOG_LEVEL_ERROR);
	assert_int_equal(doca_argp_get_log_level(&level), DOCA_SUCCESS);
	assert_int_equal(level, 60);
	assert_int_equal(doca_argp_get_sdk_log_level(&level), DOCA_SUCCESS);
	assert_int_equal(level, 30);
	assert_int_equal(doca_argp_get_log_level(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_level_set_global_lower_limit(lower), DOCA_SUCCESS);
	assert_int_equal(doca_log_level_set_global_sdk_limit(sdk), DOCA_SUCCESS);
}

static void test_bad_log_level(void **state)
{
	char *argv[] = {"tester", "--log-level", "99"};
	char err[1024];

	(void)state;
	assert_int_equal(start_capturing(ARGC(argv), argv, err, sizeof(err)), DOCA_ERROR_INVALID_VALUE);
	assert_non_null(strstr(err, "tester: option --log-level: '99' is not a log level"));
	assert_int_equal(count_lines(err), 2);
}

static void test_unknown_option(void **state)
{
	char *argv[] = {"tester", "-s", "a", "--nope", "-n", "1"};
	char err[1024];

	(void)state;
	assert_int_equal(start_capturing(ARGC(argv), argv, err, sizeof(err)), DOCA_ERROR_INVALID_VALUE);
	assert_non_null(strstr(err, "tester: unknown option '--nope'\n"));
	assert_non_null(strstr(err, "Usage: tester [DOCA flags] [program flags]"));
	assert_int_equal(count_lines(err), 2);
	/* Parsing stopped there. */
	assert_int_equal(cfg.numbers, 0);
}

static void test_unknown_short_option(void **state)
{
	char *argv[] = {"tester", "-q"};
	char *argv2[] = {"tester", "-bextra"};
	char err[1024];

	(void)state;
	assert_int_equal(start_capturing(ARGC(argv), argv, err, sizeof(err)), DOCA_ERROR_INVALID_VALUE);
	assert_non_null(strstr(err, "unknown option '-q'"));
	/* A flag takes no attached value. */
	assert_int_equal(start_capturing(ARGC(argv2), argv2, err, sizeof(err)), DOCA_ERROR_INVALID_VALUE);
	assert_non_null(strstr(err, "unknown option '-bextra'"));
}

static void test_missing_argument(void **state)
{
	char *argv[] = {"tester", "-b", "-s"};
	char *argv2[] = {"tester", "--flag=1"};
	char err[1024];

	(void)state;
	assert_int_equal(start_capturing(ARGC(argv), argv, err, sizeof(err)), DOCA_ERROR_INVALID_VALUE);
	assert_non_null(strstr(err, "tester: option -s needs an argument <text>\n"));
	assert_int_equal(count_lines(err), 2);
	assert_int_equal(cfg.texts, 0);
	assert_int_equal(start_capturing(ARGC(argv2), argv2, err, sizeof(err)), DOCA_ERROR_INVALID_VALUE);
	assert_non_null(strstr(err, "option --flag takes no argument"));
}

static void test_bad_integer(void **state)
{
	char *argv[] = {"tester", "--number", "12x"};
	char *argv2[] = {"tester", "-n", "99999999999"};
	char err[1024];

	(void)state;
	assert_int_equal(start_capturing(ARGC(argv), argv, err, sizeof(err)), DOCA_ERROR_INVALID_VALUE);
	assert_non_null(strstr(err, "option --number: '12x' is not an integer"));
	assert_int_equal(start_capturing(ARGC(argv2), argv2, err, sizeof(err)), DOCA_ERROR_INVALID_VALUE);
	assert_non_null(strstr(err, "option -n: '99999999999' is not an integer"));
	assert_int_equal(cfg.numbers, 0);
}

static void test_given_twice(void **state)
{
	char *argv[] = {"tester", "-s", "a", "--text", "b"};
	char err[1024];

	(void)state;
	assert_int_equal(start_capturing(ARGC(argv), argv, err, sizeof(err)), DOCA_ERROR_INVALID_VALUE);
	assert_non_null(strstr(err, "option --text: given more than once"));
	assert_string_equal(cfg.text, "a");
}

static void test_positional_argument(void **state)
{
	char *argv[] = {"tester", "stray"};
	char *argv2[] = {"tester", "--", "after"};
	char err[1024];

	(void)state;
	assert_int_equal(start_capturing(ARGC(argv), argv, err, sizeof(err)), DOCA_ERROR_INVALID_VALUE);
	assert_non_null(strstr(err, "unexpected argument 'stray'"));
	assert_int_equal(start_capturing(ARGC(argv2), argv2, err, sizeof(err)), DOCA_ERROR_INVALID_VALUE);
	assert_non_null(strstr(err, "unexpected argument 'after' after --"));
}

static void test_json(void **state)
{
	char *argv[] = {"tester", "-j", "config.json"};
	char *argv2[] = {"tester", "--object", "{}"};
	char err[1024];

	(void)state;
	assert_int_equal(start_capturing(ARGC(argv), argv, err, sizeof(err)), DOCA_ERROR_NOT_SUPPORTED);
	assert_non_null(strstr(err, "option -j: JSON configuration files are not supported"));
	assert_int_equal(count_lines(err), 1);
	assert_int_equal(start_capturing(ARGC(argv2), argv2, err, sizeof(err)), DOCA_ERROR_NOT_SUPPORTED);
	assert_non_null(strstr(err, "option --object takes a JSON object"));
	assert_int_equal(cfg.values, 0);
}

static void test_callback_error_is_returned(void **state)
{
	char *argv[] = {"tester", "-s", "refused"};
	char err[1024];

	(void)state;
	text_result = DOCA_ERROR_NOT_FOUND;
	assert_int_equal(start_capturing(ARGC(argv), argv, err, sizeof(err)), DOCA_ERROR_NOT_FOUND);
	assert_non_null(strstr(err, "option -s: the program refused 'refused'"));
}

static void test_mandatory_and_validation(void **state)
{
	struct doca_argp_param *p = param("r", "required", "<x>", DOCA_ARGP_TYPE_STRING, on_value);
	char *argv[] = {"tester", "-n", "3"};
	char *argv2[] = {"tester", "-r", "x", "-n", "3"};
	char *argv3[] = {"tester", "-r", "x", "-n", "13"};
	char err[1024];

	(void)state;
	doca_argp_param_set_mandatory(p);
	assert_int_equal(doca_argp_register_param(p), DOCA_SUCCESS);
	assert_int_equal(doca_argp_register_validation_callback(on_validate), DOCA_SUCCESS);
	assert_int_equal(start_capturing(ARGC(argv), argv, err, sizeof(err)), DOCA_ERROR_INVALID_VALUE);
	assert_non_null(strstr(err, "option --required is mandatory"));
	assert_false(cfg.validated);
	assert_int_equal(doca_argp_start(ARGC(argv2), argv2), DOCA_SUCCESS);
	assert_true(cfg.validated);
	assert_int_equal(start_capturing(ARGC(argv3), argv3, err, sizeof(err)), DOCA_ERROR_BAD_CONFIG);
}

static void test_dpdk_arguments(void **state)
{
	char *argv[] = {"tester", "-b", "--", "-a", "0000:03:00.0"};

	(void)state;
	doca_argp_set_dpdk_program(on_dpdk);
	assert_int_equal(doca_argp_start(ARGC(argv), argv), DOCA_SUCCESS);
	assert_int_equal(cfg.dpdk_argc, 3);
	assert_string_equal(cfg.dpdk_last, "0000:03:00.0");
	assert_string_equal(argv[2], "--");
}

static void test_registration_errors(void **state)
{
	struct doca_argp_param *p;
	char *argv[] = {"tester"};

	(void)state;
	assert_int_equal(doca_argp_init("again", &cfg), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_argp_register_param(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_argp_param_create(NULL), DOCA_ERROR_INVALID_VALUE);
	/* Missing description. */
	assert_int_equal(doca_argp_param_create(&p), DOCA_SUCCESS);
	doca_argp_param_set_long_name(p, "nodescription");
	doca_argp_param_set_callback(p, on_value);
	doca_argp_param_set_type(p, DOCA_ARGP_TYPE_STRING);
	assert_int_equal(doca_argp_register_param(p), DOCA_ERROR_INITIALIZATION);
	/* No name, no type. */
	p = param(NULL, NULL, NULL, DOCA_ARGP_TYPE_STRING, on_value);
	assert_int_equal(doca_argp_register_param(p), DOCA_ERROR_INITIALIZATION);
	p = param("z", NULL, NULL, DOCA_ARGP_TYPE_UNKNOWN, on_value);
	assert_int_equal(doca_argp_register_param(p), DOCA_ERROR_INITIALIZATION);
	/* Names taken, by a param or a built-in flag. */
	assert_int_equal(doca_argp_register_param(param("s", NULL, NULL, DOCA_ARGP_TYPE_STRING, on_value)),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_argp_register_param(param(NULL, "help", NULL, DOCA_ARGP_TYPE_BOOLEAN, on_value)),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_argp_register_param(param("l", NULL, NULL, DOCA_ARGP_TYPE_INT, on_value)),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_argp_register_param(param(NULL, "bad name", NULL, DOCA_ARGP_TYPE_INT, on_value)),
			 DOCA_ERROR_INVALID_VALUE);
	/* An unregistered param may be destroyed; a registered one is the parser's. */
	p = param("u", NULL, NULL, DOCA_ARGP_TYPE_STRING, on_value);
	assert_int_equal(doca_argp_param_destroy(p), DOCA_SUCCESS);
	p = param("w", NULL, NULL, DOCA_ARGP_TYPE_STRING, on_value);
	assert_int_equal(doca_argp_register_param(p), DOCA_SUCCESS);
	assert_int_equal(doca_argp_param_destroy(p), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_argp_register_param(p), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_argp_param_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_argp_register_version_callback(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_argp_start(0, argv), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_argp_start(1, NULL), DOCA_ERROR_INVALID_VALUE);
	/* Setters on NULL are ignored. */
	doca_argp_param_set_short_name(NULL, "x");
	doca_argp_param_set_mandatory(NULL);
}

static void test_not_initialized(void **state)
{
	struct doca_argp_param *p;
	char *argv[] = {"tester"};

	(void)state;
	assert_int_equal(doca_argp_destroy(), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_argp_start(1, argv), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_argp_register_validation_callback(on_validate), DOCA_ERROR_BAD_STATE);
	/* The parser takes the param over even when it refuses it (the leak checker would say otherwise). */
	p = param("x", "xx", NULL, DOCA_ARGP_TYPE_STRING, on_value);
	assert_int_equal(doca_argp_register_param(p), DOCA_ERROR_BAD_STATE);
	/* The program's name comes from argv[0] when init has none. */
	assert_int_equal(doca_argp_init(NULL, &cfg), DOCA_SUCCESS);
	{
		char *argv2[] = {"/some/dir/prog_name", "--what"};
		char err[1024];

		assert_int_equal(start_capturing(ARGC(argv2), argv2, err, sizeof(err)), DOCA_ERROR_INVALID_VALUE);
		assert_non_null(strstr(err, "prog_name: unknown option '--what'"));
		assert_null(strstr(err, "/some/dir"));
	}
	assert_int_equal(doca_argp_destroy(), DOCA_SUCCESS);
}

/* Runs doca_argp_start(argv) in a child; returns its exit status and its stdout. */
static int run_child(char **argv, int argc, char *out, size_t cap)
{
	int fds[2], status = -1;
	size_t n = 0;
	ssize_t r;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		(void)doca_argp_start(argc, argv);
		/* Not reached when the flag ends the program, as it must. */
		_exit(99);
	}
	close(fds[1]);
	while (n + 1 < cap && (r = read(fds[0], out + n, cap - 1 - n)) > 0)
		n += (size_t)r;
	out[n] = '\0';
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return status;
}

static void test_help_exits_zero(void **state)
{
	char *argv[] = {"tester", "-n", "5", "--help"};
	char out[8192];
	int status;

	(void)state;
	status = run_child(argv, ARGC(argv), out, sizeof(out));
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_non_null(strstr(out, "Usage: tester [DOCA flags] [program flags]"));
	assert_non_null(strstr(out, "-h, --help"));
	assert_non_null(strstr(out, "-l, --log-level <level>"));
	assert_non_null(strstr(out, "--sdk-log-level <level>"));
	assert_non_null(strstr(out, "-s, --text <text>"));
	assert_non_null(strstr(out, "--object <json>"));
	assert_non_null(strstr(out, "A param of the test."));
}

static void test_version_exits_zero(void **state)
{
	char *argv[] = {"tester", "-v"};
	char out[1024];
	int status;

	(void)state;
	status = run_child(argv, ARGC(argv), out, sizeof(out));
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_string_equal(out, "tester: DOCA " DOCA_VERSION_STRING "\n");
	assert_int_equal(doca_argp_register_version_callback(on_version), DOCA_SUCCESS);
	status = run_child(argv, ARGC(argv), out, sizeof(out));
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_string_equal(out, "custom version 9\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_every_type, setup, teardown),
		cmocka_unit_test_setup_teardown(test_long_and_attached_forms, setup, teardown),
		cmocka_unit_test_setup_teardown(test_log_levels, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_log_level, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_option, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_short_option, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_argument, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_integer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_given_twice, setup, teardown),
		cmocka_unit_test_setup_teardown(test_positional_argument, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json, setup, teardown),
		cmocka_unit_test_setup_teardown(test_callback_error_is_returned, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mandatory_and_validation, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dpdk_arguments, setup, teardown),
		cmocka_unit_test_setup_teardown(test_registration_errors, setup, teardown),
		cmocka_unit_test(test_not_initialized),
		cmocka_unit_test_setup_teardown(test_help_exits_zero, setup, teardown),
		cmocka_unit_test_setup_teardown(test_version_exits_zero, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
