/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom_plugin_util.h: each list helper on lists of one to three links (removal at the head, in
 * the middle and at the tail, walked both ways), and each little-endian helper on a known byte
 * string, at an odd address, and against writing past its width. Prints
 * "NAME: N passed, M failed" and exits non-zero when a check failed.
 *
 * Built by the Makefile with urom_plugin.h's own link type (as C99 and as C11), and with
 * UROM_TEST_DOCA defined, under the DOCA compatibility headers (UCX's link type); with
 * UROM_TEST_HELPERS_FIRST as well, the helpers' header comes first too (the byte helpers only,
 * the lists when it is included again after the DOCA header).
 */
#ifdef UROM_TEST_HELPERS_FIRST
#include <urom_plugin_util.h>
#ifdef UROM_PLUGIN_UTIL_LISTS_
#error "the list helpers came before any header declared the link type"
#endif
#endif
/*
 * urom_plugin.h itself is not -pedantic clean (a descriptor embeds a struct with a flexible array
 * member; _Static_assert in C99), so only the helpers' header is held to -pedantic.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#if defined(UROM_TEST_DOCA) && defined(UROM_TEST_HELPERS_FIRST)
#include <doca_urom_plugin.h>
#define TEST_NAME "urom_plugin_util (DOCA link type, helpers included first)"
#elif defined(UROM_TEST_DOCA)
#include <doca_urom_plugin.h>
#define TEST_NAME "urom_plugin_util (DOCA link type)"
#else
#include <urom_plugin.h>
#define TEST_NAME "urom_plugin_util"
#endif
#pragma GCC diagnostic pop

#include <urom_plugin_util.h>

#include <stdio.h>
#include <string.h>

static unsigned passed;
static unsigned failed;

#define CHECK(condition) check((condition), #condition, __LINE__)

static void check(int ok, const char *what, int line)
{
	if (ok) {
		passed++;
	} else {
		failed++;
		fprintf(stderr, "FAILED at line %d: %s\n", line, what);
	}
}

struct item {
	int value;
	UROM_LIST_LINK_T link;
};

/* Whether the list at head holds exactly the values given, in order, walked forwards and backwards. */
static int holds(UROM_LIST_LINK_T *head, const int *values, size_t count)
{
	UROM_LIST_LINK_T *link;
	size_t at = 0;

	urom_list_for_each(link, head) {
		if (at >= count || UROM_LIST_ENTRY(link, struct item, link)->value != values[at])
			return 0;
		at++;
	}
	if (at != count)
		return 0;
	for (link = head->prev; link != head; link = link->prev) {
		if (at == 0 || UROM_LIST_ENTRY(link, struct item, link)->value != values[at - 1])
			return 0;
		at--;
	}
	return at == 0;
}

/* head holds 1, 2, 3 (a, b, c), added at the tail. */
static void three(UROM_LIST_LINK_T *head, struct item *a, struct item *b, struct item *c)
{
	a->value = 1;
	b->value = 2;
	c->value = 3;
	urom_list_init(head);
	urom_list_add_tail(head, &a->link);
	urom_list_add_tail(head, &b->link);
	urom_list_add_tail(head, &c->link);
}

static void test_init_makes_an_empty_list(void)
{
	UROM_LIST_LINK_T head;

	memset(&head, 0xA5, sizeof(head));
	urom_list_init(&head);
	CHECK(urom_list_is_empty(&head));
	CHECK(head.next == &head && head.prev == &head);
	CHECK(holds(&head, NULL, 0));
}

static void test_add_tail_keeps_order_and_add_head_reverses_it(void)
{
	UROM_LIST_LINK_T head;
	struct item a, b, c;
	const int tail_order[] = {1, 2, 3};
	const int head_order[] = {3, 2, 1};

	three(&head, &a, &b, &c);
	CHECK(!urom_list_is_empty(&head));
	CHECK(holds(&head, tail_order, 3));

	urom_list_init(&head);
	urom_list_add_head(&head, &a.link);
	urom_list_add_head(&head, &b.link);
	urom_list_add_head(&head, &c.link);
	CHECK(holds(&head, head_order, 3));
}

static void test_del_at_the_head_in_the_middle_and_at_the_tail(void)
{
	UROM_LIST_LINK_T head;
	struct item a, b, c;
	const int without_head[] = {2, 3};
	const int without_middle[] = {1, 3};
	const int without_tail[] = {1, 2};
	const int only_middle[] = {2};

	three(&head, &a, &b, &c);
	urom_list_del(&a.link);
	CHECK(holds(&head, without_head, 2));
	CHECK(a.link.next == &a.link && a.link.prev == &a.link);

	three(&head, &a, &b, &c);
	urom_list_del(&b.link);
	CHECK(holds(&head, without_middle, 2));
	CHECK(b.link.next == &b.link && b.link.prev == &b.link);

	three(&head, &a, &b, &c);
	urom_list_del(&c.link);
	CHECK(holds(&head, without_tail, 2));
	CHECK(c.link.next == &c.link && c.link.prev == &c.link);

	urom_list_del(&c.link);
	CHECK(holds(&head, without_tail, 2));

	urom_list_del(&a.link);
	CHECK(holds(&head, only_middle, 1));
	urom_list_del(&b.link);
	CHECK(urom_list_is_empty(&head));
}

static void test_pop_head_takes_links_in_order_then_answers_null(void)
{
	UROM_LIST_LINK_T head;
	struct item a, b, c;
	const int rest[] = {2, 3};

	three(&head, &a, &b, &c);
	CHECK(urom_list_pop_head(&head) == &a.link);
	CHECK(a.link.next == &a.link);
	CHECK(holds(&head, rest, 2));
	CHECK(urom_list_pop_head(&head) == &b.link);
	CHECK(urom_list_pop_head(&head) == &c.link);
	CHECK(urom_list_pop_head(&head) == NULL);
	CHECK(urom_list_is_empty(&head));
}

static void test_move_tail_appends_in_order_and_empties_the_source(void)
{
	UROM_LIST_LINK_T to, from;
	struct item a, b, c, d;
	const int all[] = {4, 1, 2, 3};
	const int one[] = {4};

	three(&from, &a, &b, &c);
	d.value = 4;
	urom_list_init(&to);
	urom_list_add_tail(&to, &d.link);
	urom_list_move_tail(&to, &from);
	CHECK(holds(&to, all, 4));
	CHECK(urom_list_is_empty(&from));

	urom_list_init(&to);
	urom_list_add_tail(&to, &d.link);
	urom_list_move_tail(&to, &from);
	CHECK(holds(&to, one, 1));
	CHECK(urom_list_is_empty(&from));
}

static void test_for_each_safe_lets_the_body_take_every_link_off(void)
{
	UROM_LIST_LINK_T head, *link, *next;
	struct item a, b, c;
	int sum = 0;

	three(&head, &a, &b, &c);
	urom_list_for_each_safe(link, next, &head) {
		sum = sum * 10 + UROM_LIST_ENTRY(link, struct item, link)->value;
		urom_list_del(link);
	}
	CHECK(sum == 123);
	CHECK(urom_list_is_empty(&head));
}

static void test_for_each_visits_nothing_on_an_empty_list(void)
{
	UROM_LIST_LINK_T head;
	const UROM_LIST_LINK_T *link;
	int visits = 0;

	urom_list_init(&head);
	urom_list_for_each(link, &head)
		visits++;
	CHECK(visits == 0);
}

static void test_loads_read_a_known_byte_string_least_significant_first(void)
{
	const uint8_t bytes[] = {0xF1, 0xF2, 0xF3, 0xF4, 0xF5, 0xF6, 0xF7, 0xF8, 0x01, 0x02};
	const uint8_t low[] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08};

	CHECK(urom_load_le16(bytes) == 0xF2F1u);
	CHECK(urom_load_le32(bytes) == 0xF4F3F2F1u);
	CHECK(urom_load_le64(bytes) == 0xF8F7F6F5F4F3F2F1ull);
	CHECK(urom_load_le16(low) == 0x0201u);
	CHECK(urom_load_le32(low) == 0x04030201u);
	CHECK(urom_load_le64(low) == 0x0807060504030201ull);
	/* At an odd address. */
	CHECK(urom_load_le16(bytes + 7) == 0x01F8u);
	CHECK(urom_load_le32(bytes + 5) == 0x01F8F7F6u);
	CHECK(urom_load_le64(bytes + 1) == 0x01F8F7F6F5F4F3F2ull);
}

static void test_stores_write_a_known_byte_string_and_nothing_past_it(void)
{
	uint8_t out[11];
	const uint8_t le16[] = {0xEE, 0x34, 0x12, 0xEE};
	const uint8_t le32[] = {0xEE, 0x78, 0x56, 0x34, 0x12, 0xEE};
	const uint8_t le64[] = {0xEE, 0xEF, 0xCD, 0xAB, 0x89, 0x67, 0x45, 0x23, 0x81, 0xEE};

	memset(out, 0xEE, sizeof(out));
	urom_store_le16(out + 1, 0x1234u);
	CHECK(memcmp(out, le16, sizeof(le16)) == 0);

	memset(out, 0xEE, sizeof(out));
	urom_store_le32(out + 1, 0x12345678u);
	CHECK(memcmp(out, le32, sizeof(le32)) == 0);

	memset(out, 0xEE, sizeof(out));
	urom_store_le64(out + 1, 0x8123456789ABCDEFull);
	CHECK(memcmp(out, le64, sizeof(le64)) == 0);
}

static void test_a_store_then_a_load_gives_the_value_back(void)
{
	const uint64_t values[] = {0,
				   1,
				   0x80,
				   0xFF,
				   0x8000,
				   0xFFFF,
				   0x80000000u,
				   0xFFFFFFFFu,
				   0x8000000000000000ull,
				   0xFFFFFFFFFFFFFFFFull,
				   0x0123456789ABCDEFull};
	uint8_t out[8];
	int all = 1;

	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		urom_store_le16(out, (uint16_t)values[i]);
		all &= urom_load_le16(out) == (uint16_t)values[i];
		urom_store_le32(out, (uint32_t)values[i]);
		all &= urom_load_le32(out) == (uint32_t)values[i];
		urom_store_le64(out, values[i]);
		all &= urom_load_le64(out) == values[i];
	}
	CHECK(all);
}

static void test_the_packer_copies_header_and_payload_or_asks_for_room(void)
{
	union {
		struct urom_worker_notify notif;
		uint8_t bytes[sizeof(struct urom_worker_notify) + 5];
	} in;
	const size_t needed = sizeof(struct urom_worker_notify) + 5;
	uint8_t out[sizeof(in) + 3];
	size_t len;

	memset(&in, 0, sizeof(in));
	in.notif.type = 7;
	in.notif.urom_context = 0x1122;
	in.notif.len = 5;
	memcpy(in.notif.plugin_notif, "hello", 5);

	memset(out, 0xEE, sizeof(out));
	len = sizeof(out);
	CHECK(urom_notif_pack_inline(&in.notif, &len, out) == UROM_SUCCESS);
	CHECK(len == needed);
	CHECK(memcmp(out, &in, needed) == 0);
	CHECK(out[needed] == 0xEE);

	len = needed - 1;
	CHECK(urom_notif_pack_inline(&in.notif, &len, out) == UROM_ERR_INVALID_VALUE);
	CHECK(len == needed);
	len = sizeof(out);
	CHECK(urom_notif_pack_inline(&in.notif, &len, NULL) == UROM_ERR_INVALID_VALUE);
	CHECK(len == needed);
	CHECK(urom_notif_pack_inline(NULL, &len, out) == UROM_ERR_INVALID_VALUE);
	CHECK(urom_notif_pack_inline(&in.notif, NULL, out) == UROM_ERR_INVALID_VALUE);
}

static void test_status_names_are_the_enums_without_prefix(void)
{
	CHECK(strcmp(urom_status_name(UROM_SUCCESS), "SUCCESS") == 0);
	CHECK(strcmp(urom_status_name(UROM_ERR_INVALID_VALUE), "INVALID_VALUE") == 0);
	CHECK(strcmp(urom_status_name(UROM_ERR_DEVICE_FATAL_ERROR), "DEVICE_FATAL_ERROR") == 0);
	CHECK(urom_status_name((urom_status_t)(UROM_ERR_DEVICE_FATAL_ERROR + 1)) == NULL);
	CHECK(urom_status_name((urom_status_t)-1) == NULL);
}

int main(void)
{
	test_init_makes_an_empty_list();
	test_add_tail_keeps_order_and_add_head_reverses_it();
	test_del_at_the_head_in_the_middle_and_at_the_tail();
	test_pop_head_takes_links_in_order_then_answers_null();
	test_move_tail_appends_in_order_and_empties_the_source();
	test_for_each_safe_lets_the_body_take_every_link_off();
	test_for_each_visits_nothing_on_an_empty_list();
	test_loads_read_a_known_byte_string_least_significant_first();
	test_stores_write_a_known_byte_string_and_nothing_past_it();
	test_a_store_then_a_load_gives_the_value_back();
	test_the_packer_copies_header_and_payload_or_asks_for_room();
	test_status_names_are_the_enums_without_prefix();
	printf("%s: %u passed, %u failed\n", TEST_NAME, passed, failed);
	return failed == 0 && passed > 0 ? 0 : 1;
}
