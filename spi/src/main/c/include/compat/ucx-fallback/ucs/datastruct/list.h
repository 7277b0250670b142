/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom-java: stand-in for UCX's <ucs/datastruct/list.h>, used only when UCX's
 * headers are not installed (this directory is searched with -idirafter).
 * The link has UCX's layout, { prev, next }, and the helpers below have the
 * names and meaning of UCX's list helpers, so plugin sources compile and run
 * the same either way.
 */
#ifndef UROM_UCS_LIST_FALLBACK_H_
#define UROM_UCS_LIST_FALLBACK_H_

#include <stddef.h>

#ifndef ucs_offsetof
#define ucs_offsetof(_type, _member) offsetof(_type, _member)
#endif

#ifndef ucs_container_of
#define ucs_container_of(_ptr, _type, _member) ((_type *)((char *)(_ptr)-ucs_offsetof(_type, _member)))
#endif

typedef struct ucs_list_link {
	struct ucs_list_link *prev;
	struct ucs_list_link *next;
} ucs_list_link_t;

#define UCS_LIST_INITIALIZER(_prev, _next) \
	{ \
		(_prev), (_next) \
	}
#define UCS_LIST_HEAD(_name) ucs_list_link_t _name = UCS_LIST_INITIALIZER(&(_name), &(_name))

static inline void ucs_list_head_init(ucs_list_link_t *head)
{
	head->prev = head;
	head->next = head;
}

static inline int ucs_list_is_empty(ucs_list_link_t *head)
{
	return head->next == head;
}

static inline void ucs_list_insert_after(ucs_list_link_t *pos, ucs_list_link_t *item)
{
	item->prev = pos;
	item->next = pos->next;
	pos->next->prev = item;
	pos->next = item;
}

static inline void ucs_list_insert_before(ucs_list_link_t *pos, ucs_list_link_t *item)
{
	ucs_list_insert_after(pos->prev, item);
}

static inline void ucs_list_add_head(ucs_list_link_t *head, ucs_list_link_t *item)
{
	ucs_list_insert_after(head, item);
}

static inline void ucs_list_add_tail(ucs_list_link_t *head, ucs_list_link_t *item)
{
	ucs_list_insert_before(head, item);
}

static inline void ucs_list_del(ucs_list_link_t *item)
{
	item->prev->next = item->next;
	item->next->prev = item->prev;
}

static inline int ucs_list_is_only(ucs_list_link_t *head, ucs_list_link_t *item)
{
	return head->next == item && item->next == head;
}

static inline unsigned long ucs_list_length(ucs_list_link_t *head)
{
	unsigned long count = 0;
	ucs_list_link_t *link;

	for (link = head->next; link != head; link = link->next)
		++count;
	return count;
}

/* Moves every item of 'from' to the end of 'head'; 'from' is left undefined. */
static inline void ucs_list_splice_tail(ucs_list_link_t *head, ucs_list_link_t *from)
{
	ucs_list_link_t *first = from->next, *last = from->prev;

	if (first == from)
		return;
	first->prev = head->prev;
	head->prev->next = first;
	last->next = head;
	head->prev = last;
}

static inline ucs_list_link_t *ucs_list_extract_head_link(ucs_list_link_t *head)
{
	ucs_list_link_t *first = head->next;

	ucs_list_del(first);
	return first;
}

#define ucs_list_next(_link, _type, _member) ucs_container_of((_link)->next, _type, _member)
#define ucs_list_prev(_link, _type, _member) ucs_container_of((_link)->prev, _type, _member)
#define ucs_list_head(_head, _type, _member) ucs_list_next(_head, _type, _member)
#define ucs_list_tail(_head, _type, _member) ucs_list_prev(_head, _type, _member)
#define ucs_list_extract_head(_head, _type, _member) ucs_container_of(ucs_list_extract_head_link(_head), _type, _member)

#define ucs_list_for_each(_elem, _head, _member) \
	for (_elem = ucs_container_of((_head)->next, __typeof__(*(_elem)), _member); &(_elem)->_member != (_head); \
	     _elem = ucs_container_of((_elem)->_member.next, __typeof__(*(_elem)), _member))

#define ucs_list_for_each_safe(_elem, _tmp, _head, _member) \
	for (_elem = ucs_container_of((_head)->next, __typeof__(*(_elem)), _member), \
	    _tmp = ucs_container_of((_elem)->_member.next, __typeof__(*(_elem)), _member); \
	     &(_elem)->_member != (_head); \
	     _elem = _tmp, _tmp = ucs_container_of((_tmp)->_member.next, __typeof__(*(_tmp)), _member))

#endif /* UROM_UCS_LIST_FALLBACK_H_ */
