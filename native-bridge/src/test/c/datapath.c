/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Test fixture for the bridge's data path. Commands steer what the plugin
 * queues; progress hands everything queued over at once.
 *   "BATCH" + uint32 count + uint32 size   queue count notifications of size
 *                                          bytes, byte i of number k = (k + i) & 0xff
 *   "BADLEN"      queue a notification whose len field is 2^63 + 5
 *                 (only its header is allocated)
 *   "PROGFAIL"    the next progress hands over the queue and returns DRIVER
 *   "STRANGER"    free the descriptor and leave a node of the plugin's own on
 *                 the command list (it must not be freed by the caller)
 *   "PACK" + uint32 mode + uint32 size   queue one notification of size
 *                 pattern bytes (number 0) that notif_pack packs as mode says:
 *                 1 PAD   ask for (size + 64 KiB) bytes of payload, so a first
 *                         call with less room gets INVALID_VALUE and the size it
 *                         needs; then the payload followed by 64 KiB of 0xEE,
 *                         the header's len saying so
 *                 2 FAIL  return NO_MEMORY
 *                 3 SHORT pack 8 bytes
 *                 4 LIE   a header whose len is one more than the bytes after it
 *                 5 OVER  report one byte more than the room it was given
 * Otherwise notif_pack writes the notification as the ABI lays it out.
 */
#include <stdlib.h>
#include <string.h>

#include <urom_plugin.h>
#include <urom_plugin_util.h>

#define EXPORT __attribute__((visibility("default")))
#define PACK_EXTRA (64 * 1024)

enum { PACK_PAD = 1, PACK_FAIL = 2, PACK_SHORT = 3, PACK_LIE = 4, PACK_OVER = 5 };

static urom_list_link_t pending = {&pending, &pending};
static urom_list_link_t stranger;
static int fail_next_progress;

static int is(const struct urom_worker_cmd *cmd, const char *word)
{
	size_t n = strlen(word);
	return cmd->len >= n && memcmp(cmd->plugin_cmd, word, n) == 0;
}

static struct urom_worker_notif_desc *queue(const struct urom_worker_cmd_desc *c, uint64_t len, size_t allocated)
{
	struct urom_worker_notif_desc *n = malloc(sizeof(*n) + allocated);
	if (n == NULL)
		return NULL;
	n->dest_id = c->dest_id;
	n->worker_notif.type = c->worker_cmd.type;
	n->worker_notif.urom_context = c->worker_cmd.urom_context;
	n->worker_notif.len = len;
	n->worker_notif.status = UROM_SUCCESS;
	n->worker_notif.reserved = 0;
	urom_list_add_tail(&pending, &n->entry);
	return n;
}

static urom_status_t dp_open(struct urom_worker_ctx *ctx)
{
	(void)ctx;
	return UROM_SUCCESS;
}
static void dp_close(struct urom_worker_ctx *ctx)
{
	(void)ctx;
}
static urom_status_t dp_addr(struct urom_worker_ctx *ctx, void *a, size_t *l)
{
	(void)ctx;
	(void)a;
	*l = 0;
	return UROM_SUCCESS;
}

static urom_status_t dp_cmd(struct urom_worker_ctx *ctx, urom_list_link_t *cmds)
{
	struct urom_worker_cmd_desc *c = (struct urom_worker_cmd_desc *)cmds->next;
	urom_status_t status = UROM_SUCCESS;
	(void)ctx;

	urom_list_del(&c->entry);
	if (is(&c->worker_cmd, "BATCH") && c->worker_cmd.len >= 13) {
		uint32_t count, size;
		memcpy(&count, c->worker_cmd.plugin_cmd + 5, 4);
		memcpy(&size, c->worker_cmd.plugin_cmd + 9, 4);
		for (uint32_t k = 0; k < count; k++) {
			struct urom_worker_notif_desc *n = queue(c, size, size);
			if (n == NULL) {
				status = UROM_ERR_NO_MEMORY;
				break;
			}
			for (uint32_t i = 0; i < size; i++)
				n->worker_notif.plugin_notif[i] = (uint8_t)(k + i);
		}
	} else if (is(&c->worker_cmd, "PACK") && c->worker_cmd.len >= 12) {
		uint32_t mode, size;
		struct urom_worker_notif_desc *n;
		memcpy(&mode, c->worker_cmd.plugin_cmd + 4, 4);
		memcpy(&size, c->worker_cmd.plugin_cmd + 8, 4);
		n = queue(c, size, size);
		if (n == NULL) {
			status = UROM_ERR_NO_MEMORY;
		} else {
			n->worker_notif.reserved = mode;
			for (uint32_t i = 0; i < size; i++)
				n->worker_notif.plugin_notif[i] = (uint8_t)i;
		}
	} else if (is(&c->worker_cmd, "BADLEN")) {
		if (queue(c, (1ULL << 63) + 5, 0) == NULL)
			status = UROM_ERR_NO_MEMORY;
	} else if (is(&c->worker_cmd, "PROGFAIL")) {
		fail_next_progress = 1;
	} else if (is(&c->worker_cmd, "STRANGER")) {
		urom_list_add_tail(cmds, &stranger);
	} else {
		status = UROM_ERR_NOT_SUPPORTED;
	}
	free(c);
	return status;
}

static urom_status_t dp_progress(struct urom_worker_ctx *ctx, urom_list_link_t *out)
{
	(void)ctx;
	urom_list_move_tail(out, &pending);
	if (fail_next_progress) {
		fail_next_progress = 0;
		return UROM_ERR_DRIVER;
	}
	return UROM_SUCCESS;
}

static urom_status_t dp_pack(struct urom_worker_notify *n, size_t *len, void *out)
{
	struct urom_worker_notify header = *n;
	size_t need = sizeof(*n) + n->len;

	header.reserved = 0;
	switch (n->reserved) {
	case PACK_PAD:
		need += PACK_EXTRA;
		if (*len < need) {
			*len = need;
			return UROM_ERR_INVALID_VALUE;
		}
		header.len = n->len + PACK_EXTRA;
		memcpy(out, &header, sizeof(header));
		memcpy((char *)out + sizeof(header), n->plugin_notif, n->len);
		memset((char *)out + sizeof(*n) + n->len, 0xEE, PACK_EXTRA);
		*len = need;
		return UROM_SUCCESS;
	case PACK_FAIL:
		return UROM_ERR_NO_MEMORY;
	case PACK_SHORT:
		memcpy(out, &header, 8);
		*len = 8;
		return UROM_SUCCESS;
	case PACK_OVER:
		*len += 1;
		return UROM_SUCCESS;
	default:
		break;
	}
	if (*len < need) {
		*len = need;
		return UROM_ERR_INVALID_VALUE;
	}
	if (n->reserved == PACK_LIE)
		header.len = n->len + 1;
	memcpy(out, &header, sizeof(header));
	memcpy((char *)out + sizeof(header), n->plugin_notif, n->len);
	*len = need;
	return UROM_SUCCESS;
}

EXPORT urom_status_t urom_plugin_get_iface(struct urom_plugin_iface *iface)
{
	iface->api_version = UROM_PLUGIN_API_VERSION;
	iface->open = dp_open;
	iface->close = dp_close;
	iface->addr = dp_addr;
	iface->worker_cmd = dp_cmd;
	iface->progress = dp_progress;
	iface->notif_pack = dp_pack;
	return UROM_SUCCESS;
}

EXPORT urom_status_t urom_plugin_get_version(uint64_t *version)
{
	*version = 7;
	return UROM_SUCCESS;
}
