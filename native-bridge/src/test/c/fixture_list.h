/* SPDX-License-Identifier: Apache-2.0 */
/* List helpers shared by the test fixtures (urom_plugin.h's link type). */
#ifndef FIXTURE_LIST_H_
#define FIXTURE_LIST_H_

#include <urom_plugin.h>

static inline void fixture_list_init(urom_list_link_t *head)
{
	head->prev = head;
	head->next = head;
}

static inline int fixture_list_empty(const urom_list_link_t *head)
{
	return head->next == head;
}

static inline void fixture_list_del(urom_list_link_t *node)
{
	node->prev->next = node->next;
	node->next->prev = node->prev;
}

static inline void fixture_list_add_tail(urom_list_link_t *head, urom_list_link_t *node)
{
	node->prev = head->prev;
	node->next = head;
	head->prev->next = node;
	head->prev = node;
}

/* Moves every node of from to the tail of to. */
static inline void fixture_list_splice(urom_list_link_t *to, urom_list_link_t *from)
{
	while (!fixture_list_empty(from)) {
		urom_list_link_t *node = from->next;
		fixture_list_del(node);
		fixture_list_add_tail(to, node);
	}
}

#endif
