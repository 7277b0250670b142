/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom-java C sample: several workers of one service, each driven by its own thread, then the
 * service's view of their groups.
 */
#ifndef MULTI_WORKERS_BOOTSTRAP_H_
#define MULTI_WORKERS_BOOTSTRAP_H_

#include <doca_dev.h>
#include <doca_error.h>

#define BOOTSTRAP_DEFAULT_WORKERS 4
#define BOOTSTRAP_MAX_WORKERS 64

struct bootstrap_config {
	/* IB device name of the service file's line; empty: the first device. */
	char device[DOCA_DEVINFO_IBDEV_NAME_SIZE];
	int workers;
};

/*
 * Starts cfg->workers workers (ids 0..n-1, gid = id % 2), each on its own thread with its own
 * progress engine, loops every worker's id back through the graph plugin, then asks the service for
 * the workers of gid 0 and gid 1 and checks they are exactly the even and the odd ids. Prints one
 * line per result on stdout. DOCA_SUCCESS only if every result matched.
 */
doca_error_t multi_workers_bootstrap(const struct bootstrap_config *cfg);

#endif /* MULTI_WORKERS_BOOTSTRAP_H_ */
