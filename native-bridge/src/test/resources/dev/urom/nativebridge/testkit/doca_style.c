/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Test fixture written the way DOCA's sample plugins are (compat headers,
 * doca_error_t, ucs_list_* helpers, DOCA_LOG_*, entry points without any
 * visibility attribute), with the habits of those plugins that a worker must
 * cope with. Built with -fvisibility=hidden, as the DOCA recipe of docs/sdk.md says.
 *
 * Commands: { uint64 op; uint64 context; uint64 a; } (24 bytes; any other
 * length is refused with DOCA_ERROR_INVALID_VALUE and nothing queued).
 *   op 1 SEND  a = a destination; this plugin knows none, so, like NVIDIA's
 *              sandbox on an unknown destination, it both queues an error
 *              notification (DOCA_ERROR_NOT_FOUND) and returns that error.
 *   op 2 RECV  a = count: answers with an "inline receive": the notification
 *              struct holds a pointer to count data bytes (byte i = i * 7 + 3)
 *              that follow it in the same malloc()ed descriptor.
 *   op 3 SAY   writes a line to stdout (printf) and to stderr (fprintf and
 *              write(2)), then answers with no data.
 *   op 4 ABORT frees a block twice: glibc aborts the process.
 *   op 5 CRASH writes through a null pointer.
 * Notification bytes: { uint64 op; uint64 context; uint64 buffer; uint64 count;
 * int32 status; uint32 pad; } then, for RECV, the count bytes read through
 * buffer; a notification's len covers the struct and its inline bytes.
 * notif_pack copies the header as it is, then packs that fixed size (plus the
 * inline bytes) whatever len says, and never looks at the room it is given.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <doca_error.h>
#include <doca_log.h>
#include <doca_urom_plugin.h>
#include <ucs/datastruct/list.h>

DOCA_LOG_REGISTER(TEST::DOCA_STYLE);

/* Built with -DSTYLE_EXPLICIT_EXPORT, the entry points carry DOCA_EXPORTED as well. */
#ifdef STYLE_EXPLICIT_EXPORT
#define STYLE_ENTRY DOCA_EXPORTED
#else
#define STYLE_ENTRY
#endif

enum { OP_SEND = 1, OP_RECV = 2, OP_SAY = 3, OP_ABORT = 4, OP_CRASH = 5 };

struct style_cmd {
	uint64_t op;
	uint64_t context;
	uint64_t a;
};

struct style_notif {
	uint64_t op;
	uint64_t context;
	uint64_t buffer;
	uint64_t count;
	int32_t status;
	uint32_t pad;
};

struct style_ctx {
	ucs_list_link_t done;
};

static doca_error_t style_open(struct urom_worker_ctx *ctx)
{
	struct style_ctx *sc = calloc(1, sizeof(*sc));

	if (sc == NULL)
		return DOCA_ERROR_NO_MEMORY;
	ucs_list_head_init(&sc->done);
	ctx->plugin_ctx = sc;
	return DOCA_SUCCESS;
}

static void style_close(struct urom_worker_ctx *ctx)
{
	struct style_ctx *sc = ctx->plugin_ctx;
	struct urom_worker_notif_desc *n, *tmp;

	ucs_list_for_each_safe(n, tmp, &sc->done, entry) {
		ucs_list_del(&n->entry);
		free(n);
	}
	free(sc);
}

static doca_error_t style_addr(struct urom_worker_ctx *ctx, void *addr, size_t *len)
{
	(void)ctx;
	(void)addr;
	*len = 0;
	return DOCA_SUCCESS;
}

static struct urom_worker_notif_desc *answer(struct style_ctx *sc, const struct urom_worker_cmd_desc *c,
					     const struct style_cmd *cmd, size_t extra, doca_error_t status)
{
	struct urom_worker_notif_desc *n = calloc(1, sizeof(*n) + sizeof(struct style_notif) + extra);
	struct style_notif *body;

	if (n == NULL)
		return NULL;
	n->dest_id = c->dest_id;
	n->worker_notif.type = c->worker_cmd.type;
	n->worker_notif.urom_context = c->worker_cmd.urom_context;
	n->worker_notif.len = sizeof(struct style_notif) + extra;
	n->worker_notif.status = status;
	body = (struct style_notif *)n->worker_notif.plugin_notif;
	body->op = cmd->op;
	body->context = cmd->context;
	body->status = status;
	ucs_list_add_tail(&sc->done, &n->entry);
	return n;
}

static doca_error_t style_cmd(struct urom_worker_ctx *ctx, ucs_list_link_t *cmd_list)
{
	struct style_ctx *sc = ctx->plugin_ctx;
	struct urom_worker_cmd_desc *c;
	struct urom_worker_notif_desc *n;
	struct style_notif *body;
	struct style_cmd cmd;
	uint8_t *data;
	char *twice;

	while (!ucs_list_is_empty(cmd_list)) {
		c = ucs_list_extract_head(cmd_list, struct urom_worker_cmd_desc, entry);
		if (c->worker_cmd.len != sizeof(cmd)) {
			DOCA_LOG_ERR("command of %lu bytes refused", (unsigned long)c->worker_cmd.len);
			free(c);
			return DOCA_ERROR_INVALID_VALUE;
		}
		memcpy(&cmd, c->worker_cmd.plugin_cmd, sizeof(cmd));
		switch (cmd.op) {
		case OP_SEND:
			answer(sc, c, &cmd, 0, DOCA_ERROR_NOT_FOUND);
			DOCA_LOG_ERR("no peer at destination %lu", (unsigned long)cmd.a);
			free(c);
			return DOCA_ERROR_NOT_FOUND;
		case OP_RECV:
			n = answer(sc, c, &cmd, cmd.a, DOCA_SUCCESS);
			if (n == NULL) {
				free(c);
				return DOCA_ERROR_NO_MEMORY;
			}
			body = (struct style_notif *)n->worker_notif.plugin_notif;
			data = (uint8_t *)(body + 1);
			for (uint64_t i = 0; i < cmd.a; i++)
				data[i] = (uint8_t)(i * 7 + 3);
			body->buffer = (uint64_t)(uintptr_t)data;
			body->count = cmd.a;
			break;
		case OP_SAY:
			printf("doca_style printf to stdout, context %lu\n", (unsigned long)cmd.context);
			fprintf(stderr, "doca_style fprintf to stderr, context %lu\n", (unsigned long)cmd.context);
			if (write(2, "doca_style write(2) to fd 2\n", 28) != 28)
				return DOCA_ERROR_IO_FAILED;
			answer(sc, c, &cmd, 0, DOCA_SUCCESS);
			break;
		case OP_ABORT:
			twice = malloc(64);
			free(twice);
			free(*(char *volatile *)&twice);
			break;
		case OP_CRASH:
			*(volatile int *)0 = 1;
			break;
		default:
			free(c);
			return DOCA_ERROR_NOT_SUPPORTED;
		}
		free(c);
	}
	return DOCA_SUCCESS;
}

static doca_error_t style_progress(struct urom_worker_ctx *ctx, ucs_list_link_t *notif_list)
{
	struct style_ctx *sc = ctx->plugin_ctx;

	if (ucs_list_is_empty(&sc->done))
		return DOCA_ERROR_EMPTY;
	ucs_list_splice_tail(notif_list, &sc->done);
	ucs_list_head_init(&sc->done);
	return DOCA_SUCCESS;
}

/*
 * Packs the header as it is and a fixed-size body, whatever notif->len says,
 * and reaches a receive's inline data through the pointer in the body.
 */
static doca_error_t style_pack(struct urom_worker_notify *notif, size_t *packed_len, void *packed)
{
	struct style_notif *body = (struct style_notif *)notif->plugin_notif;
	uint8_t *out = packed;

	memcpy(out, notif, sizeof(*notif));
	memcpy(out + sizeof(*notif), body, sizeof(*body));
	*packed_len = sizeof(*notif) + sizeof(*body);
	if (body->op == OP_RECV && body->buffer != 0) {
		memcpy(out + *packed_len, (const void *)(uintptr_t)body->buffer, body->count);
		*packed_len += body->count;
	}
	return DOCA_SUCCESS;
}

STYLE_ENTRY doca_error_t urom_plugin_get_iface(struct urom_plugin_iface *iface)
{
	if (iface == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	DOCA_STRUCT_PTR_CTOR(iface);
	iface->open = style_open;
	iface->close = style_close;
	iface->addr = style_addr;
	iface->worker_cmd = style_cmd;
	iface->progress = style_progress;
	iface->notif_pack = style_pack;
	return DOCA_SUCCESS;
}

STYLE_ENTRY doca_error_t urom_plugin_get_version(uint64_t *version)
{
	if (version == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*version = 1;
	return DOCA_SUCCESS;
}
