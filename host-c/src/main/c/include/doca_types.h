/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom-java: the DOCA Core types that host programs share (union doca_data,
 * the notification handle of a progress engine, access flags, PCI function types).
 */
#ifndef DOCA_TYPES_H_
#define DOCA_TYPES_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* User data carried by contexts and tasks: a pointer or a 64-bit value. */
union doca_data {
	void *ptr;
	uint64_t u64;
};

/* A file descriptor that becomes readable when a progress engine has work (epoll, poll, select). */
typedef int doca_event_handle_t;
typedef doca_event_handle_t doca_notification_handle_t;
#define DOCA_EVENT_HANDLE_INVALID (-1)
/* DOCA's own spelling of the invalid handle. */
#define doca_event_invalid_handle DOCA_EVENT_HANDLE_INVALID

/* What a memory map lets devices do with its memory (doca_mmap_set_permissions), as DOCA numbers it. */
enum doca_access_flag {
	DOCA_ACCESS_FLAG_LOCAL_READ_ONLY = 0,
	DOCA_ACCESS_FLAG_LOCAL_READ_WRITE = (1 << 0),
	DOCA_ACCESS_FLAG_RDMA_READ = (1 << 1),
	DOCA_ACCESS_FLAG_RDMA_WRITE = (1 << 2),
	DOCA_ACCESS_FLAG_RDMA_ATOMIC = (1 << 3),
	DOCA_ACCESS_FLAG_PCI_READ_ONLY = (1 << 4),
	DOCA_ACCESS_FLAG_PCI_READ_WRITE = (1 << 5),
	DOCA_ACCESS_FLAG_PCI_RELAXED_ORDERING = (1 << 6),
};

/* The kind of PCI function a device is (doca_devinfo_get_pci_func_type). */
enum doca_pci_func_type {
	DOCA_PCI_FUNC_TYPE_PF = 0,
	DOCA_PCI_FUNC_TYPE_VF = 1,
	DOCA_PCI_FUNC_TYPE_SF = 2,
};

#ifdef __cplusplus
}
#endif

#endif /* DOCA_TYPES_H_ */
