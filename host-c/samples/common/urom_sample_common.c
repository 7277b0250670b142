/* SPDX-License-Identifier: Apache-2.0 */
/* urom-java C samples: the shared steps (urom_sample_common.h). */
#include "urom_sample_common.h"

#include <string.h>
#include <time.h>
#include <unistd.h>

#include <doca_log.h>

DOCA_LOG_REGISTER(UROM::SAMPLE::COMMON);

int64_t sample_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

doca_error_t sample_open_device(const char *ibdev_name, struct doca_dev **dev)
{
	struct doca_devinfo **list = NULL;
	char name[DOCA_DEVINFO_IBDEV_NAME_SIZE];
	char pci[DOCA_DEVINFO_PCI_ADDR_SIZE];
	uint32_t n = 0;
	doca_error_t result;

	result = doca_devinfo_create_list(&list, &n);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Listing the devices failed: %s", doca_error_get_descr(result));
		return result;
	}
	result = DOCA_ERROR_NOT_FOUND;
	for (uint32_t i = 0; i < n; i++) {
		if (doca_devinfo_get_ibdev_name(list[i], name, sizeof(name)) != DOCA_SUCCESS)
			continue;
		if (ibdev_name != NULL && ibdev_name[0] != '\0' && strcmp(name, ibdev_name) != 0)
			continue;
		result = doca_dev_open(list[i], dev);
		if (result != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Opening device %s failed: %s", name, doca_error_get_descr(result));
		} else {
			if (doca_devinfo_get_pci_addr_str(list[i], pci) != DOCA_SUCCESS)
				strcpy(pci, "?");
			DOCA_LOG_INFO("Using device %s (PCI %s)", name, pci);
		}
		break;
	}
	doca_devinfo_destroy_list(list);
	if (result == DOCA_ERROR_NOT_FOUND) {
		if (ibdev_name != NULL && ibdev_name[0] != '\0')
			DOCA_LOG_ERR("No device named %s among the %u of this host (DOCA_UROM_SERVICE_FILE)",
				     ibdev_name, n);
		else
			DOCA_LOG_ERR("No device for this host: DOCA_UROM_SERVICE_FILE names none");
	}
	return result;
}

doca_error_t sample_start_service(struct doca_pe *pe, struct doca_dev *dev, struct doca_urom_service **service)
{
	struct doca_urom_service *svc;
	enum doca_ctx_states state;
	doca_error_t result;

	result = doca_urom_service_create(&svc);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Creating the UROM service failed: %s", doca_error_get_descr(result));
		return result;
	}
	result = doca_pe_connect_ctx(pe, doca_urom_service_as_ctx(svc));
	if (result == DOCA_SUCCESS)
		result = doca_urom_service_set_dev(svc, dev);
	if (result == DOCA_SUCCESS)
		result = doca_ctx_start(doca_urom_service_as_ctx(svc));
	if (result == DOCA_SUCCESS)
		result = doca_ctx_get_state(doca_urom_service_as_ctx(svc), &state);
	if (result == DOCA_SUCCESS && state != DOCA_CTX_STATE_RUNNING)
		result = DOCA_ERROR_BAD_STATE;
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Starting the UROM service failed: %s", doca_error_get_descr(result));
		doca_urom_service_destroy(svc);
		return result;
	}
	*service = svc;
	return DOCA_SUCCESS;
}

doca_error_t sample_stop_ctx(struct doca_pe *pe, struct doca_ctx *ctx, const char *what)
{
	enum doca_ctx_states state = DOCA_CTX_STATE_IDLE;
	int64_t deadline = sample_now_ms() + SAMPLE_STEP_TIMEOUT_MS;
	doca_error_t result;

	doca_ctx_get_state(ctx, &state);
	if (state != DOCA_CTX_STATE_IDLE) {
		result = doca_ctx_stop(ctx);
		if (result != DOCA_SUCCESS && result != DOCA_ERROR_IN_PROGRESS) {
			DOCA_LOG_ERR("Stopping %s failed: %s", what, doca_error_get_descr(result));
			return result;
		}
	}
	while (doca_ctx_get_state(ctx, &state) == DOCA_SUCCESS && state != DOCA_CTX_STATE_IDLE) {
		if (sample_now_ms() > deadline) {
			DOCA_LOG_ERR("%s did not stop within %d s", what, SAMPLE_STEP_TIMEOUT_MS / 1000);
			return DOCA_ERROR_TIME_OUT;
		}
		if (doca_pe_progress(pe) == 0)
			usleep(100);
	}
	/* Deliver what the stop queued (its state change) before the context goes. */
	while (doca_pe_progress(pe))
		;
	return DOCA_SUCCESS;
}

doca_error_t sample_stop_service(struct doca_pe *pe, struct doca_urom_service *service)
{
	doca_error_t result = sample_stop_ctx(pe, doca_urom_service_as_ctx(service), "the UROM service");

	if (result != DOCA_SUCCESS)
		return result;
	result = doca_urom_service_destroy(service);
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Destroying the UROM service failed: %s", doca_error_get_descr(result));
	return result;
}

doca_error_t sample_find_plugin(struct doca_urom_service *service, const char *name, uint64_t *id, uint64_t *version)
{
	const struct doca_urom_service_plugin_info *plugins;
	size_t n = 0;
	doca_error_t result;

	result = doca_urom_service_get_plugins_list(service, &plugins, &n);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Reading the service's plugin list failed: %s", doca_error_get_descr(result));
		return result;
	}
	for (size_t i = 0; i < n; i++) {
		DOCA_LOG_DBG("Plugin %s: id 0x%lx, version %lu", plugins[i].plugin_name, (unsigned long)plugins[i].id,
			     (unsigned long)plugins[i].version);
		if (strncmp(plugins[i].plugin_name, name, sizeof(plugins[i].plugin_name)) == 0) {
			*id = plugins[i].id;
			*version = plugins[i].version;
			return DOCA_SUCCESS;
		}
	}
	DOCA_LOG_ERR("The service offers no plugin named %s (%zu plugins)", name, n);
	return DOCA_ERROR_NOT_FOUND;
}

doca_error_t sample_wait_state(struct doca_pe *pe, struct doca_ctx *ctx, enum doca_ctx_states leave, int timeout_ms,
			       enum doca_ctx_states *state)
{
	int64_t deadline = sample_now_ms() + timeout_ms;
	doca_error_t result;

	for (;;) {
		result = doca_ctx_get_state(ctx, state);
		if (result != DOCA_SUCCESS || *state != leave)
			return result;
		if (sample_now_ms() > deadline)
			return DOCA_ERROR_TIME_OUT;
		if (doca_pe_progress(pe) == 0)
			usleep(100);
	}
}

doca_error_t sample_start_worker(struct doca_pe *pe, struct doca_urom_service *service, uint64_t id, uint32_t gid,
				 uint64_t plugins, const doca_cpu_set_t *cpuset, struct doca_urom_worker **worker)
{
	struct doca_urom_worker *w;
	enum doca_ctx_states state;
	doca_error_t result;

	result = doca_urom_worker_create(&w);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Creating a UROM worker failed: %s", doca_error_get_descr(result));
		return result;
	}
	result = doca_pe_connect_ctx(pe, doca_urom_worker_as_ctx(w));
	if (result == DOCA_SUCCESS)
		result = doca_urom_worker_set_service(w, service);
	if (result == DOCA_SUCCESS)
		result = doca_urom_worker_set_id(w, id);
	if (result == DOCA_SUCCESS)
		result = doca_urom_worker_set_gid(w, gid);
	if (result == DOCA_SUCCESS)
		result = doca_urom_worker_set_plugins(w, plugins);
	if (result == DOCA_SUCCESS && cpuset != NULL)
		result = doca_urom_worker_set_cpuset(w, *cpuset);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Setting up a UROM worker failed: %s", doca_error_get_descr(result));
		doca_urom_worker_destroy(w);
		return result;
	}
	/* A worker starts asynchronously: RUNNING comes inside doca_pe_progress(). */
	result = doca_ctx_start(doca_urom_worker_as_ctx(w));
	if (result != DOCA_ERROR_IN_PROGRESS) {
		DOCA_LOG_ERR("Starting a UROM worker answered %s instead of IN_PROGRESS", doca_error_get_descr(result));
		doca_urom_worker_destroy(w);
		return result == DOCA_SUCCESS ? DOCA_ERROR_UNEXPECTED : result;
	}
	result = sample_wait_state(pe, doca_urom_worker_as_ctx(w), DOCA_CTX_STATE_STARTING, SAMPLE_STEP_TIMEOUT_MS,
				   &state);
	if (result == DOCA_SUCCESS && state != DOCA_CTX_STATE_RUNNING)
		result = DOCA_ERROR_BAD_STATE;
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("The UROM worker did not reach RUNNING: %s", doca_error_get_descr(result));
		sample_stop_worker(pe, w);
		return result;
	}
	*worker = w;
	return DOCA_SUCCESS;
}

doca_error_t sample_stop_worker(struct doca_pe *pe, struct doca_urom_worker *worker)
{
	doca_error_t result = sample_stop_ctx(pe, doca_urom_worker_as_ctx(worker), "a UROM worker");

	if (result != DOCA_SUCCESS)
		return result;
	result = doca_urom_worker_destroy(worker);
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Destroying a UROM worker failed: %s", doca_error_get_descr(result));
	return result;
}

bool sample_progress_until(struct doca_pe *pe, const volatile bool *flag, int timeout_ms)
{
	int64_t deadline = sample_now_ms() + timeout_ms;

	while (!*flag) {
		if (sample_now_ms() > deadline)
			return false;
		if (doca_pe_progress(pe) == 0)
			usleep(100);
	}
	return true;
}
