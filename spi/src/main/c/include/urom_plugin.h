/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom-java: the native plugin ABI.
 *
 * A native plugin is a shared object that exports two functions:
 *
 *   urom_status_t urom_plugin_get_iface(struct urom_plugin_iface *iface);
 *   urom_status_t urom_plugin_get_version(uint64_t *version);
 *
 * The worker opens the object with RTLD_NOW | RTLD_LOCAL, so every function
 * the plugin calls must resolve at load (link it with the libraries that
 * define them, e.g. $(pkg-config --libs ucx)); it asks for the interface
 * table once, copies it into the worker context and drives the
 * plugin from a single thread. Layouts are LP64, naturally aligned and
 * little-endian; the static assertions at the end pin every offset the Java
 * side reads.
 *
 * Ownership:
 *   - every command descriptor taken off cmd_list is released by the plugin
 *     with free();
 *   - every notification descriptor appended to notif_list by progress() is
 *     allocated by the plugin with malloc() and released by the worker.
 *
 * The header can be specialised before inclusion (the DOCA compatibility
 * headers do so): UROM_LIST_LINK_T names the intrusive list type, and
 * UROM_IFACE_VERSION_FIELD declares the leading API-version field.
 */
#ifndef UROM_PLUGIN_H_
#define UROM_PLUGIN_H_

#include <stddef.h>
#include <stdint.h>

#include "urom_status.h"
#include "urom_version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Longest plugin name, including its terminating NUL. */
#define UROM_PLUGIN_NAME_MAX_LEN 48

#ifndef UROM_LIST_LINK_T
/* Intrusive doubly linked list link; an empty list head points at itself. */
typedef struct urom_list_link {
	struct urom_list_link *prev;
	struct urom_list_link *next;
} urom_list_link_t;
#define UROM_LIST_LINK_T urom_list_link_t
#endif

#ifndef UROM_IFACE_VERSION_FIELD
#define UROM_IFACE_VERSION_FIELD size_t api_version
#endif

struct urom_worker_ctx;

/* What the service reports for each plugin it found. */
struct urom_plugin_info {
	uint64_t id;                                /* one bit, unique in the service */
	uint64_t version;                           /* urom_plugin_get_version() */
	char plugin_name[UROM_PLUGIN_NAME_MAX_LEN]; /* file name without extension */
};

/* A command as it reaches the plugin. */
struct urom_worker_cmd {
	uint64_t type;         /* the plugin id the command is addressed to */
	uint64_t urom_context; /* owned by the framework; copy it into the reply */
	uint64_t len;          /* number of bytes in plugin_cmd */
	uint8_t plugin_cmd[];
};

struct urom_worker_cmd_desc {
	UROM_LIST_LINK_T entry;
	uint64_t dest_id; /* the host connection that sent the command */
	struct urom_worker_cmd worker_cmd;
};

/* A notification as the plugin produces it. */
struct urom_worker_notify {
	uint64_t type;         /* copied from the command */
	uint64_t urom_context; /* copied from the command */
	uint64_t len;          /* number of bytes in plugin_notif */
	urom_status_t status;
	uint32_t reserved;
	uint8_t plugin_notif[];
};

struct urom_worker_notif_desc {
	UROM_LIST_LINK_T entry;
	uint64_t dest_id; /* copied from the command descriptor */
	struct urom_worker_notify worker_notif;
};

/* The plugin's interface table; the field order is the ABI. */
struct urom_plugin_iface {
	UROM_IFACE_VERSION_FIELD;
	urom_status_t (*open)(struct urom_worker_ctx *ctx);
	void (*close)(struct urom_worker_ctx *ctx);
	/* Two-call protocol: a too small *addr_len gets the needed size back
	 * with UROM_ERR_INVALID_VALUE; otherwise the address is copied out. */
	urom_status_t (*addr)(struct urom_worker_ctx *ctx, void *addr, size_t *addr_len);
	urom_status_t (*worker_cmd)(struct urom_worker_ctx *ctx, UROM_LIST_LINK_T *cmd_list);
	/* Appends malloc()ed notification descriptors; UROM_ERR_EMPTY when none. */
	urom_status_t (*progress)(struct urom_worker_ctx *ctx, UROM_LIST_LINK_T *notif_list);
	urom_status_t (*notif_pack)(struct urom_worker_notify *notif, size_t *packed_notif_len, void *packed_notif);
};

/* Peer look-ups that the worker provides once a domain has started. */
struct urom_domain_lookups_iface {
	urom_status_t (*addr_lookup)(struct urom_worker_ctx *ctx, uint64_t domain_id, void **addr);
	urom_status_t (*seg_lookup)(struct urom_worker_ctx *ctx, uint64_t domain_id, uint64_t va, int *seg);
	urom_status_t (*memh_lookup)(struct urom_worker_ctx *ctx, uint64_t domain_id, int seg, size_t *len,
				     void **memh);
	urom_status_t (*mkey_lookup)(struct urom_worker_ctx *ctx, uint64_t domain_id, int seg, size_t *len,
				     void **rkey);
};

struct urom_worker_ctx {
	struct urom_plugin_iface iface;
	struct urom_domain_lookups_iface domain_iface;
	void *plugin_ctx; /* set by open() */
};

/*
 * Entry points keep default visibility even in a plugin built with -fvisibility=hidden: the
 * attribute of these declarations carries over to definitions written without one.
 */
#define UROM_PLUGIN_EXPORT __attribute__((visibility("default")))

/* The two symbols every plugin exports. */
UROM_PLUGIN_EXPORT urom_status_t urom_plugin_get_iface(struct urom_plugin_iface *iface);
UROM_PLUGIN_EXPORT urom_status_t urom_plugin_get_version(uint64_t *version);

/*
 * Optional entry points; a plugin without them is polled and reads only addresses that its own
 * plugin id published.
 *
 * urom_plugin_get_transport: the transport the plugin's address belongs to, a static NUL-terminated
 * ASCII name of 1 to 64 characters from [A-Za-z0-9._:/-]. A domain look-up may hand a plugin an
 * address that another plugin published when both name the same transport.
 *
 * urom_plugin_get_wakeup_fd: after open, a descriptor that becomes readable when progress() has work
 * (UCX: ucp_worker_get_efd). The worker neither reads nor closes it. UROM_ERR_NOT_SUPPORTED: this
 * instance has none and is polled.
 *
 * urom_plugin_arm_wakeup: called before the worker sleeps on that descriptor (UCX: ucp_worker_arm).
 * UROM_SUCCESS: armed, the worker may sleep until the descriptor is readable; UROM_ERR_AGAIN: work
 * is pending, the worker calls progress() again instead.
 */
UROM_PLUGIN_EXPORT urom_status_t urom_plugin_get_transport(const char **name);
UROM_PLUGIN_EXPORT urom_status_t urom_plugin_get_wakeup_fd(struct urom_worker_ctx *ctx, int *fd);
UROM_PLUGIN_EXPORT urom_status_t urom_plugin_arm_wakeup(struct urom_worker_ctx *ctx);

/* The process at the other end of a host connection, as the kernel named it when the host connected. */
struct urom_host_process {
	int32_t pid;   /* in the worker's pid namespace */
	int32_t pidfd; /* a pidfd of that process, owned by the caller */
};

/*
 * urom_worker_host_process: which process sent the commands of host connection dest_id (a command
 * descriptor's dest_id), for cross-memory attach (process_vm_readv/process_vm_writev on host->pid,
 * once host->pidfd says the process is still the one that connected). The worker learns it from the
 * kernel (the peer of the connection's Unix socket), never from what the host sends.
 *
 *   UROM_SUCCESS: *host is filled; host->pidfd is a new descriptor (close-on-exec) that the caller
 *       owns and must close(), whatever happens to the connection afterwards;
 *   UROM_ERR_NOT_FOUND: the worker has no open connection with that id;
 *   UROM_ERR_NOT_SUPPORTED: the connection has no local process (TCP), or the worker could not learn it;
 *   UROM_ERR_INVALID_VALUE: ctx or host is NULL;
 *   UROM_ERR_NO_MEMORY / UROM_ERR_OPERATING_SYSTEM: no descriptor could be made for the caller.
 *
 * The worker provides it (its bridge library, loaded before any plugin); the reference is weak, so
 * a plugin that calls it still loads where it is absent (a probe, an older worker, a DOCA worker):
 * there the symbol is NULL, which a plugin checks first:
 *
 *   if (urom_worker_host_process == NULL) return UROM_ERR_NOT_SUPPORTED;
 *
 * Safe to call from any thread. Whether process_vm_readv then works is the kernel's ptrace rule:
 * the worker must run as the host's uid (and Yama's ptrace_scope may ask more).
 */
UROM_PLUGIN_EXPORT urom_status_t urom_worker_host_process(struct urom_worker_ctx *ctx, uint64_t dest_id,
							  struct urom_host_process *host) __attribute__((weak));

#ifndef __cplusplus
_Static_assert(sizeof(UROM_LIST_LINK_T) == 16, "list link is two pointers");
_Static_assert(offsetof(struct urom_plugin_iface, open) == 8, "open follows the API-version field");
_Static_assert(sizeof(struct urom_plugin_iface) == 56, "version field + six entry points");
_Static_assert(offsetof(struct urom_worker_ctx, domain_iface) == 56, "domain look-ups follow the iface");
_Static_assert(offsetof(struct urom_worker_ctx, plugin_ctx) == 88, "plugin_ctx follows the look-ups");
_Static_assert(offsetof(struct urom_worker_cmd_desc, dest_id) == 16, "dest_id follows the link");
_Static_assert(offsetof(struct urom_worker_cmd_desc, worker_cmd) == 24, "command header at 24");
_Static_assert(offsetof(struct urom_worker_cmd, plugin_cmd) == 24, "command payload after 3 words");
_Static_assert(offsetof(struct urom_worker_notify, status) == 24, "status after 3 words");
_Static_assert(offsetof(struct urom_worker_notify, plugin_notif) == 32, "notification payload at 32");
_Static_assert(offsetof(struct urom_worker_notif_desc, worker_notif) == 24, "notification header at 24");
_Static_assert(sizeof(struct urom_plugin_info) == 64, "plugin info is 16 + 48 bytes");
_Static_assert(sizeof(struct urom_host_process) == 8, "host process: pid, pidfd");
#endif

#ifdef __cplusplus
}
#endif

#endif /* UROM_PLUGIN_H_ */
