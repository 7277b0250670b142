/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom-java: inline helpers for plugins, host helpers and tests, header only.
 *
 * Every helper is static inline, allocates nothing and takes no lock; but for
 * the notification packer, which checks what a worker passes it, none can
 * fail: a list belongs to the one thread that changes it, and a NULL argument
 * is the caller's bug. Three groups:
 *
 *   - little-endian loads and stores of 16, 32 and 64 bits at any address (no
 *     alignment needed), on a machine of either byte order: the wire layouts
 *     of the plugins' commands and notifications;
 *   - lists of the link type of urom_plugin.h, UROM_LIST_LINK_T: a head is an
 *     empty list when it points at itself, and a link taken off a list with
 *     urom_list_del points at itself as well, so taking it off again changes
 *     nothing;
 *   - urom_notif_pack_inline, the notif_pack of a plugin whose notifications
 *     hold their payload right after the header (plugin_notif[]).
 *
 * The list helpers and the packer exist once the link type is known: include this header
 * after urom_plugin.h, or after DOCA's doca_urom_plugin.h or doca_urom.h
 * (where the link is UCX's ucs_list_link_t). Included earlier, it gives the
 * byte helpers only, and included again later, the list helpers too. It does
 * not include urom_plugin.h itself, which DOCA's headers must read first.
 *
 * It compiles as C99 and C11 with -Wall -Wextra -pedantic.
 */
#ifndef UROM_PLUGIN_UTIL_BYTES_
#define UROM_PLUGIN_UTIL_BYTES_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- little-endian bytes ---- */

static inline void urom_store_le16(void *out, uint16_t value)
{
	uint8_t *bytes = (uint8_t *)out;

	bytes[0] = (uint8_t)value;
	bytes[1] = (uint8_t)(value >> 8);
}

static inline void urom_store_le32(void *out, uint32_t value)
{
	uint8_t *bytes = (uint8_t *)out;

	for (unsigned i = 0; i < 4; i++)
		bytes[i] = (uint8_t)(value >> (8 * i));
}

static inline void urom_store_le64(void *out, uint64_t value)
{
	uint8_t *bytes = (uint8_t *)out;

	for (unsigned i = 0; i < 8; i++)
		bytes[i] = (uint8_t)(value >> (8 * i));
}

static inline uint16_t urom_load_le16(const void *in)
{
	const uint8_t *bytes = (const uint8_t *)in;

	return (uint16_t)(bytes[0] | (unsigned)bytes[1] << 8);
}

static inline uint32_t urom_load_le32(const void *in)
{
	const uint8_t *bytes = (const uint8_t *)in;
	uint32_t value = 0;

	for (unsigned i = 0; i < 4; i++)
		value |= (uint32_t)bytes[i] << (8 * i);
	return value;
}

static inline uint64_t urom_load_le64(const void *in)
{
	const uint8_t *bytes = (const uint8_t *)in;
	uint64_t value = 0;

	for (unsigned i = 0; i < 8; i++)
		value |= (uint64_t)bytes[i] << (8 * i);
	return value;
}

#ifdef __cplusplus
}
#endif

#endif /* UROM_PLUGIN_UTIL_BYTES_ */

#if defined(UROM_LIST_LINK_T) && !defined(UROM_PLUGIN_UTIL_LISTS_)
#define UROM_PLUGIN_UTIL_LISTS_

#include <stddef.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- lists ---- */

/* The structure of type `type` whose member `member` is the link at `link`. */
#define UROM_LIST_ENTRY(link, type, member) ((type *)(void *)((char *)(link)-offsetof(type, member)))

/* Visits every link after `head` in order; `link` is a variable of the link's pointer type. */
#define urom_list_for_each(link, head) for ((link) = (head)->next; (link) != (head); (link) = (link)->next)

/* As urom_list_for_each, and the body may take `link` off the list or free it: `next` is read first. */
#define urom_list_for_each_safe(link, next, head) \
	for ((link) = (head)->next, (next) = (link)->next; (link) != (head); (link) = (next), (next) = (link)->next)

/* Makes `head` an empty list. */
static inline void urom_list_init(UROM_LIST_LINK_T *head)
{
	head->prev = head;
	head->next = head;
}

/* Whether the list at `head` holds no link. */
static inline int urom_list_is_empty(const UROM_LIST_LINK_T *head)
{
	return head->next == head;
}

/* Puts `link` first in the list at `head`. */
static inline void urom_list_add_head(UROM_LIST_LINK_T *head, UROM_LIST_LINK_T *link)
{
	UROM_LIST_LINK_T *first = head->next;

	link->prev = head;
	link->next = first;
	first->prev = link;
	head->next = link;
}

/* Puts `link` last in the list at `head`. */
static inline void urom_list_add_tail(UROM_LIST_LINK_T *head, UROM_LIST_LINK_T *link)
{
	UROM_LIST_LINK_T *last = head->prev;

	link->prev = last;
	link->next = head;
	last->next = link;
	head->prev = link;
}

/* Takes `link` off the list it is on and leaves it pointing at itself. */
static inline void urom_list_del(UROM_LIST_LINK_T *link)
{
	UROM_LIST_LINK_T *before = link->prev;
	UROM_LIST_LINK_T *after = link->next;

	before->next = after;
	after->prev = before;
	link->prev = link;
	link->next = link;
}

/* Takes the first link off the list at `head` and returns it; NULL when the list is empty. */
static inline UROM_LIST_LINK_T *urom_list_pop_head(UROM_LIST_LINK_T *head)
{
	UROM_LIST_LINK_T *first = head->next;

	if (first == head)
		return NULL;
	urom_list_del(first);
	return first;
}

/* Moves every link of the list at `from`, in order, to the end of the list at `to`; `from` is left empty. */
static inline void urom_list_move_tail(UROM_LIST_LINK_T *to, UROM_LIST_LINK_T *from)
{
	UROM_LIST_LINK_T *first = from->next;
	UROM_LIST_LINK_T *last = from->prev;

	if (first == from)
		return;
	first->prev = to->prev;
	to->prev->next = first;
	last->next = to;
	to->prev = last;
	urom_list_init(from);
}

/* ---- notifications ---- */

/*
 * A notif_pack for notifications whose payload follows the header in the same
 * allocation: copies the header and its len bytes of payload as they are, and
 * sets *packed_notif_len to that size. When packed_notif is NULL or smaller,
 * returns UROM_ERR_INVALID_VALUE with *packed_notif_len set to the size it
 * needs; a NULL notif or packed_notif_len is UROM_ERR_INVALID_VALUE too.
 */
static inline urom_status_t urom_notif_pack_inline(struct urom_worker_notify *notif, size_t *packed_notif_len,
						   void *packed_notif)
{
	size_t needed;

	if (notif == NULL || packed_notif_len == NULL)
		return UROM_ERR_INVALID_VALUE;
	needed = sizeof(*notif) + notif->len;
	if (*packed_notif_len < needed || packed_notif == NULL) {
		*packed_notif_len = needed;
		return UROM_ERR_INVALID_VALUE;
	}
	memcpy(packed_notif, notif, needed);
	*packed_notif_len = needed;
	return UROM_SUCCESS;
}

#ifdef __cplusplus
}
#endif

#endif /* UROM_PLUGIN_UTIL_LISTS_ */
