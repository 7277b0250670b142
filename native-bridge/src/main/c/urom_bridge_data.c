/* SPDX-License-Identifier: Apache-2.0 */
/*
 * liburom_bridge.so: the data path between NativePlugin and a plugin's
 * interface table.
 *
 * Each entry point does in one call from Java what would otherwise take a
 * dozen JNA crossings: build and hand over a command descriptor, collect the
 * notifications and pack each one. A call's only argument is the plugin's call
 * block (struct urom_bridge_block, in memory the Java side owns and reads and
 * writes without crossing): the entry points, the two list heads, and each
 * call's inputs and outputs. One argument keeps the JNA call itself cheap.
 *
 * Ownership is the plugin ABI's: command descriptors are malloc()ed here and
 * freed by the plugin with free(), or here when the plugin leaves one on the
 * list; notification descriptors are malloc()ed by the plugin and freed here,
 * only after notif_pack has packed that very descriptor (a DOCA plugin may
 * point from its notification into the rest of its allocation, as the
 * sandbox's inline receive does). A block belongs to one plugin instance,
 * which one thread drives; the functions keep no state of their own.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <urom_plugin.h>

#define UROM_BRIDGE_EXPORT __attribute__((visibility("default")))

/* urom_bridge_submit's result: the plugin's status in the low 32 bits, these flags above. */
#define SUBMIT_NO_MEMORY (1ULL << 32)
#define SUBMIT_UNKNOWN_NODE (2ULL << 32)

/*
 * urom_bridge_progress/urom_bridge_drain write one record per notification
 * into records: dest_id, type, urom_context, len, packed_len (uint64 each),
 * status (int32), pack_status (int32), then the packed_len bytes notif_pack
 * wrote (none unless pack_status is UROM_SUCCESS); records follow each other
 * unpadded. A notification whose len exceeds max_len is not packed (a record
 * with pack_status PACK_SKIPPED). notif_pack is given at least
 * PACK_MIN_ROOM + len bytes, whatever it later says it needs, since a DOCA
 * plugin may pack a fixed size without looking at the room it is given.
 */
#define RECORD_HEADER 48
#define PACK_SLACK 1024
#define PACK_MIN_ROOM (sizeof(struct urom_worker_notify) + PACK_SLACK)
/* pack_status values of the bridge's own, outside doca_error_t's range. */
#define PACK_SKIPPED (-1)
#define PACK_OVERRAN (-2) /* notif_pack reported more bytes than the room it had */

typedef urom_status_t (*worker_cmd_fn)(struct urom_worker_ctx *ctx, urom_list_link_t *cmd_list);
typedef urom_status_t (*progress_fn)(struct urom_worker_ctx *ctx, urom_list_link_t *notif_list);
typedef urom_status_t (*notif_pack_fn)(struct urom_worker_notify *notif, size_t *len, void *packed);

/* The layout BridgeDataPath's offsets name; every field is 8 bytes. */
struct urom_bridge_block {
	/* set once */
	worker_cmd_fn worker_cmd;
	progress_fn progress;
	notif_pack_fn notif_pack;
	struct urom_worker_ctx *ctx;
	urom_list_link_t cmd_list;
	urom_list_link_t notif_list;
	uint64_t max_len;
	/* urom_bridge_submit's command */
	uint64_t dest_id;
	uint64_t type;
	uint64_t urom_context;
	const uint8_t *payload;
	uint64_t len;
	/* urom_bridge_progress/urom_bridge_drain: where the records go, and the summary */
	uint8_t *records;
	uint64_t records_capacity;
	uint64_t status; /* progress's status, as uint32 */
	uint64_t records_count;
	uint64_t records_used;   /* bytes */
	uint64_t records_needed; /* the room the next record needs (it stays on the list); 0 when drained */
};

_Static_assert(offsetof(struct urom_bridge_block, cmd_list) == 32, "block: cmd_list");
_Static_assert(offsetof(struct urom_bridge_block, max_len) == 64, "block: max_len");
_Static_assert(offsetof(struct urom_bridge_block, len) == 104, "block: len");
_Static_assert(offsetof(struct urom_bridge_block, records_needed) == 152, "block: records_needed");
_Static_assert(sizeof(struct urom_bridge_block) == 160, "block: size");

static void list_reset(urom_list_link_t *head)
{
	head->prev = head;
	head->next = head;
}

static void store_u64(uint8_t *out, uint64_t value)
{
	memcpy(out, &value, sizeof(value));
}

static void store_u32(uint8_t *out, uint32_t value)
{
	memcpy(out, &value, sizeof(value));
}

/*
 * Hands the block's command to worker_cmd on the empty command list. The
 * payload is copied; a descriptor the plugin leaves first on the list is freed.
 */
UROM_BRIDGE_EXPORT uint64_t urom_bridge_submit(struct urom_bridge_block *b)
{
	urom_list_link_t *head = &b->cmd_list;
	struct urom_worker_cmd_desc *desc = malloc(sizeof(*desc) + b->len);
	uint64_t flags = 0;
	urom_list_link_t *first;
	urom_status_t status;

	if (desc == NULL)
		return SUBMIT_NO_MEMORY;
	desc->entry.prev = head;
	desc->entry.next = head;
	desc->dest_id = b->dest_id;
	desc->worker_cmd.type = b->type;
	desc->worker_cmd.urom_context = b->urom_context;
	desc->worker_cmd.len = b->len;
	if (b->len > 0)
		memcpy(desc->worker_cmd.plugin_cmd, b->payload, b->len);
	head->prev = &desc->entry;
	head->next = &desc->entry;

	status = b->worker_cmd(b->ctx, head);

	first = head->next;
	if (first == &desc->entry)
		free(desc);
	else if (first != head)
		flags = SUBMIT_UNKNOWN_NODE;
	list_reset(head);
	return flags | (uint32_t)status;
}

static void store_record_header(uint8_t *record, const struct urom_worker_notif_desc *desc, uint64_t packed_len,
				int32_t pack_status)
{
	store_u64(record, desc->dest_id);
	store_u64(record + 8, desc->worker_notif.type);
	store_u64(record + 16, desc->worker_notif.urom_context);
	store_u64(record + 24, desc->worker_notif.len);
	store_u64(record + 32, packed_len);
	store_u32(record + 40, (uint32_t)desc->worker_notif.status);
	store_u32(record + 44, (uint32_t)pack_status);
}

/*
 * Packs the notifications on the list into the records buffer, each with the
 * plugin's notif_pack on its own descriptor, and frees each descriptor once
 * packed, while they fit. One that does not fit stays on the list with those
 * behind it, and records_needed says how much room it needs.
 */
UROM_BRIDGE_EXPORT void urom_bridge_drain(struct urom_bridge_block *b)
{
	urom_list_link_t *head = &b->notif_list;
	urom_list_link_t *node = head->next;
	uint64_t capacity = b->records_capacity;
	uint64_t used = 0;
	uint64_t count = 0;

	b->records_needed = 0;
	while (node != head && node != NULL) {
		struct urom_worker_notif_desc *desc = (struct urom_worker_notif_desc *)node;
		urom_list_link_t *next = node->next;
		uint64_t len = desc->worker_notif.len;
		uint8_t *record = b->records + used;
		uint64_t room;
		size_t packed_len;
		urom_status_t status;

		if (len > b->max_len) {
			if (capacity - used < RECORD_HEADER) {
				b->records_needed = RECORD_HEADER;
				break;
			}
			store_record_header(record, desc, 0, PACK_SKIPPED);
			used += RECORD_HEADER;
		} else {
			if (capacity - used < RECORD_HEADER + PACK_MIN_ROOM + len) {
				b->records_needed = RECORD_HEADER + PACK_MIN_ROOM + len;
				break;
			}
			room = capacity - used - RECORD_HEADER;
			packed_len = room;
			status = b->notif_pack(&desc->worker_notif, &packed_len, record + RECORD_HEADER);
			if (status == UROM_ERR_INVALID_VALUE && packed_len > room && packed_len <= b->max_len) {
				/* the two-call protocol: it asked for more room; pack it again once there is */
				b->records_needed = RECORD_HEADER + packed_len;
				break;
			}
			if (status != UROM_SUCCESS) {
				store_record_header(record, desc, packed_len, (int32_t)status);
				used += RECORD_HEADER;
			} else if (packed_len > room) {
				store_record_header(record, desc, packed_len, PACK_OVERRAN);
				used += RECORD_HEADER;
			} else {
				store_record_header(record, desc, packed_len, UROM_SUCCESS);
				used += RECORD_HEADER + packed_len;
			}
		}
		count++;
		free(node);
		node = next;
	}
	if (b->records_needed == 0)
		list_reset(head);
	else {
		head->next = node;
		node->prev = head;
	}
	b->records_count = count;
	b->records_used = used;
}

/* Calls progress on the empty notification list, then drains it into the records buffer. */
UROM_BRIDGE_EXPORT void urom_bridge_progress(struct urom_bridge_block *b)
{
	list_reset(&b->notif_list);
	b->status = (uint32_t)b->progress(b->ctx, &b->notif_list);
	urom_bridge_drain(b);
}
