/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom-java: DOCA's command-line parser (libdoca_argp), as far as DOCA programs such as the UROM samples
 * use it.
 *
 * A program initialises the parser with its configuration struct, creates and registers its params (a
 * short and/or long name, a description, a type and a callback), then calls doca_argp_start(argc,
 * argv). For every param found on the command line the callback gets a pointer to the value — a
 * char * string for STRING, an int * for INT, a bool * (true) for BOOLEAN, which takes no argument —
 * and the configuration struct; the value lives only during the callback. Params are given as
 * "-s value", "--long value" or "--long=value" (a one-letter short name also as "-svalue").
 *
 * Built-in flags: -h/--help (prints the usage and exits with status 0), -v/--version (the version
 * callback, or the library's version, then exits with status 0), -l/--log-level LEVEL (the global
 * lower limit of the application log, doca_log.h levels 10..70), --sdk-log-level LEVEL (the SDK log
 * limit), -j/--json FILE (JSON configuration files are not supported: the start fails with
 * DOCA_ERROR_NOT_SUPPORTED and one line saying so).
 *
 * Errors of the command line (unknown option, missing or malformed argument, a param given twice
 * without multiplicity, a missing mandatory param) print one line naming the option and the reason,
 * and a usage line, on stderr; doca_argp_start() then answers DOCA_ERROR_INVALID_VALUE (a callback's
 * own error is returned as it is). The parser's state is process-wide and guarded by a lock; the
 * callbacks run with it held, so they must not call doca_argp_* themselves.
 */
#ifndef DOCA_ARGP_H_
#define DOCA_ARGP_H_

#include <doca_compat.h>
#include <doca_error.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A param's callback: (pointer to the value, the program's configuration struct). */
typedef doca_error_t (*doca_argp_param_cb_t)(void *, void *);
/* The arguments after "--", for programs based on DPDK. */
typedef doca_error_t (*doca_argp_dpdk_cb_t)(int argc, char **argv);
/* Called once after parsing, with the program's configuration struct. */
typedef doca_error_t (*doca_argp_validation_cb_t)(void *);

enum doca_argp_type {
	DOCA_ARGP_TYPE_UNKNOWN = 0,
	DOCA_ARGP_TYPE_STRING,
	DOCA_ARGP_TYPE_INT,
	DOCA_ARGP_TYPE_BOOLEAN,
	/* Only a JSON configuration file can carry one, and those are not supported: such a param is
	 * shown in the usage, and giving it on the command line answers DOCA_ERROR_NOT_SUPPORTED. */
	DOCA_ARGP_TYPE_JSON_OBJ,
};

struct doca_argp_param;

/* Prints the usage to stdout; then the program exits with status 0. */
DOCA_EXPERIMENTAL void doca_argp_usage(void);
/* BAD_STATE if already initialised; program_name NULL: the base name of argv[0]. */
DOCA_EXPERIMENTAL doca_error_t doca_argp_init(const char *program_name, void *program_config);
/* Takes the param over in every case (it is freed on failure). BAD_STATE before init or for a param
 * registered already; INITIALIZATION when a name, the description, the callback or the type is
 * missing; INVALID_VALUE for NULL or a name that is taken. */
DOCA_EXPERIMENTAL doca_error_t doca_argp_register_param(struct doca_argp_param *input_param);
DOCA_EXPERIMENTAL doca_error_t doca_argp_register_version_callback(doca_argp_param_cb_t callback);
DOCA_EXPERIMENTAL doca_error_t doca_argp_register_validation_callback(doca_argp_validation_cb_t callback);
/* Parses argv[1..argc-1] (see above). BAD_STATE before init. */
DOCA_EXPERIMENTAL doca_error_t doca_argp_start(int argc, char **argv);
/* Frees every param. BAD_STATE unless initialised. */
DOCA_EXPERIMENTAL doca_error_t doca_argp_destroy(void);
DOCA_EXPERIMENTAL void doca_argp_set_dpdk_program(doca_argp_dpdk_cb_t callback);

DOCA_EXPERIMENTAL doca_error_t doca_argp_param_create(struct doca_argp_param **param);
/* The setters copy their strings. A NULL param is ignored. */
DOCA_EXPERIMENTAL void doca_argp_param_set_short_name(struct doca_argp_param *param, const char *name);
DOCA_EXPERIMENTAL void doca_argp_param_set_long_name(struct doca_argp_param *param, const char *name);
/* How the usage shows the argument, e.g. "<IB device name>". */
DOCA_EXPERIMENTAL void doca_argp_param_set_arguments(struct doca_argp_param *param, const char *arguments);
DOCA_EXPERIMENTAL void doca_argp_param_set_description(struct doca_argp_param *param, const char *description);
DOCA_EXPERIMENTAL void doca_argp_param_set_callback(struct doca_argp_param *param, doca_argp_param_cb_t callback);
DOCA_EXPERIMENTAL void doca_argp_param_set_type(struct doca_argp_param *param, enum doca_argp_type type);
DOCA_EXPERIMENTAL void doca_argp_param_set_mandatory(struct doca_argp_param *param);
/* Without JSON files every param is a command-line param; kept for programs that mark them. */
DOCA_EXPERIMENTAL void doca_argp_param_set_cli_only(struct doca_argp_param *param);
/* The param may be given more than once; its callback runs for each. */
DOCA_EXPERIMENTAL void doca_argp_param_set_multiplicity(struct doca_argp_param *param);
/* A param not registered (BAD_STATE once registered: the parser owns it). */
DOCA_EXPERIMENTAL doca_error_t doca_argp_param_destroy(struct doca_argp_param *param);

/* The levels -l and --sdk-log-level set, or the log's global limits when they were not given. */
DOCA_EXPERIMENTAL doca_error_t doca_argp_get_log_level(int *log_level);
DOCA_EXPERIMENTAL doca_error_t doca_argp_get_sdk_log_level(int *log_level);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_ARGP_H_ */
