/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tests of worker_graph.so through the C test kit (urom_testkit.h): the
 * plugin is loaded into this program as a worker loads it.
 *   test_worker_graph PATH_TO_PLUGIN
 */
#include <stdint.h>
#include <string.h>

#include <urom_plugin_util.h>
#include <urom_testkit.h>

/* A LOOPBACK comes back with the same two words, SUCCESS and the command's context. */
static void test_loopback_echoes_the_data(struct urom_testkit_plugin *plugin)
{
	const uint64_t values[] = {0, 1, UINT64_MAX, 0x0123456789abcdefULL};

	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		uint8_t command[16];
		uint64_t context;
		struct urom_worker_notify *answer;

		urom_store_le64(command, 0);
		urom_store_le64(command + 8, values[i]);
		UROM_TEST_CHECK_STATUS(urom_testkit_send(plugin, command, sizeof(command), &context), UROM_SUCCESS);
		answer = urom_testkit_await(plugin, context);
		if (!UROM_TEST_CHECK(answer != NULL))
			continue;
		UROM_TEST_CHECK_STATUS(answer->status, UROM_SUCCESS);
		UROM_TEST_CHECK(answer->len == 16);
		UROM_TEST_CHECK(urom_load_le64(answer->plugin_notif) == 0);
		UROM_TEST_CHECK(urom_load_le64(answer->plugin_notif + 8) == values[i]);
		urom_testkit_release(answer);
	}
}

/* Answers come out in the order the commands went in. */
static void test_answers_keep_their_order(struct urom_testkit_plugin *plugin)
{
	uint64_t contexts[3];

	for (int i = 0; i < 3; i++) {
		uint8_t command[16];

		urom_store_le64(command, 0);
		urom_store_le64(command + 8, (uint64_t)i);
		UROM_TEST_CHECK_STATUS(urom_testkit_send(plugin, command, sizeof(command), &contexts[i]), UROM_SUCCESS);
	}
	for (int i = 0; i < 3; i++) {
		struct urom_worker_notify *answer = urom_testkit_await(plugin, contexts[i]);

		if (UROM_TEST_CHECK(answer != NULL))
			UROM_TEST_CHECK(urom_load_le64(answer->plugin_notif + 8) == (uint64_t)i);
		urom_testkit_release(answer);
	}
	UROM_TEST_CHECK(urom_testkit_unclaimed(plugin) == 0);
}

/*
 * A command of the wrong length or type is refused with an error in the
 * plugin's log (printed as "expected: ..."), and the plugin answers nothing.
 */
static void test_bad_commands_are_refused(struct urom_testkit_plugin *plugin)
{
	uint8_t command[17] = {0};

	UROM_TEST_EXPECT_LOG(UROM_LOG_LEVEL_ERROR, UROM_TEST_CHECK_STATUS(urom_testkit_send(plugin, command, 15, NULL),
									  UROM_ERR_INVALID_VALUE));
	UROM_TEST_EXPECT_LOG(UROM_LOG_LEVEL_ERROR, UROM_TEST_CHECK_STATUS(urom_testkit_send(plugin, command, 17, NULL),
									  UROM_ERR_INVALID_VALUE));
	urom_store_le64(command, 7);
	UROM_TEST_EXPECT_LOG(UROM_LOG_LEVEL_ERROR, UROM_TEST_CHECK_STATUS(urom_testkit_send(plugin, command, 16, NULL),
									  UROM_ERR_NOT_SUPPORTED));
	for (int round = 0; round < 10; round++)
		urom_testkit_progress(plugin);
	UROM_TEST_CHECK(urom_testkit_unclaimed(plugin) == 0);
}

int main(int argc, char **argv)
{
	struct urom_testkit_plugin plugin = {0};

	if (argc != 2) {
		fprintf(stderr, "usage: %s PLUGIN.so\n", argv[0]);
		return 2;
	}
	if (urom_testkit_open(&plugin, argv[1]) != UROM_SUCCESS)
		return 1;
	test_loopback_echoes_the_data(&plugin);
	test_answers_keep_their_order(&plugin);
	test_bad_commands_are_refused(&plugin);
	urom_testkit_close(&plugin);
	return urom_testkit_summary(argv[0]);
}
