/* SPDX-License-Identifier: Apache-2.0 */
/* urom-java C sample: the command line of ping_pong, run as two MPI ranks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include <doca_argp.h>
#include <doca_log.h>

#include "ping_pong.h"

DOCA_LOG_REGISTER(UROM::SAMPLE::PING_PONG::MAIN);

static doca_error_t device_callback(void *param, void *config)
{
	struct ping_pong_config *cfg = config;
	const char *name = param;

	if (strlen(name) >= sizeof(cfg->device)) {
		DOCA_LOG_ERR("Device name %s is longer than %zu characters", name, sizeof(cfg->device) - 1);
		return DOCA_ERROR_INVALID_VALUE;
	}
	strcpy(cfg->device, name);
	return DOCA_SUCCESS;
}

static doca_error_t message_callback(void *param, void *config)
{
	struct ping_pong_config *cfg = config;
	const char *text = param;
	size_t len = strlen(text);

	if (len == 0 || len > PING_PONG_MAX_MESSAGE) {
		DOCA_LOG_ERR("The message must be 1 to %d bytes, not %zu", PING_PONG_MAX_MESSAGE, len);
		return DOCA_ERROR_INVALID_VALUE;
	}
	memcpy(cfg->message, text, len + 1);
	return DOCA_SUCCESS;
}

static doca_error_t register_param(const char *short_name, const char *long_name, const char *arguments,
				   const char *description, doca_argp_param_cb_t callback)
{
	struct doca_argp_param *param;
	doca_error_t result;

	result = doca_argp_param_create(&param);
	if (result != DOCA_SUCCESS)
		return result;
	doca_argp_param_set_short_name(param, short_name);
	doca_argp_param_set_long_name(param, long_name);
	doca_argp_param_set_arguments(param, arguments);
	doca_argp_param_set_description(param, description);
	doca_argp_param_set_callback(param, callback);
	doca_argp_param_set_type(param, DOCA_ARGP_TYPE_STRING);
	return doca_argp_register_param(param);
}

int main(int argc, char **argv)
{
	struct ping_pong_config cfg = {.message = PING_PONG_DEFAULT_MESSAGE};
	struct doca_log_backend *sdk_log;
	doca_error_t result;
	int rank = 0, size = 0, exit_status = EXIT_FAILURE;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
		fprintf(stderr, "ping_pong: MPI_Init failed\n");
		return EXIT_FAILURE;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);

	result = doca_log_backend_create_standard();
	if (result == DOCA_SUCCESS)
		result = doca_log_backend_create_with_file_sdk(stderr, &sdk_log);
	if (result == DOCA_SUCCESS)
		result = doca_log_backend_set_sdk_level(sdk_log, DOCA_LOG_LEVEL_WARNING);
	if (result != DOCA_SUCCESS) {
		fprintf(stderr, "ping_pong: setting up the log failed: %s\n", doca_error_get_descr(result));
		goto finalize;
	}

	result = doca_argp_init("urom_ping_pong", &cfg);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Initialising the argument parser failed: %s", doca_error_get_descr(result));
		goto finalize;
	}
	result = register_param("d", "device", "<IB device name>",
				"device of DOCA_UROM_SERVICE_FILE (default: the first one)", device_callback);
	if (result == DOCA_SUCCESS)
		result = register_param("m", "message", "<text>",
					"what rank 0 sends (default \"" PING_PONG_DEFAULT_MESSAGE "\")",
					message_callback);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Registering the parameters failed: %s", doca_error_get_descr(result));
		goto argp_cleanup;
	}
	result = doca_argp_start(argc, argv);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Parsing the command line failed: %s", doca_error_get_descr(result));
		goto argp_cleanup;
	}

	result = ping_pong(&cfg, rank, size);
	if (result == DOCA_SUCCESS)
		exit_status = EXIT_SUCCESS;

argp_cleanup:
	doca_argp_destroy();
finalize:
	if (exit_status != EXIT_SUCCESS) {
		/* The other rank may be waiting for this one: end the whole job. */
		MPI_Abort(MPI_COMM_WORLD, EXIT_FAILURE);
	}
	MPI_Finalize();
	return exit_status;
}
