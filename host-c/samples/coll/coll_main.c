/* SPDX-License-Identifier: Apache-2.0 */
/* urom-java C sample: the command line of coll, run as MPI ranks. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include <doca_argp.h>
#include <doca_log.h>

#include "coll.h"

DOCA_LOG_REGISTER(UROM::SAMPLE::COLL::MAIN);

static doca_error_t copy_string(const char *what, const char *value, char *to, size_t room)
{
	if (strlen(value) >= room) {
		DOCA_LOG_ERR("%s %s is longer than %zu characters", what, value, room - 1);
		return DOCA_ERROR_INVALID_VALUE;
	}
	strcpy(to, value);
	return DOCA_SUCCESS;
}

static doca_error_t device_callback(void *param, void *config)
{
	struct coll_config *cfg = config;

	return copy_string("Device name", param, cfg->device, sizeof(cfg->device));
}

static doca_error_t plugin_callback(void *param, void *config)
{
	struct coll_config *cfg = config;

	return copy_string("Plugin name", param, cfg->plugin, sizeof(cfg->plugin));
}

static doca_error_t colls_callback(void *param, void *config)
{
	struct coll_config *cfg = config;

	return copy_string("Collective list", param, cfg->colls, sizeof(cfg->colls));
}

static doca_error_t json_callback(void *param, void *config)
{
	struct coll_config *cfg = config;

	return copy_string("JSON file", param, cfg->json, sizeof(cfg->json));
}

static doca_error_t label_callback(void *param, void *config)
{
	struct coll_config *cfg = config;

	return copy_string("Label", param, cfg->label, sizeof(cfg->label));
}

static doca_error_t skip_check_callback(void *param, void *config)
{
	struct coll_config *cfg = config;

	cfg->skip_check = *(bool *)param;
	return DOCA_SUCCESS;
}

static doca_error_t bench_callback(void *param, void *config)
{
	struct coll_config *cfg = config;

	cfg->bench = *(bool *)param;
	return DOCA_SUCCESS;
}

static doca_error_t impl_callback(void *param, void *config)
{
	struct coll_config *cfg = config;
	const char *v = param;

	if (strcmp(v, "offload") == 0)
		cfg->impl = COLL_IMPL_OFFLOAD;
	else if (strcmp(v, "mpi") == 0)
		cfg->impl = COLL_IMPL_MPI;
	else if (strcmp(v, "both") == 0)
		cfg->impl = COLL_IMPL_BOTH;
	else {
		DOCA_LOG_ERR("--impl %s: expected offload, mpi or both", v);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

static doca_error_t sizes_callback(void *param, void *config)
{
	struct coll_config *cfg = config;
	const char *v = param;
	char *end = NULL;
	unsigned long long lo, hi;

	errno = 0;
	lo = strtoull(v, &end, 10);
	if (errno != 0 || end == v || *end != ':')
		goto bad;
	v = end + 1;
	hi = strtoull(v, &end, 10);
	if (errno != 0 || end == v || *end != '\0' || lo < 1 || hi < lo || hi > (1ull << 30))
		goto bad;
	cfg->min_bytes = lo;
	cfg->max_bytes = hi;
	return DOCA_SUCCESS;
bad:
	DOCA_LOG_ERR("--sizes %s: expected MIN:MAX bytes, 1 <= MIN <= MAX <= 1 GiB", (const char *)param);
	return DOCA_ERROR_INVALID_VALUE;
}

static doca_error_t iterations_callback(void *param, void *config)
{
	struct coll_config *cfg = config;
	int v = *(int *)param;

	if (v < 1 || v > 1000000) {
		DOCA_LOG_ERR("--iterations %d: expected 1 to 1000000", v);
		return DOCA_ERROR_INVALID_VALUE;
	}
	cfg->iterations = v;
	return DOCA_SUCCESS;
}

static doca_error_t warmup_callback(void *param, void *config)
{
	struct coll_config *cfg = config;
	int v = *(int *)param;

	if (v < 0 || v > 1000000) {
		DOCA_LOG_ERR("--warmup %d: expected 0 to 1000000", v);
		return DOCA_ERROR_INVALID_VALUE;
	}
	cfg->warmup = v == 0 ? -1 : v;
	return DOCA_SUCCESS;
}

static doca_error_t register_param(const char *short_name, const char *long_name, const char *arguments,
				   const char *description, doca_argp_param_cb_t callback, enum doca_argp_type type)
{
	struct doca_argp_param *param;
	doca_error_t result;

	result = doca_argp_param_create(&param);
	if (result != DOCA_SUCCESS)
		return result;
	if (short_name != NULL)
		doca_argp_param_set_short_name(param, short_name);
	doca_argp_param_set_long_name(param, long_name);
	if (arguments != NULL)
		doca_argp_param_set_arguments(param, arguments);
	doca_argp_param_set_description(param, description);
	doca_argp_param_set_callback(param, callback);
	doca_argp_param_set_type(param, type);
	return doca_argp_register_param(param);
}

static doca_error_t register_params(void)
{
	doca_error_t r;

	r = register_param("d", "device", "<IB device name>",
			   "device of DOCA_UROM_SERVICE_FILE (default: the first one)", device_callback,
			   DOCA_ARGP_TYPE_STRING);
	if (r == DOCA_SUCCESS)
		r = register_param("p", "plugin", "<name>",
				   "the coll plugin to offload to (default " COLL_PLUGIN_DEFAULT
				   "; worker_coll_java is the Java one)",
				   plugin_callback, DOCA_ARGP_TYPE_STRING);
	if (r == DOCA_SUCCESS)
		r = register_param(NULL, "skip-check", NULL, "do not check the results against MPI's",
				   skip_check_callback, DOCA_ARGP_TYPE_BOOLEAN);
	if (r == DOCA_SUCCESS)
		r = register_param(NULL, "bench", NULL, "measure latency and overlap (the OSU method)", bench_callback,
				   DOCA_ARGP_TYPE_BOOLEAN);
	if (r == DOCA_SUCCESS)
		r = register_param(NULL, "impl", "<offload|mpi|both>", "what the benchmark measures (default both)",
				   impl_callback, DOCA_ARGP_TYPE_STRING);
	if (r == DOCA_SUCCESS)
		r = register_param(NULL, "colls", "<list>",
				   "the benchmark's collectives (default " COLL_DEFAULT_COLLS ")", colls_callback,
				   DOCA_ARGP_TYPE_STRING);
	if (r == DOCA_SUCCESS)
		r = register_param(NULL, "sizes", "<MIN:MAX>",
				   "the benchmark's message sizes in bytes (default 8:4194304)", sizes_callback,
				   DOCA_ARGP_TYPE_STRING);
	if (r == DOCA_SUCCESS)
		r = register_param("i", "iterations", "<n>",
				   "iterations per size (default OSU's: 1000, 100 above 8 KiB)", iterations_callback,
				   DOCA_ARGP_TYPE_INT);
	if (r == DOCA_SUCCESS)
		r = register_param(NULL, "warmup", "<n>", "warm-up iterations per size (default 100, 10 above 8 KiB)",
				   warmup_callback, DOCA_ARGP_TYPE_INT);
	if (r == DOCA_SUCCESS)
		r = register_param(NULL, "results", "<file>", "rank 0 writes the benchmark's results there, as JSON",
				   json_callback, DOCA_ARGP_TYPE_STRING);
	if (r == DOCA_SUCCESS)
		r = register_param(NULL, "label", "<text>", "names this run in the JSON (its placement, say)",
				   label_callback, DOCA_ARGP_TYPE_STRING);
	return r;
}

int main(int argc, char **argv)
{
	struct coll_config cfg = {
		.plugin = COLL_PLUGIN_DEFAULT,
		.impl = COLL_IMPL_BOTH,
		.colls = COLL_DEFAULT_COLLS,
		.min_bytes = 8,
		.max_bytes = 4u << 20,
	};
	struct doca_log_backend *sdk_log;
	doca_error_t result;
	int rank = 0, size = 0, exit_status = EXIT_FAILURE;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
		fprintf(stderr, "coll: MPI_Init failed\n");
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
		fprintf(stderr, "coll: setting up the log failed: %s\n", doca_error_get_descr(result));
		goto finalize;
	}
	result = doca_argp_init("urom_coll", &cfg);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Initialising the argument parser failed: %s", doca_error_get_descr(result));
		goto finalize;
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
	result = coll_sample(&cfg, rank, size);
	if (result == DOCA_SUCCESS)
		exit_status = EXIT_SUCCESS;

argp_cleanup:
	doca_argp_destroy();
finalize:
	if (exit_status != EXIT_SUCCESS) {
		/* The other ranks may be waiting for this one: end the whole job. */
		MPI_Abort(MPI_COMM_WORLD, EXIT_FAILURE);
	}
	MPI_Finalize();
	return exit_status;
}
