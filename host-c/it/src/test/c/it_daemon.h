/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom-java C host integration tests: a real daemon (bin/urom daemon) on a Unix socket in a fresh
 * temporary directory, and the DOCA_UROM_SERVICE_FILE that makes it this host's device "urom0" at
 * PCI address IT_PCI_ADDR.
 *
 * it_daemon_start() returns once the daemon accepts connections (or fails the test with its output);
 * it_daemon_stop() ends it and its workers and removes the directory. The environment variables
 * UROM_HOME (the distribution) and UROM_BIN (bin/urom) come from the Makefile.
 */
#ifndef IT_DAEMON_H_
#define IT_DAEMON_H_

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_pe.h>
#include <doca_urom.h>

#define IT_PCI_ADDR "0000:3b:00.0"

struct it_daemon {
	pid_t pid;
	char dir[PATH_MAX];
	char socket[PATH_MAX];
	char service_file[PATH_MAX];
};

/* Starts a daemon with extra arguments (NULL-terminated list, may be NULL). 0 on success. */
int it_daemon_start(struct it_daemon *d, const char *const *extra_args);
void it_daemon_stop(struct it_daemon *d);
/* The daemon's log (daemon.out), printed to stderr, for a failing test. */
void it_daemon_dump(const struct it_daemon *d);

/* The device of the service file (opened), a progress engine and a RUNNING service on it. */
struct it_host {
	struct doca_dev *dev;
	struct doca_pe *pe;
	struct doca_urom_service *service;
};

doca_error_t it_host_open(struct it_host *h);
void it_host_close(struct it_host *h);
/* The id of the plugin named name (e.g. "worker_graph"), or 0. */
uint64_t it_plugin_id(struct doca_urom_service *service, const char *name, uint64_t *version);

/* Creates a worker on h's engine with the given id, gid and plugins and progresses until it is RUNNING
 * (or back in IDLE: then *state says so). */
doca_error_t it_worker_start(struct it_host *h, uint64_t id, uint32_t gid, uint64_t plugins, uint32_t max_inflight,
			     char *const env[], size_t n_env, struct doca_urom_worker **worker,
			     enum doca_ctx_states *state);
/* Stops a worker (if not IDLE), progresses until IDLE, destroys it. */
doca_error_t it_worker_stop(struct it_host *h, struct doca_urom_worker *worker);
/* Progresses pe until done() or timeout_ms pass; returns done(). */
bool it_progress_until(struct doca_pe *pe, bool (*done)(void *), void *arg, int timeout_ms);

#endif /* IT_DAEMON_H_ */
