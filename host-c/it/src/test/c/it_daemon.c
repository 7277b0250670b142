/* SPDX-License-Identifier: Apache-2.0 */
/* urom-java C host integration tests: the daemon and host fixtures. */
#define _GNU_SOURCE
#include "it_daemon.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <doca_ctx.h>

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static bool accepts(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool ok;

	if ((size_t)snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path) >= sizeof(sa.sun_path)) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	ok = fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
	if (fd >= 0)
		close(fd);
	return ok;
}

void it_daemon_dump(const struct it_daemon *d)
{
	char path[PATH_MAX + 16], line[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/daemon.out", d->dir);
	f = fopen(path, "r");
	if (f == NULL)
		return;
	fprintf(stderr, "---- %s ----\n", path);
	while (fgets(line, sizeof(line), f) != NULL)
		fputs(line, stderr);
	fclose(f);
}

int it_daemon_start(struct it_daemon *d, const char *const *extra_args)
{
	const char *tmp = getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp";
	const char *bin = getenv("UROM_BIN");
	char host[256], listen[PATH_MAX + 8], log_dir[PATH_MAX + 8], out[PATH_MAX + 16];
	const char *argv[40];
	int argc = 0;
	long deadline;
	FILE *f;

	memset(d, 0, sizeof(*d));
	if (bin == NULL) {
		fprintf(stderr, "it_daemon: UROM_BIN is not set\n");
		return -1;
	}
	snprintf(d->dir, sizeof(d->dir), "%s/urom-c-it-XXXXXX", tmp);
	if (mkdtemp(d->dir) == NULL) {
		fprintf(stderr, "it_daemon: mkdtemp under %s: %s\n", tmp, strerror(errno));
		return -1;
	}
	if ((size_t)snprintf(d->socket, sizeof(d->socket), "%s/urom.sock", d->dir) >= sizeof(d->socket) ||
	    (size_t)snprintf(d->service_file, sizeof(d->service_file), "%s/services", d->dir) >=
		    sizeof(d->service_file)) {
		fprintf(stderr, "it_daemon: the temporary directory's name %s is too long\n", d->dir);
		return -1;
	}
	snprintf(listen, sizeof(listen), "unix:%s", d->socket);
	snprintf(log_dir, sizeof(log_dir), "%s/log", d->dir);
	snprintf(out, sizeof(out), "%s/daemon.out", d->dir);
	argv[argc++] = bin;
	argv[argc++] = "daemon";
	argv[argc++] = "--listen";
	argv[argc++] = listen;
	argv[argc++] = "--log-dir";
	argv[argc++] = log_dir;
	if (geteuid() == 0) {
		/* The build's tree may lie where the default worker user cannot read it (CI clones under /root). */
		argv[argc++] = "--worker-user";
		argv[argc++] = "root";
	}
	for (int i = 0; extra_args != NULL && extra_args[i] != NULL && argc < 38; i++)
		argv[argc++] = extra_args[i];
	argv[argc] = NULL;
	d->pid = fork();
	if (d->pid < 0)
		return -1;
	if (d->pid == 0) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		setpgid(0, 0);
		execv(bin, (char *const *)argv);
		_exit(127);
	}
	deadline = now_ms() + 120000;
	while (!accepts(d->socket)) {
		int status;

		if (waitpid(d->pid, &status, WNOHANG) == d->pid || now_ms() > deadline) {
			fprintf(stderr, "it_daemon: the daemon did not start listening on %s\n", d->socket);
			it_daemon_dump(d);
			d->pid = 0;
			it_daemon_stop(d);
			return -1;
		}
		usleep(20000);
	}
	if (gethostname(host, sizeof(host)) != 0)
		return -1;
	f = fopen(d->service_file, "w");
	if (f == NULL)
		return -1;
	fprintf(f, "# written by the C host integration tests\n");
	fprintf(f, "some-other-host dpu elsewhere 0000:3b:00.0 mlx5_9:1\n");
	fprintf(f, "%s dpu unix:%s %s urom0:1\n", host, d->socket, IT_PCI_ADDR);
	fclose(f);
	setenv("DOCA_UROM_SERVICE_FILE", d->service_file, 1);
	return 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void it_daemon_stop(struct it_daemon *d)
{
	if (d->pid > 0) {
		long deadline = now_ms() + 60000;
		int status;

		kill(d->pid, SIGTERM);
		while (waitpid(d->pid, &status, WNOHANG) == 0) {
			if (now_ms() > deadline) {
				kill(-d->pid, SIGKILL);
				waitpid(d->pid, &status, 0);
				break;
			}
			usleep(20000);
		}
		/* Whatever the daemon left in its process group (workers that outlived it). */
		kill(-d->pid, SIGKILL);
		d->pid = 0;
	}
	if (d->dir[0] != '\0')
		nftw(d->dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	unsetenv("DOCA_UROM_SERVICE_FILE");
}

doca_error_t it_host_open(struct it_host *h)
{
	struct doca_devinfo **list = NULL;
	uint32_t n = 0;
	doca_error_t status;

	memset(h, 0, sizeof(*h));
	status = doca_devinfo_create_list(&list, &n);
	if (status != DOCA_SUCCESS)
		return status;
	status = DOCA_ERROR_NOT_FOUND;
	for (uint32_t i = 0; i < n; i++) {
		uint8_t equal = 0;

		if (doca_devinfo_is_equal_pci_addr(list[i], IT_PCI_ADDR, &equal) == DOCA_SUCCESS && equal) {
			status = doca_dev_open(list[i], &h->dev);
			break;
		}
	}
	doca_devinfo_destroy_list(list);
	if (status != DOCA_SUCCESS)
		return status;
	status = doca_pe_create(&h->pe);
	if (status == DOCA_SUCCESS)
		status = doca_urom_service_create(&h->service);
	if (status == DOCA_SUCCESS)
		status = doca_pe_connect_ctx(h->pe, doca_urom_service_as_ctx(h->service));
	if (status == DOCA_SUCCESS)
		status = doca_urom_service_set_dev(h->service, h->dev);
	if (status == DOCA_SUCCESS)
		status = doca_ctx_start(doca_urom_service_as_ctx(h->service));
	if (status != DOCA_SUCCESS)
		it_host_close(h);
	return status;
}

void it_host_close(struct it_host *h)
{
	enum doca_ctx_states state = DOCA_CTX_STATE_IDLE;

	if (h->service != NULL) {
		doca_ctx_get_state(doca_urom_service_as_ctx(h->service), &state);
		if (state != DOCA_CTX_STATE_IDLE)
			doca_ctx_stop(doca_urom_service_as_ctx(h->service));
		while (h->pe != NULL && doca_pe_progress(h->pe))
			;
		doca_urom_service_destroy(h->service);
	}
	if (h->pe != NULL)
		doca_pe_destroy(h->pe);
	if (h->dev != NULL)
		doca_dev_close(h->dev);
	memset(h, 0, sizeof(*h));
}

uint64_t it_plugin_id(struct doca_urom_service *service, const char *name, uint64_t *version)
{
	const struct doca_urom_service_plugin_info *plugins;
	size_t n;

	if (doca_urom_service_get_plugins_list(service, &plugins, &n) != DOCA_SUCCESS)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(plugins[i].plugin_name, name) == 0) {
			if (version != NULL)
				*version = plugins[i].version;
			return plugins[i].id;
		}
	}
	return 0;
}

struct state_wait {
	struct doca_ctx *ctx;
	enum doca_ctx_states leave;
};

static bool left_state(void *arg)
{
	struct state_wait *w = arg;
	enum doca_ctx_states state;

	doca_ctx_get_state(w->ctx, &state);
	return state != w->leave;
}

bool it_progress_until(struct doca_pe *pe, bool (*done)(void *), void *arg, int timeout_ms)
{
	long deadline = now_ms() + timeout_ms;

	while (!done(arg)) {
		if (now_ms() > deadline)
			return false;
		if (!doca_pe_progress(pe))
			usleep(100);
	}
	return true;
}

doca_error_t it_worker_start(struct it_host *h, uint64_t id, uint32_t gid, uint64_t plugins, uint32_t max_inflight,
			     char *const env[], size_t n_env, struct doca_urom_worker **worker,
			     enum doca_ctx_states *state)
{
	struct doca_urom_worker *w;
	struct state_wait wait;
	doca_error_t status;

	status = doca_urom_worker_create(&w);
	if (status != DOCA_SUCCESS)
		return status;
	status = doca_pe_connect_ctx(h->pe, doca_urom_worker_as_ctx(w));
	if (status == DOCA_SUCCESS)
		status = doca_urom_worker_set_service(w, h->service);
	if (status == DOCA_SUCCESS)
		status = doca_urom_worker_set_id(w, id);
	if (status == DOCA_SUCCESS)
		status = doca_urom_worker_set_gid(w, gid);
	if (status == DOCA_SUCCESS)
		status = doca_urom_worker_set_plugins(w, plugins);
	if (status == DOCA_SUCCESS && max_inflight != 0)
		status = doca_urom_worker_set_max_inflight_tasks(w, max_inflight);
	if (status == DOCA_SUCCESS && n_env != 0)
		status = doca_urom_worker_set_env(w, env, n_env);
	if (status == DOCA_SUCCESS) {
		status = doca_ctx_start(doca_urom_worker_as_ctx(w));
		if (status == DOCA_ERROR_IN_PROGRESS)
			status = DOCA_SUCCESS;
	}
	if (status != DOCA_SUCCESS) {
		doca_urom_worker_destroy(w);
		return status;
	}
	wait.ctx = doca_urom_worker_as_ctx(w);
	wait.leave = DOCA_CTX_STATE_STARTING;
	if (!it_progress_until(h->pe, left_state, &wait, 120000))
		return DOCA_ERROR_TIME_OUT;
	doca_ctx_get_state(wait.ctx, state);
	*worker = w;
	return DOCA_SUCCESS;
}

static bool is_idle(void *arg)
{
	enum doca_ctx_states state;

	doca_ctx_get_state(arg, &state);
	return state == DOCA_CTX_STATE_IDLE;
}

doca_error_t it_worker_stop(struct it_host *h, struct doca_urom_worker *worker)
{
	struct doca_ctx *ctx = doca_urom_worker_as_ctx(worker);
	doca_error_t status;

	if (!is_idle(ctx)) {
		status = doca_ctx_stop(ctx);
		if (status != DOCA_SUCCESS && status != DOCA_ERROR_IN_PROGRESS)
			return status;
	}
	if (!it_progress_until(h->pe, is_idle, ctx, 60000))
		return DOCA_ERROR_TIME_OUT;
	/* Deliver what the stop queued (its state change) before the worker goes. */
	while (doca_pe_progress(h->pe))
		;
	return doca_urom_worker_destroy(worker);
}
