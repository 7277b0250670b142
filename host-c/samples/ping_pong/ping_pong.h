/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom-java C sample: two MPI ranks, one sandbox worker each, one domain; rank 0 sends a message to
 * rank 1's worker, which rank 1 sends back with another tag. MPI serves only as the domain's
 * out-of-band allgather.
 */
#ifndef PING_PONG_H_
#define PING_PONG_H_

#include <doca_dev.h>
#include <doca_error.h>

#define PING_PONG_MAX_MESSAGE 1024
#define PING_PONG_DEFAULT_MESSAGE "Hi from rank 0"
#define PING_TAG 0x1234
#define PONG_TAG 0x5678
#define PING_PONG_TAG_MASK 0xffff

struct ping_pong_config {
	/* IB device name of the service file's line; empty: the first device. */
	char device[DOCA_DEVINFO_IBDEV_NAME_SIZE];
	char message[PING_PONG_MAX_MESSAGE + 1];
};

/* This rank's part (rank 0 or 1 of 2). Prints one line per step on stdout, each starting "rank R:". */
doca_error_t ping_pong(const struct ping_pong_config *cfg, int rank, int size);

#endif /* PING_PONG_H_ */
