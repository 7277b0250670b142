/*
 * liburom_bridge.so: the data path between NativePlugin and a plugin's
 * interface table.
 *
 * Each entry point does in one call from Java what would otherwise take a
 * dozen JNA crossings: build and hand over a command descriptor, collect and
 * copy out the notifications, pack one notification. The Java side calls them
 * through JNA direct mapping and passes every pointer as a plain address.
 *
 * Ownership is the plugin ABI's: command descriptors are malloc()ed here and
 * freed by the plugin with free(), or here when the plugin leaves one on the
 * list; notification descriptors are malloc()ed by the plugin and freed here
 * once copied. A list head belongs to one plugin instance, which one thread
 * drives; the functions keep no state of their own and are otherwise
 * thread-safe.
 */
#include <stdlib.h>
#include <string.h>

#include <urom_plugin.h>

#define UROM_BRIDGE_EXPORT __attribute__((visibility("default")))

/* urom_bridge_submit's result: the plugin's status in the low 32 bits, these flags above. */
#define SUBMIT_NO_MEMORY (1ULL << 32)
#define SUBMIT_UNKNOWN_NODE (2ULL << 32)

/*
 * urom_bridge_progress/urom_bridge_drain write one record per notification:
 * dest_id, type, urom_context, len (uint64 each), status (int32), reserved
 * (uint32), then len payload bytes; records follow each other unpadded. A
 * notification whose len exceeds max_len is written as its header alone. The
 * summary (four uint64) says: the plugin's status, the number of records,
 * the bytes written, and the size of the record that did not fit (0 when the
 * list is drained; otherwise it stays on the list for urom_bridge_drain).
 */
#define RECORD_HEADER 40
#define SUMMARY_STATUS 0
#define SUMMARY_COUNT 1
#define SUMMARY_USED 2
#define SUMMARY_NEEDED 3

typedef urom_status_t (*worker_cmd_fn)(struct urom_worker_ctx *ctx, urom_list_link_t *cmd_list);
typedef urom_status_t (*progress_fn)(struct urom_worker_ctx *ctx, urom_list_link_t *notif_list);
typedef urom_status_t (*notif_pack_fn)(struct urom_worker_notify *notif, size_t *len, void *packed);

static void list_reset(urom_list_link_t *head)
{
	head->prev = head;
	head->next = head;
}

/*
 * Hands one command to worker_cmd on the (empty) list at head. The payload is
 * copied; a descriptor the plugin leaves first on the list is freed.
 */
UROM_BRIDGE_EXPORT uint64_t urom_bridge_submit(worker_cmd_fn worker_cmd, struct urom_worker_ctx *ctx,
					       urom_list_link_t *head, uint64_t dest_id, uint64_t type,
					       uint64_t urom_context, const uint8_t *payload, uint64_t len)
{
	struct urom_worker_cmd_desc *desc = malloc(sizeof(*desc) + len);
	uint64_t flags = 0;
	urom_list_link_t *first;
	urom_status_t status;

	if (desc == NULL)
		return SUBMIT_NO_MEMORY;
	desc->entry.prev = head;
	desc->entry.next = head;
	desc->dest_id = dest_id;
	desc->worker_cmd.type = type;
	desc->worker_cmd.urom_context = urom_context;
	desc->worker_cmd.len = len;
	if (len > 0)
		memcpy(desc->worker_cmd.plugin_cmd, payload, len);
	head->prev = &desc->entry;
	head->next = &desc->entry;

	status = worker_cmd(ctx, head);

	first = head->next;
	if (first == &desc->entry)
		free(desc);
	else if (first != head)
		flags = SUBMIT_UNKNOWN_NODE;
	list_reset(head);
	return flags | (uint32_t)status;
}

static void store_u64(uint8_t *out, uint64_t value)
{
	memcpy(out, &value, sizeof(value));
}

static void store_u32(uint8_t *out, uint32_t value)
{
	memcpy(out, &value, sizeof(value));
}

/* Copies and frees the notifications at head while they fit in out; see the record layout above. */
static void drain(urom_list_link_t *head, uint8_t *out, uint64_t capacity, uint64_t max_len, uint64_t *summary)
{
	urom_list_link_t *node = head->next;
	uint64_t used = 0;
	uint64_t count = 0;

	summary[SUMMARY_NEEDED] = 0;
	while (node != head && node != NULL) {
		struct urom_worker_notif_desc *desc = (struct urom_worker_notif_desc *)node;
		urom_list_link_t *next = node->next;
		uint64_t len = desc->worker_notif.len;
		uint64_t copied = len <= max_len ? len : 0;
		uint8_t *record = out + used;

		if (capacity - used < RECORD_HEADER + copied) {
			summary[SUMMARY_NEEDED] = RECORD_HEADER + copied;
			break;
		}
		store_u64(record, desc->dest_id);
		store_u64(record + 8, desc->worker_notif.type);
		store_u64(record + 16, desc->worker_notif.urom_context);
		store_u64(record + 24, len);
		store_u32(record + 32, (uint32_t)desc->worker_notif.status);
		store_u32(record + 36, 0);
		if (copied > 0)
			memcpy(record + RECORD_HEADER, desc->worker_notif.plugin_notif, copied);
		used += RECORD_HEADER + copied;
		count++;
		free(node);
		node = next;
	}
	if (summary[SUMMARY_NEEDED] == 0) {
		list_reset(head);
	} else {
		head->next = node;
	}
	summary[SUMMARY_COUNT] = count;
	summary[SUMMARY_USED] = used;
}

/* Calls progress on the (empty) list at head, then drains it into out. */
UROM_BRIDGE_EXPORT void urom_bridge_progress(progress_fn progress, struct urom_worker_ctx *ctx, urom_list_link_t *head,
					     uint8_t *out, uint64_t capacity, uint64_t max_len, uint64_t *summary)
{
	urom_status_t status;

	list_reset(head);
	status = progress(ctx, head);
	summary[SUMMARY_STATUS] = (uint32_t)status;
	drain(head, out, capacity, max_len, summary);
}

/* Continues a drain that urom_bridge_progress (or this) left with a record that did not fit. */
UROM_BRIDGE_EXPORT void urom_bridge_drain(urom_list_link_t *head, uint8_t *out, uint64_t capacity, uint64_t max_len,
					  uint64_t *summary)
{
	drain(head, out, capacity, max_len, summary);
}

/* Calls notif_pack with a buffer of capacity bytes; *len_out gets the length it reported. */
UROM_BRIDGE_EXPORT int32_t urom_bridge_pack(notif_pack_fn notif_pack, struct urom_worker_notify *notif, void *out,
					    uint64_t capacity, uint64_t *len_out)
{
	size_t len = capacity;
	urom_status_t status = notif_pack(notif, &len, out);

	*len_out = len;
	return (int32_t)status;
}
