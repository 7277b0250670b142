/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The wire codec of libdoca_urom (urom/wire.c): fields round-trip, the writer never passes its limit,
 * the reader never reads past its body and says so once, list counts are checked before anything is
 * allocated, and frames carry their length. Random round trips (seeded, so a failure reproduces) stand
 * in for property tests. Plus HMAC-SHA256 against RFC 4231's first vector, and the handshake against
 * a hostile service on a socketpair (oversized, truncated, refusing, silent, unchallenged answers).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "auth.h"
#include "conn.h"
#include "wire.h"

static void fields_written_are_read_back_in_order(void **unused)
{
	struct urom_writer w;
	struct urom_reader r;
	char text[32];
	const uint8_t *bytes;
	size_t n;

	(void)unused;
	urom_writer_init(&w, 1024);
	urom_w_u8(&w, 0xab);
	urom_w_u16(&w, 0x1234);
	urom_w_u32(&w, 0xdeadbeef);
	urom_w_u64(&w, 0x0102030405060708ULL);
	urom_w_bytes(&w, "xyz", 3);
	urom_w_string(&w, "hello");
	assert_false(w.failed);
	assert_int_equal(w.len, 1 + 2 + 4 + 8 + 4 + 3 + 2 + 5);
	/* Little-endian on the wire. */
	assert_int_equal(w.data[1], 0x34);
	assert_int_equal(w.data[2], 0x12);
	urom_reader_init(&r, w.data, w.len);
	assert_int_equal(urom_r_u8(&r), 0xab);
	assert_int_equal(urom_r_u16(&r), 0x1234);
	assert_int_equal(urom_r_u32(&r), 0xdeadbeef);
	assert_true(urom_r_u64(&r) == 0x0102030405060708ULL);
	bytes = urom_r_bytes(&r, 16, &n);
	assert_int_equal(n, 3);
	assert_memory_equal(bytes, "xyz", 3);
	urom_r_string(&r, text, sizeof(text));
	assert_string_equal(text, "hello");
	assert_true(urom_r_done(&r));
	urom_writer_free(&w);
}

static void a_writer_fails_instead_of_passing_its_limit(void **unused)
{
	struct urom_writer w;
	uint8_t block[100] = {0};

	(void)unused;
	urom_writer_init(&w, 10);
	urom_w_u64(&w, 1);
	assert_false(w.failed);
	urom_w_u32(&w, 2);
	assert_true(w.failed);
	assert_int_equal(w.len, 8);
	urom_w_raw(&w, block, 1);
	assert_int_equal(w.len, 8);
	urom_writer_free(&w);
}

static void a_reader_past_its_end_is_bad_and_yields_zeros(void **unused)
{
	uint8_t body[3] = {1, 2, 3};
	struct urom_reader r;

	(void)unused;
	urom_reader_init(&r, body, sizeof(body));
	assert_int_equal(urom_r_u16(&r), 0x0201);
	assert_int_equal(urom_r_u32(&r), 0);
	assert_true(r.bad);
	assert_int_equal(urom_r_u8(&r), 0);
	assert_false(urom_r_done(&r));
	assert_int_equal(urom_r_remaining(&r), 0);
}

static void bytes_over_their_bound_and_counts_over_what_follows_are_bad(void **unused)
{
	struct urom_writer w;
	struct urom_reader r;
	size_t n;

	(void)unused;
	urom_writer_init(&w, 64);
	urom_w_bytes(&w, "0123456789", 10);
	urom_reader_init(&r, w.data, w.len);
	assert_null(urom_r_bytes(&r, 9, &n));
	assert_true(r.bad);
	urom_writer_free(&w);

	/* A count of a million 8-byte items in a 12-byte body. */
	urom_writer_init(&w, 64);
	urom_w_u32(&w, 1000000);
	urom_w_u64(&w, 7);
	urom_reader_init(&r, w.data, w.len);
	assert_int_equal(urom_r_count(&r, 8), 0);
	assert_true(r.bad);
	urom_reader_init(&r, w.data, w.len);
	w.data[0] = 1;
	w.data[1] = w.data[2] = 0;
	assert_int_equal(urom_r_count(&r, 8), 1);
	assert_false(r.bad);
	urom_writer_free(&w);
}

static void strings_are_cut_to_their_buffer_and_lose_control_characters(void **unused)
{
	struct urom_writer w;
	struct urom_reader r;
	char small[5];

	(void)unused;
	urom_writer_init(&w, 64);
	urom_w_string(&w, "ab\ncdefgh");
	urom_reader_init(&r, w.data, w.len);
	urom_r_string(&r, small, sizeof(small));
	assert_string_equal(small, "ab?c");
	/* The whole string was consumed, not only what fit. */
	assert_true(urom_r_done(&r));
	urom_writer_free(&w);
}

static void a_frame_carries_the_length_of_what_follows_its_length_field(void **unused)
{
	struct urom_writer w;
	size_t start;
	uint32_t len;

	(void)unused;
	urom_writer_init(&w, 128);
	start = urom_w_frame_begin(&w, UROM_MSG_COMMAND, 0x99);
	urom_w_u64(&w, 5);
	urom_w_frame_end(&w, start);
	assert_int_equal(w.len, 4 + UROM_FRAME_HEADER + 8);
	memcpy(&len, w.data, 4);
	assert_int_equal(len, UROM_FRAME_HEADER + 8);
	assert_int_equal(w.data[4], UROM_MSG_COMMAND);
	assert_int_equal(w.data[8], 0x99);
	urom_writer_free(&w);
}

static void random_records_round_trip(void **unused)
{
	unsigned seed = 20261201;

	(void)unused;
	for (int round = 0; round < 2000; round++) {
		uint64_t values[16];
		uint8_t kinds[16];
		int n = 1 + rand_r(&seed) % 16;
		struct urom_writer w;
		struct urom_reader r;

		urom_writer_init(&w, 4096);
		for (int i = 0; i < n; i++) {
			kinds[i] = (uint8_t)(rand_r(&seed) % 4);
			values[i] = ((uint64_t)rand_r(&seed) << 33) ^ ((uint64_t)rand_r(&seed) << 2) ^
				    (uint64_t)rand_r(&seed);
			switch (kinds[i]) {
			case 0:
				urom_w_u8(&w, (uint8_t)values[i]);
				break;
			case 1:
				urom_w_u16(&w, (uint16_t)values[i]);
				break;
			case 2:
				urom_w_u32(&w, (uint32_t)values[i]);
				break;
			default:
				urom_w_u64(&w, values[i]);
				break;
			}
		}
		assert_false(w.failed);
		urom_reader_init(&r, w.data, w.len);
		for (int i = 0; i < n; i++) {
			switch (kinds[i]) {
			case 0:
				assert_int_equal(urom_r_u8(&r), (uint8_t)values[i]);
				break;
			case 1:
				assert_int_equal(urom_r_u16(&r), (uint16_t)values[i]);
				break;
			case 2:
				assert_int_equal(urom_r_u32(&r), (uint32_t)values[i]);
				break;
			default:
				assert_true(urom_r_u64(&r) == values[i]);
				break;
			}
		}
		assert_true(urom_r_done(&r));
		/* Every strict prefix of the record is too short for it. */
		urom_reader_init(&r, w.data, w.len - 1);
		for (int i = 0; i < n; i++) {
			switch (kinds[i]) {
			case 0:
				urom_r_u8(&r);
				break;
			case 1:
				urom_r_u16(&r);
				break;
			case 2:
				urom_r_u32(&r);
				break;
			default:
				urom_r_u64(&r);
				break;
			}
		}
		assert_true(r.bad);
		urom_writer_free(&w);
	}
}

static void hmac_sha256_matches_rfc_4231_case_1(void **unused)
{
	uint8_t key[20];
	uint8_t mac[32];
	const uint8_t expected[32] = {0xb0, 0x34, 0x4c, 0x61, 0xd8, 0xdb, 0x38, 0x53, 0x5c, 0xa8, 0xaf,
				      0xce, 0xaf, 0x0b, 0xf1, 0x2b, 0x88, 0x1d, 0xc2, 0x00, 0xc9, 0x83,
				      0x3d, 0xa7, 0x26, 0xe9, 0x37, 0x6c, 0x2e, 0x32, 0xcf, 0xf7};

	(void)unused;
	memset(key, 0x0b, sizeof(key));
	urom_hmac(key, sizeof(key), (const uint8_t *)"Hi There", 8, mac);
	assert_memory_equal(mac, expected, sizeof(expected));
}

/* ---- a hostile service: what the handshake does with answers nobody honest sends ---- */

struct hostile {
	struct urom_conn client;
	int server;
};

static void hostile_open(struct hostile *h)
{
	int sv[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	urom_conn_init(&h->client);
	h->client.fd = sv[0];
	assert_int_equal(fcntl(sv[0], F_SETFL, O_NONBLOCK), 0);
	h->server = sv[1];
}

static void hostile_close(struct hostile *h)
{
	urom_conn_close(&h->client);
	if (h->server >= 0)
		close(h->server);
}

/* The server's answer: a frame of type with body, its length field replaced by length when non-zero. */
static void answer(struct hostile *h, uint16_t type, const void *body, size_t len, uint32_t length)
{
	struct urom_writer w;
	size_t start;

	urom_writer_init(&w, 4096);
	start = urom_w_frame_begin(&w, type, 0);
	urom_w_raw(&w, body, len);
	urom_w_frame_end(&w, start);
	if (length != 0)
		memcpy(w.data, &length, 4);
	assert_int_equal(write(h->server, w.data, w.len), (ssize_t)w.len);
	urom_writer_free(&w);
}

static void a_frame_announcing_a_gigabyte_breaks_the_handshake_without_waiting_for_it(void **unused)
{
	struct hostile h;
	struct urom_hello_ok ok;

	(void)unused;
	hostile_open(&h);
	answer(&h, UROM_MSG_HELLO_OK, "", 0, 1u << 30);
	assert_int_equal(urom_handshake(&h.client, UROM_CHANNEL_CONTROL, NULL, 5000, &ok), DOCA_ERROR_TOO_BIG);
	assert_non_null(strstr(h.client.err, "over the connection's limit"));
	/* Only what arrived was buffered, never the announced gigabyte. */
	assert_true(h.client.in_cap <= 65536);
	hostile_close(&h);
}

static void a_truncated_hello_ok_is_unexpected(void **unused)
{
	struct hostile h;
	struct urom_hello_ok ok;
	uint8_t body[6] = {2, 0, 0, 0, 0, 16};

	(void)unused;
	hostile_open(&h);
	answer(&h, UROM_MSG_HELLO_OK, body, sizeof(body), 0);
	assert_int_equal(urom_handshake(&h.client, UROM_CHANNEL_CONTROL, NULL, 5000, &ok), DOCA_ERROR_UNEXPECTED);
	assert_string_equal(h.client.err, "its HELLO_OK is malformed");
	hostile_close(&h);
}

static void an_error_answer_gives_its_status_and_a_message_without_control_characters(void **unused)
{
	struct hostile h;
	struct urom_hello_ok ok;
	struct urom_writer body;

	(void)unused;
	hostile_open(&h);
	urom_writer_init(&body, 256);
	urom_w_u32(&body, DOCA_ERROR_AUTHENTICATION);
	urom_w_string(&body, "no\nway\033[2J");
	answer(&h, UROM_MSG_ERROR, body.data, body.len, 0);
	assert_int_equal(urom_handshake(&h.client, UROM_CHANNEL_CONTROL, NULL, 5000, &ok), DOCA_ERROR_AUTHENTICATION);
	assert_string_equal(h.client.err, "no?way?[2J");
	urom_writer_free(&body);
	/* A status outside DOCA's codes is not believed. */
	hostile_close(&h);
	hostile_open(&h);
	urom_writer_init(&body, 256);
	urom_w_u32(&body, 9999);
	urom_w_string(&body, "x");
	answer(&h, UROM_MSG_ERROR, body.data, body.len, 0);
	assert_int_equal(urom_handshake(&h.client, UROM_CHANNEL_CONTROL, NULL, 5000, &ok), DOCA_ERROR_UNEXPECTED);
	urom_writer_free(&body);
	hostile_close(&h);
}

static void a_service_that_hangs_up_or_stays_silent_ends_the_handshake(void **unused)
{
	struct hostile h;
	struct urom_hello_ok ok;

	(void)unused;
	hostile_open(&h);
	close(h.server);
	h.server = -1;
	assert_int_equal(urom_handshake(&h.client, UROM_CHANNEL_CONTROL, NULL, 5000, &ok), DOCA_ERROR_CONNECTION_RESET);
	hostile_close(&h);
	hostile_open(&h);
	assert_int_equal(urom_handshake(&h.client, UROM_CHANNEL_CONTROL, NULL, 200, &ok), DOCA_ERROR_TIME_OUT);
	assert_string_equal(h.client.err, "the handshake did not end within the time limit");
	hostile_close(&h);
}

static void a_key_holder_refuses_a_service_that_lets_it_in_unchallenged(void **unused)
{
	struct hostile h;
	struct urom_hello_ok ok;
	struct urom_key key = {.name = "alice", .secret_len = 32};
	struct urom_writer body;

	(void)unused;
	memset(key.secret, 7, 32);
	hostile_open(&h);
	urom_writer_init(&body, 256);
	urom_w_u16(&body, 2);
	urom_w_u16(&body, 0);
	urom_w_u32(&body, 4096);
	urom_w_u64(&body, 1);
	urom_w_u32(&body, 64);
	urom_w_u32(&body, 0);
	urom_w_string(&body, "key:alice");
	urom_w_bytes(&body, NULL, 0);
	answer(&h, UROM_MSG_HELLO_OK, body.data, body.len, 0);
	assert_int_equal(urom_handshake(&h.client, UROM_CHANNEL_CONTROL, &key, 5000, &ok), DOCA_ERROR_AUTHENTICATION);
	assert_non_null(strstr(h.client.err, "without asking for the key of 'alice'"));
	urom_writer_free(&body);
	hostile_close(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fields_written_are_read_back_in_order),
		cmocka_unit_test(a_writer_fails_instead_of_passing_its_limit),
		cmocka_unit_test(a_reader_past_its_end_is_bad_and_yields_zeros),
		cmocka_unit_test(bytes_over_their_bound_and_counts_over_what_follows_are_bad),
		cmocka_unit_test(strings_are_cut_to_their_buffer_and_lose_control_characters),
		cmocka_unit_test(a_frame_carries_the_length_of_what_follows_its_length_field),
		cmocka_unit_test(random_records_round_trip),
		cmocka_unit_test(hmac_sha256_matches_rfc_4231_case_1),
		cmocka_unit_test(a_frame_announcing_a_gigabyte_breaks_the_handshake_without_waiting_for_it),
		cmocka_unit_test(a_truncated_hello_ok_is_unexpected),
		cmocka_unit_test(an_error_answer_gives_its_status_and_a_message_without_control_characters),
		cmocka_unit_test(a_service_that_hangs_up_or_stays_silent_ends_the_handshake),
		cmocka_unit_test(a_key_holder_refuses_a_service_that_lets_it_in_unchallenged),
	};

	return cmocka_run_group_tests_name("wire", tests, NULL, NULL);
}
