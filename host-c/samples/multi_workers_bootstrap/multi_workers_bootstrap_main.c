/* SPDX-License-Identifier: Apache-2.0 */
/* urom-java C sample: the command line of multi_workers_bootstrap. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doca_argp.h>
#include <doca_log.h>

#include "multi_workers_bootstrap.h"

DOCA_LOG_REGISTER(UROM::SAMPLE::BOOTSTRAP::MAIN);

static doca_error_t device_callback(void *param, void *config)
{
	struct bootstrap_config *cfg = config;
	const char *name = param;

	if (strlen(name) >= sizeof(cfg->device)) {
		DOCA_LOG_ERR("Device name %s is longer than %zu characters", name, sizeof(cfg->device) - 1);
		return DOCA_ERROR_INVALID_VALUE;
	}
	strcpy(cfg->device, name);
	return DOCA_SUCCESS;
}

static doca_error_t workers_callback(void *param, void *config)
{
	struct bootstrap_config *cfg = config;
	int n = *(int *)param;

	if (n < 1 || n > BOOTSTRAP_MAX_WORKERS) {
		DOCA_LOG_ERR("The number of workers must be 1 to %d, not %d", BOOTSTRAP_MAX_WORKERS, n);
		return DOCA_ERROR_INVALID_VALUE;
	}
	cfg->workers = n;
	return DOCA_SUCCESS;
}

static doca_error_t register_params(void)
{
	struct doca_argp_param *param;
	doca_error_t result;

	result = doca_argp_param_create(&param);
	if (result != DOCA_SUCCESS)
		return result;
	doca_argp_param_set_short_name(param, "d");
	doca_argp_param_set_long_name(param, "device");
	doca_argp_param_set_arguments(param, "<IB device name>");
	doca_argp_param_set_description(param, "device of DOCA_UROM_SERVICE_FILE (default: the first one)");
	doca_argp_param_set_callback(param, device_callback);
	doca_argp_param_set_type(param, DOCA_ARGP_TYPE_STRING);
	result = doca_argp_register_param(param);
	if (result != DOCA_SUCCESS)
		return result;

	result = doca_argp_param_create(&param);
	if (result != DOCA_SUCCESS)
		return result;
	doca_argp_param_set_short_name(param, "n");
	doca_argp_param_set_long_name(param, "workers");
	doca_argp_param_set_arguments(param, "<count>");
	doca_argp_param_set_description(param, "how many workers to start (default 4)");
	doca_argp_param_set_callback(param, workers_callback);
	doca_argp_param_set_type(param, DOCA_ARGP_TYPE_INT);
	return doca_argp_register_param(param);
}

int main(int argc, char **argv)
{
	struct bootstrap_config cfg = {.workers = BOOTSTRAP_DEFAULT_WORKERS};
	struct doca_log_backend *sdk_log;
	doca_error_t result;
	int exit_status = EXIT_FAILURE;

	/* One result per line, in order, also when stdout is a pipe. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* Program messages on stdout/stderr; the library's own warnings and errors on stderr. */
	result = doca_log_backend_create_standard();
	if (result != DOCA_SUCCESS)
		return EXIT_FAILURE;
	result = doca_log_backend_create_with_file_sdk(stderr, &sdk_log);
	if (result != DOCA_SUCCESS)
		return EXIT_FAILURE;
	result = doca_log_backend_set_sdk_level(sdk_log, DOCA_LOG_LEVEL_WARNING);
	if (result != DOCA_SUCCESS)
		return EXIT_FAILURE;

	result = doca_argp_init("urom_multi_workers_bootstrap", &cfg);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Initialising the argument parser failed: %s", doca_error_get_descr(result));
		return EXIT_FAILURE;
	}
	result = register_params();
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Registering the parameters failed: %s", doca_error_get_descr(result));
		goto argp_cleanup;
	}
	result = doca_argp_start(argc, argv);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Parsing the command line failed: %s", doca_error_get_descr(result));
		goto argp_cleanup;
	}

	result = multi_workers_bootstrap(&cfg);
	if (result == DOCA_SUCCESS)
		exit_status = EXIT_SUCCESS;
	else
		DOCA_LOG_ERR("multi_workers_bootstrap failed: %s", doca_error_get_descr(result));

argp_cleanup:
	doca_argp_destroy();
	return exit_status;
}
