/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libdoca_argp: DOCA's command-line parser (doca_argp.h states the contract).
 *
 * The parser's state is one process-wide instance under a recursive lock: a program sets it up and
 * parses from its main thread, but nothing breaks if another thread calls in meanwhile. Params are
 * kept in registration order, built-in flags first, which is also the order of the usage text.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doca_argp.h>
#include <doca_log.h>
#include <doca_version.h>

#define ARGP_NAME_MAX 64
#define ARGP_TEXT_MAX 1024

enum builtin { BUILTIN_NONE, BUILTIN_HELP, BUILTIN_VERSION, BUILTIN_LOG_LEVEL, BUILTIN_SDK_LOG_LEVEL, BUILTIN_JSON };

struct doca_argp_param {
	char *short_name;
	char *long_name;
	char *arguments;
	char *description;
	doca_argp_param_cb_t callback;
	enum doca_argp_type type;
	bool mandatory;
	bool multiple;
	bool registered;
	/* A setter could not copy its string: registering fails with NO_MEMORY. */
	bool broken;
	enum builtin builtin;
	/* Seen during the current doca_argp_start(). */
	bool seen;
	struct doca_argp_param *next;
};

static pthread_mutex_t argp_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static struct {
	bool initialized;
	char *program_name;
	void *config;
	struct doca_argp_param *params;
	doca_argp_param_cb_t version_cb;
	doca_argp_validation_cb_t validation_cb;
	doca_argp_dpdk_cb_t dpdk_cb;
	int log_level;
	int sdk_log_level;
	bool log_level_set;
	bool sdk_log_level_set;
} argp;

static void param_free(struct doca_argp_param *p)
{
	if (p == NULL)
		return;
	free(p->short_name);
	free(p->long_name);
	free(p->arguments);
	free(p->description);
	free(p);
}

static void set_text(struct doca_argp_param *p, char **slot, const char *text, size_t max)
{
	char *copy = NULL;

	if (p == NULL)
		return;
	if (text != NULL) {
		copy = strndup(text, max);
		if (copy == NULL)
			p->broken = true;
	}
	free(*slot);
	*slot = copy;
}

DOCA_EXPERIMENTAL doca_error_t doca_argp_param_create(struct doca_argp_param **param)
{
	if (param == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*param = calloc(1, sizeof(**param));
	return *param != NULL ? DOCA_SUCCESS : DOCA_ERROR_NO_MEMORY;
}

DOCA_EXPERIMENTAL void doca_argp_param_set_short_name(struct doca_argp_param *param, const char *name)
{
	if (param != NULL)
		set_text(param, &param->short_name, name, ARGP_NAME_MAX);
}

DOCA_EXPERIMENTAL void doca_argp_param_set_long_name(struct doca_argp_param *param, const char *name)
{
	if (param != NULL)
		set_text(param, &param->long_name, name, ARGP_NAME_MAX);
}

DOCA_EXPERIMENTAL void doca_argp_param_set_arguments(struct doca_argp_param *param, const char *arguments)
{
	if (param != NULL)
		set_text(param, &param->arguments, arguments, ARGP_NAME_MAX);
}

DOCA_EXPERIMENTAL void doca_argp_param_set_description(struct doca_argp_param *param, const char *description)
{
	if (param != NULL)
		set_text(param, &param->description, description, ARGP_TEXT_MAX);
}

DOCA_EXPERIMENTAL void doca_argp_param_set_callback(struct doca_argp_param *param, doca_argp_param_cb_t callback)
{
	if (param != NULL)
		param->callback = callback;
}

DOCA_EXPERIMENTAL void doca_argp_param_set_type(struct doca_argp_param *param, enum doca_argp_type type)
{
	if (param != NULL)
		param->type = type;
}

DOCA_EXPERIMENTAL void doca_argp_param_set_mandatory(struct doca_argp_param *param)
{
	if (param != NULL)
		param->mandatory = true;
}

DOCA_EXPERIMENTAL void doca_argp_param_set_cli_only(struct doca_argp_param *param)
{
	(void)param;
}

DOCA_EXPERIMENTAL void doca_argp_param_set_multiplicity(struct doca_argp_param *param)
{
	if (param != NULL)
		param->multiple = true;
}

DOCA_EXPERIMENTAL doca_error_t doca_argp_param_destroy(struct doca_argp_param *param)
{
	if (param == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (param->registered)
		return DOCA_ERROR_BAD_STATE;
	param_free(param);
	return DOCA_SUCCESS;
}

/* ---- registration ---- */

static struct doca_argp_param *find_short(const char *name)
{
	struct doca_argp_param *p;

	for (p = argp.params; p != NULL; p = p->next)
		if (p->short_name != NULL && strcmp(p->short_name, name) == 0)
			return p;
	return NULL;
}

static struct doca_argp_param *find_long(const char *name, size_t len)
{
	struct doca_argp_param *p;

	for (p = argp.params; p != NULL; p = p->next)
		if (p->long_name != NULL && strlen(p->long_name) == len && strncmp(p->long_name, name, len) == 0)
			return p;
	return NULL;
}

static bool name_ok(const char *name)
{
	size_t i;

	if (name == NULL)
		return true;
	if (name[0] == '\0' || name[0] == '-')
		return false;
	for (i = 0; name[i] != '\0'; i++)
		if (name[i] == '=' || name[i] == ' ' || (unsigned char)name[i] < 0x21)
			return false;
	return true;
}

static void append_param(struct doca_argp_param *param)
{
	struct doca_argp_param **link;

	for (link = &argp.params; *link != NULL; link = &(*link)->next)
		;
	param->next = NULL;
	param->registered = true;
	*link = param;
}

DOCA_EXPERIMENTAL doca_error_t doca_argp_register_param(struct doca_argp_param *input_param)
{
	doca_error_t result = DOCA_SUCCESS;

	if (input_param == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&argp_lock);
	if (input_param->registered) {
		/* The parser owns it already: nothing to free. */
		pthread_mutex_unlock(&argp_lock);
		return DOCA_ERROR_BAD_STATE;
	}
	if (!argp.initialized)
		result = DOCA_ERROR_BAD_STATE;
	else if (input_param->broken)
		result = DOCA_ERROR_NO_MEMORY;
	else if ((input_param->short_name == NULL && input_param->long_name == NULL) ||
		 input_param->description == NULL || input_param->callback == NULL ||
		 input_param->type == DOCA_ARGP_TYPE_UNKNOWN)
		result = DOCA_ERROR_INITIALIZATION;
	else if (input_param->type > DOCA_ARGP_TYPE_JSON_OBJ || !name_ok(input_param->short_name) ||
		 !name_ok(input_param->long_name) ||
		 (input_param->short_name != NULL && find_short(input_param->short_name) != NULL) ||
		 (input_param->long_name != NULL &&
		  find_long(input_param->long_name, strlen(input_param->long_name)) != NULL))
		result = DOCA_ERROR_INVALID_VALUE;
	if (result == DOCA_SUCCESS)
		append_param(input_param);
	else
		param_free(input_param);
	pthread_mutex_unlock(&argp_lock);
	return result;
}

static doca_error_t add_builtin(enum builtin which, const char *short_name, const char *long_name,
				const char *arguments, const char *description, enum doca_argp_type type)
{
	struct doca_argp_param *p = calloc(1, sizeof(*p));

	if (p == NULL)
		return DOCA_ERROR_NO_MEMORY;
	p->builtin = which;
	p->type = type;
	p->multiple = true;
	set_text(p, &p->short_name, short_name, ARGP_NAME_MAX);
	set_text(p, &p->long_name, long_name, ARGP_NAME_MAX);
	set_text(p, &p->arguments, arguments, ARGP_NAME_MAX);
	set_text(p, &p->description, description, ARGP_TEXT_MAX);
	if (p->broken) {
		param_free(p);
		return DOCA_ERROR_NO_MEMORY;
	}
	append_param(p);
	return DOCA_SUCCESS;
}

static void free_all(void)
{
	struct doca_argp_param *p = argp.params;

	while (p != NULL) {
		struct doca_argp_param *next = p->next;

		param_free(p);
		p = next;
	}
	free(argp.program_name);
	memset(&argp, 0, sizeof(argp));
}

DOCA_EXPERIMENTAL doca_error_t doca_argp_init(const char *program_name, void *program_config)
{
	doca_error_t result = DOCA_SUCCESS;

	pthread_mutex_lock(&argp_lock);
	if (argp.initialized) {
		pthread_mutex_unlock(&argp_lock);
		return DOCA_ERROR_BAD_STATE;
	}
	memset(&argp, 0, sizeof(argp));
	argp.initialized = true;
	argp.config = program_config;
	if (program_name != NULL) {
		argp.program_name = strndup(program_name, ARGP_NAME_MAX);
		if (argp.program_name == NULL)
			result = DOCA_ERROR_NO_MEMORY;
	}
	if (result == DOCA_SUCCESS)
		result = add_builtin(BUILTIN_HELP, "h", "help", NULL, "Print a help synopsis and exit",
				     DOCA_ARGP_TYPE_BOOLEAN);
	if (result == DOCA_SUCCESS)
		result = add_builtin(BUILTIN_VERSION, "v", "version", NULL, "Print the program's version and exit",
				     DOCA_ARGP_TYPE_BOOLEAN);
	if (result == DOCA_SUCCESS)
		result = add_builtin(BUILTIN_LOG_LEVEL, "l", "log-level", "<level>",
				     "The program's log level: 10 disable, 20 critical, 30 error, 40 warning, 50 info, "
				     "60 debug, 70 trace",
				     DOCA_ARGP_TYPE_INT);
	if (result == DOCA_SUCCESS)
		result = add_builtin(BUILTIN_SDK_LOG_LEVEL, NULL, "sdk-log-level", "<level>",
				     "The log level of the DOCA libraries' own messages (same numbers)",
				     DOCA_ARGP_TYPE_INT);
	if (result == DOCA_SUCCESS)
		result = add_builtin(BUILTIN_JSON, "j", "json", "<path>",
				     "Read the flags from a JSON file (not supported by this library)",
				     DOCA_ARGP_TYPE_STRING);
	if (result != DOCA_SUCCESS)
		free_all();
	pthread_mutex_unlock(&argp_lock);
	return result;
}

DOCA_EXPERIMENTAL doca_error_t doca_argp_destroy(void)
{
	doca_error_t result = DOCA_SUCCESS;

	pthread_mutex_lock(&argp_lock);
	if (!argp.initialized)
		result = DOCA_ERROR_BAD_STATE;
	else
		free_all();
	pthread_mutex_unlock(&argp_lock);
	return result;
}

DOCA_EXPERIMENTAL doca_error_t doca_argp_register_version_callback(doca_argp_param_cb_t callback)
{
	doca_error_t result = DOCA_SUCCESS;

	if (callback == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&argp_lock);
	if (!argp.initialized)
		result = DOCA_ERROR_BAD_STATE;
	else
		argp.version_cb = callback;
	pthread_mutex_unlock(&argp_lock);
	return result;
}

DOCA_EXPERIMENTAL doca_error_t doca_argp_register_validation_callback(doca_argp_validation_cb_t callback)
{
	doca_error_t result = DOCA_SUCCESS;

	if (callback == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&argp_lock);
	if (!argp.initialized)
		result = DOCA_ERROR_BAD_STATE;
	else
		argp.validation_cb = callback;
	pthread_mutex_unlock(&argp_lock);
	return result;
}

DOCA_EXPERIMENTAL void doca_argp_set_dpdk_program(doca_argp_dpdk_cb_t callback)
{
	pthread_mutex_lock(&argp_lock);
	if (argp.initialized)
		argp.dpdk_cb = callback;
	pthread_mutex_unlock(&argp_lock);
}

DOCA_EXPERIMENTAL doca_error_t doca_argp_get_log_level(int *log_level)
{
	if (log_level == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&argp_lock);
	*log_level = argp.log_level_set ? argp.log_level : (int)doca_log_level_get_global_lower_limit();
	pthread_mutex_unlock(&argp_lock);
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t doca_argp_get_sdk_log_level(int *log_level)
{
	if (log_level == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&argp_lock);
	*log_level = argp.sdk_log_level_set ? argp.sdk_log_level : (int)doca_log_level_get_global_sdk_limit();
	pthread_mutex_unlock(&argp_lock);
	return DOCA_SUCCESS;
}

/* ---- usage ---- */

static const char *program(void)
{
	return argp.program_name != NULL ? argp.program_name : "program";
}

static void print_param(FILE *out, const struct doca_argp_param *p)
{
	char flags[3 * ARGP_NAME_MAX + 16];

	snprintf(flags, sizeof(flags), "%s%s%s%s%s%s%s", p->short_name != NULL ? "-" : "",
		 p->short_name != NULL ? p->short_name : "", p->short_name != NULL && p->long_name != NULL ? ", " : "",
		 p->long_name != NULL ? "--" : "", p->long_name != NULL ? p->long_name : "",
		 p->arguments != NULL ? " " : "", p->arguments != NULL ? p->arguments : "");
	fprintf(out, "  %-36s %s%s\n", flags, p->description != NULL ? p->description : "",
		p->mandatory ? " (mandatory)" : "");
}

static void print_usage(FILE *out)
{
	const struct doca_argp_param *p;
	bool any = false;

	fprintf(out, "Usage: %s [DOCA flags] [program flags]\n\nDOCA flags:\n", program());
	for (p = argp.params; p != NULL; p = p->next)
		if (p->builtin != BUILTIN_NONE)
			print_param(out, p);
	for (p = argp.params; p != NULL; p = p->next) {
		if (p->builtin != BUILTIN_NONE)
			continue;
		if (!any)
			fprintf(out, "\nProgram flags:\n");
		any = true;
		print_param(out, p);
	}
	fflush(out);
}

DOCA_EXPERIMENTAL void doca_argp_usage(void)
{
	pthread_mutex_lock(&argp_lock);
	print_usage(stdout);
	pthread_mutex_unlock(&argp_lock);
	exit(EXIT_SUCCESS);
}

/* One line naming the option and the reason, and the short usage line, on stderr. */
__attribute__((format(printf, 1, 2))) static doca_error_t cli_error(const char *fmt, ...)
{
	char reason[512];
	va_list ap;
	size_t i;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	for (i = 0; reason[i] != '\0'; i++)
		if ((unsigned char)reason[i] < 0x20 || reason[i] == 0x7f)
			reason[i] = '?';
	fprintf(stderr, "%s: %s\n", program(), reason);
	fprintf(stderr, "Usage: %s [DOCA flags] [program flags]; '%s --help' lists them\n", program(), program());
	fflush(stderr);
	return DOCA_ERROR_INVALID_VALUE;
}

/* ---- parsing ---- */

/* "-x" or "--name", as the user wrote it, for messages. */
static void option_label(const struct doca_argp_param *p, bool as_long, char *out, size_t cap)
{
	if (as_long || p->short_name == NULL)
		snprintf(out, cap, "--%s", p->long_name);
	else
		snprintf(out, cap, "-%s", p->short_name);
}

static bool parse_int(const char *text, int *value)
{
	char *end;
	long v;

	if (text == NULL)
		return false;
	errno = 0;
	v = strtol(text, &end, 10);
	if (errno != 0 || end == text || *end != '\0' || v < INT_MIN || v > INT_MAX)
		return false;
	*value = (int)v;
	return true;
}

static doca_error_t apply_builtin(const struct doca_argp_param *p, const char *label, const char *value)
{
	int level = 0;

	switch (p->builtin) {
	case BUILTIN_HELP:
		print_usage(stdout);
		free_all();
		exit(EXIT_SUCCESS);
	case BUILTIN_VERSION:
		if (argp.version_cb != NULL) {
			doca_error_t result = argp.version_cb(NULL, argp.config);

			if (result != DOCA_SUCCESS)
				return result;
		} else {
			printf("%s: DOCA %s\n", program(), doca_version_runtime());
			fflush(stdout);
		}
		free_all();
		exit(EXIT_SUCCESS);
	case BUILTIN_LOG_LEVEL:
	case BUILTIN_SDK_LOG_LEVEL:
		if (!parse_int(value, &level) || level < DOCA_LOG_LEVEL_DISABLE || level > DOCA_LOG_LEVEL_TRACE ||
		    level % 10 != 0)
			return cli_error("option %s: '%.64s' is not a log level (10, 20, ... 70)", label, value);
		if (p->builtin == BUILTIN_LOG_LEVEL) {
			(void)doca_log_level_set_global_lower_limit((uint32_t)level);
			argp.log_level = level;
			argp.log_level_set = true;
		} else {
			(void)doca_log_level_set_global_sdk_limit((uint32_t)level);
			argp.sdk_log_level = level;
			argp.sdk_log_level_set = true;
		}
		return DOCA_SUCCESS;
	case BUILTIN_JSON:
		fprintf(stderr,
			"%s: option %s: JSON configuration files are not supported by this library; give the "
			"flags on the command line\n",
			program(), label);
		fflush(stderr);
		return DOCA_ERROR_NOT_SUPPORTED;
	case BUILTIN_NONE:
		break;
	}
	return DOCA_SUCCESS;
}

static doca_error_t apply(struct doca_argp_param *p, const char *label, const char *value)
{
	doca_error_t result;
	bool flag = true;
	int number;

	if (p->seen && !p->multiple)
		return cli_error("option %s: given more than once", label);
	p->seen = true;
	if (p->builtin != BUILTIN_NONE)
		return apply_builtin(p, label, value);
	switch (p->type) {
	case DOCA_ARGP_TYPE_STRING:
		result = p->callback((void *)value, argp.config);
		break;
	case DOCA_ARGP_TYPE_INT:
		if (!parse_int(value, &number))
			return cli_error("option %s: '%.64s' is not an integer", label, value);
		result = p->callback(&number, argp.config);
		break;
	case DOCA_ARGP_TYPE_BOOLEAN:
		result = p->callback(&flag, argp.config);
		break;
	default:
		fprintf(stderr,
			"%s: option %s takes a JSON object, which only a JSON configuration file can give, and "
			"those are not supported by this library\n",
			program(), label);
		fflush(stderr);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	if (result != DOCA_SUCCESS) {
		fprintf(stderr, "%s: option %s: the program refused '%.64s': %s\n", program(), label,
			p->type == DOCA_ARGP_TYPE_BOOLEAN ? "true" : value, doca_error_get_name(result));
		fflush(stderr);
	}
	return result;
}

static bool takes_value(const struct doca_argp_param *p)
{
	return p->type != DOCA_ARGP_TYPE_BOOLEAN;
}

static doca_error_t parse(int argc, char **argv)
{
	struct doca_argp_param *p;
	doca_error_t result;
	int i;

	for (i = 1; i < argc; i++) {
		const char *arg = argv[i], *value = NULL;
		char label[ARGP_NAME_MAX + 4];
		bool as_long;

		if (arg == NULL)
			break;
		if (strcmp(arg, "--") == 0) {
			if (argp.dpdk_cb == NULL) {
				if (i + 1 < argc)
					return cli_error("unexpected argument '%.64s' after --", argv[i + 1]);
				break;
			}
			/* The rest belongs to DPDK, with the program's name in front. */
			argv[i] = argv[0];
			result = argp.dpdk_cb(argc - i, argv + i);
			argv[i] = (char *)"--";
			if (result != DOCA_SUCCESS)
				return result;
			break;
		}
		if (arg[0] != '-' || arg[1] == '\0')
			return cli_error("unexpected argument '%.64s'", arg);
		as_long = arg[1] == '-';
		if (as_long) {
			const char *name = arg + 2, *eq = strchr(name, '=');

			p = find_long(name, eq != NULL ? (size_t)(eq - name) : strlen(name));
			if (p == NULL)
				return cli_error("unknown option '%.*s'", eq != NULL ? (int)(eq - arg) : 64, arg);
			if (eq != NULL) {
				if (!takes_value(p))
					return cli_error("option --%s takes no argument", p->long_name);
				value = eq + 1;
			}
		} else {
			p = find_short(arg + 1);
			if (p == NULL && arg[2] != '\0') {
				/* "-dvalue": a one-letter short name with its value attached. */
				char one[2] = {arg[1], '\0'};

				p = find_short(one);
				if (p != NULL && takes_value(p))
					value = arg + 2;
				else
					p = NULL;
			}
			if (p == NULL)
				return cli_error("unknown option '%.64s'", arg);
		}
		option_label(p, as_long, label, sizeof(label));
		if (takes_value(p) && value == NULL) {
			if (i + 1 >= argc || argv[i + 1] == NULL)
				return cli_error("option %s needs an argument%s%s", label,
						 p->arguments != NULL ? " " : "",
						 p->arguments != NULL ? p->arguments : "");
			value = argv[++i];
		}
		result = apply(p, label, value);
		if (result != DOCA_SUCCESS)
			return result;
	}
	for (p = argp.params; p != NULL; p = p->next) {
		if (p->mandatory && !p->seen) {
			char label[ARGP_NAME_MAX + 4];

			option_label(p, true, label, sizeof(label));
			return cli_error("option %s is mandatory", label);
		}
	}
	if (argp.validation_cb != NULL) {
		result = argp.validation_cb(argp.config);
		if (result != DOCA_SUCCESS) {
			fprintf(stderr, "%s: the program refused its flags: %s\n", program(),
				doca_error_get_name(result));
			fflush(stderr);
			return result;
		}
	}
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t doca_argp_start(int argc, char **argv)
{
	struct doca_argp_param *p;
	doca_error_t result;

	if (argc < 1 || argv == NULL || argv[0] == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&argp_lock);
	if (!argp.initialized) {
		pthread_mutex_unlock(&argp_lock);
		return DOCA_ERROR_BAD_STATE;
	}
	if (argp.program_name == NULL) {
		const char *slash = strrchr(argv[0], '/');

		argp.program_name = strndup(slash != NULL ? slash + 1 : argv[0], ARGP_NAME_MAX);
		if (argp.program_name == NULL) {
			pthread_mutex_unlock(&argp_lock);
			return DOCA_ERROR_NO_MEMORY;
		}
	}
	for (p = argp.params; p != NULL; p = p->next)
		p->seen = false;
	result = parse(argc, argv);
	pthread_mutex_unlock(&argp_lock);
	return result;
}
