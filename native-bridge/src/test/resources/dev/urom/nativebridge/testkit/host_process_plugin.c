/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Test fixture: a plugin that asks urom_worker_host_process who its host is
 * and reads the host's memory with process_vm_readv, as a collectives plugin
 * reads a host's source buffer.
 *
 * A command is four little-endian u64: op, dest_id, address, length.
 *   op 1 SELF:      looks up the command's own dest_id;
 *   op 2 OTHER:     looks up the dest_id given;
 *   op 3 NULL_HOST: calls with host NULL;
 *   op 4 NULL_CTX:  calls with ctx NULL.
 * When the look-up succeeds and length is not 0, length bytes (at most 64 KiB)
 * at address are read from the host's pid; the pidfd is closed before the
 * answer is queued.
 *
 * The answer, always SUCCESS for a well-formed command (INVALID_VALUE and no
 * answer for another), is six int32 and one int64, then the bytes read:
 *   available   1 when the worker provides the symbol, 0 when it is NULL
 *   status      what the call returned (NOT_SUPPORTED when unavailable)
 *   pid         host.pid (0 unless SUCCESS)
 *   alive       1 when pidfd_send_signal(pidfd, 0) succeeded, else -errno (0 unless SUCCESS)
 *   cloexec     1 when the pidfd is close-on-exec (0 unless SUCCESS)
 *   closed      1 when close(pidfd) succeeded (0 unless SUCCESS)
 *   read        process_vm_readv's result, or -errno
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <urom_plugin.h>
#include <urom_plugin_util.h>

#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

#define OP_SELF 1
#define OP_OTHER 2
#define OP_NULL_HOST 3
#define OP_NULL_CTX 4
#define MAX_READ 65536
#define ANSWER_HEADER 32

struct pending {
	urom_list_link_t head;
};

static urom_status_t hp_open(struct urom_worker_ctx *ctx)
{
	struct pending *pending = malloc(sizeof(*pending));

	if (pending == NULL)
		return UROM_ERR_NO_MEMORY;
	urom_list_init(&pending->head);
	ctx->plugin_ctx = pending;
	return UROM_SUCCESS;
}

static void hp_close(struct urom_worker_ctx *ctx)
{
	struct pending *pending = ctx->plugin_ctx;
	urom_list_link_t *node;

	while ((node = urom_list_pop_head(&pending->head)) != NULL)
		free(node);
	free(pending);
	ctx->plugin_ctx = NULL;
}

static urom_status_t hp_addr(struct urom_worker_ctx *ctx, void *addr, size_t *len)
{
	(void)ctx;
	(void)addr;
	*len = 0;
	return UROM_SUCCESS;
}

/* The answer to one command, appended to the pending list; UROM_ERR_NO_MEMORY when it cannot be. */
static urom_status_t answer(struct urom_worker_ctx *ctx, const struct urom_worker_cmd_desc *cmd)
{
	struct pending *pending = ctx->plugin_ctx;
	const uint8_t *in = cmd->worker_cmd.plugin_cmd;
	uint64_t op = urom_load_le64(in), dest_id = urom_load_le64(in + 8);
	uint64_t address = urom_load_le64(in + 16), length = urom_load_le64(in + 24);
	struct urom_host_process host = {0, -1};
	struct urom_worker_notif_desc *notif;
	int32_t available = urom_worker_host_process != NULL;
	int32_t alive = 0, cloexec = 0, closed = 0;
	int64_t done = 0;
	urom_status_t status;
	uint8_t *out;

	if (length > MAX_READ)
		length = MAX_READ;
	if (!available)
		status = UROM_ERR_NOT_SUPPORTED;
	else if (op == OP_SELF)
		status = urom_worker_host_process(ctx, cmd->dest_id, &host);
	else if (op == OP_OTHER)
		status = urom_worker_host_process(ctx, dest_id, &host);
	else if (op == OP_NULL_HOST)
		status = urom_worker_host_process(ctx, cmd->dest_id, NULL);
	else
		status = urom_worker_host_process(NULL, cmd->dest_id, &host);
	notif = malloc(sizeof(*notif) + ANSWER_HEADER + (status == UROM_SUCCESS ? length : 0));
	if (notif == NULL) {
		if (status == UROM_SUCCESS)
			close(host.pidfd);
		return UROM_ERR_NO_MEMORY;
	}
	out = notif->worker_notif.plugin_notif;
	if (status == UROM_SUCCESS) {
		int flags = fcntl(host.pidfd, F_GETFD);

		alive = syscall(SYS_pidfd_send_signal, host.pidfd, 0, NULL, 0) == 0 ? 1 : -errno;
		cloexec = flags >= 0 && (flags & FD_CLOEXEC) != 0;
		if (length > 0) {
			struct iovec local = {out + ANSWER_HEADER, length};
			struct iovec remote = {(void *)(uintptr_t)address, length};
			ssize_t n = process_vm_readv(host.pid, &local, 1, &remote, 1, 0);

			done = n < 0 ? -errno : n;
		}
		closed = close(host.pidfd) == 0;
	} else {
		host.pid = 0;
	}
	urom_store_le32(out, (uint32_t)available);
	urom_store_le32(out + 4, (uint32_t)(int32_t)status);
	urom_store_le32(out + 8, (uint32_t)host.pid);
	urom_store_le32(out + 12, (uint32_t)alive);
	urom_store_le32(out + 16, (uint32_t)cloexec);
	urom_store_le32(out + 20, (uint32_t)closed);
	urom_store_le64(out + 24, (uint64_t)done);
	notif->dest_id = cmd->dest_id;
	notif->worker_notif.type = cmd->worker_cmd.type;
	notif->worker_notif.urom_context = cmd->worker_cmd.urom_context;
	notif->worker_notif.len = ANSWER_HEADER + (done > 0 ? (uint64_t)done : 0);
	notif->worker_notif.status = UROM_SUCCESS;
	notif->worker_notif.reserved = 0;
	urom_list_add_tail(&pending->head, &notif->entry);
	return UROM_SUCCESS;
}

static urom_status_t hp_worker_cmd(struct urom_worker_ctx *ctx, urom_list_link_t *cmds)
{
	urom_status_t result = UROM_SUCCESS;

	while (cmds->next != cmds) {
		struct urom_worker_cmd_desc *cmd = (struct urom_worker_cmd_desc *)cmds->next;
		uint64_t op = cmd->worker_cmd.len == 32 ? urom_load_le64(cmd->worker_cmd.plugin_cmd) : 0;

		urom_list_del(&cmd->entry);
		if (op < OP_SELF || op > OP_NULL_CTX)
			result = UROM_ERR_INVALID_VALUE;
		else if (answer(ctx, cmd) != UROM_SUCCESS)
			result = UROM_ERR_NO_MEMORY;
		free(cmd);
	}
	return result;
}

static urom_status_t hp_progress(struct urom_worker_ctx *ctx, urom_list_link_t *notifs)
{
	struct pending *pending = ctx->plugin_ctx;

	if (urom_list_is_empty(&pending->head))
		return UROM_ERR_EMPTY;
	urom_list_move_tail(notifs, &pending->head);
	return UROM_SUCCESS;
}

urom_status_t urom_plugin_get_iface(struct urom_plugin_iface *iface)
{
	iface->api_version = UROM_PLUGIN_API_VERSION;
	iface->open = hp_open;
	iface->close = hp_close;
	iface->addr = hp_addr;
	iface->worker_cmd = hp_worker_cmd;
	iface->progress = hp_progress;
	iface->notif_pack = urom_notif_pack_inline;
	return UROM_SUCCESS;
}

urom_status_t urom_plugin_get_version(uint64_t *version)
{
	*version = 1;
	return UROM_SUCCESS;
}
