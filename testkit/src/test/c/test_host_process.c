/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The C test kit's host for a plugin's urom_worker_host_process, tried on
 * the host-process fixture (argv[1]): the test's own process by default,
 * whose buffer the plugin reads with process_vm_readv; a child named by
 * host_pid; none (-1); a pid without a process, which open refuses. With
 * argv[2] "unlinked" the test is built without -rdynamic: the plugin finds
 * the symbol NULL.
 */
#include <signal.h>
#include <sys/wait.h>

#include <urom_testkit.h>

struct answer {
	int32_t available, status, pid, alive, cloexec, closed;
	int64_t read;
	const uint8_t *bytes;
};

static unsigned char buffer[64];

/* Sends op (SELF: 1, OTHER: 2) reading len bytes at buffer, and reads the answer; 0 when none came. */
static int ask(struct urom_testkit_plugin *plugin, uint64_t op, uint64_t len, struct answer *out,
	       struct urom_worker_notify **keep)
{
	uint64_t command[4] = {op, 0, (uint64_t)(uintptr_t)buffer, len};
	struct urom_worker_notify *notify;
	uint64_t context;

	if (urom_testkit_send(plugin, command, sizeof(command), &context) != UROM_SUCCESS)
		return 0;
	notify = urom_testkit_await(plugin, context);
	if (notify == NULL || notify->len < 32)
		return 0;
	memcpy(&out->available, notify->plugin_notif, 4);
	memcpy(&out->status, notify->plugin_notif + 4, 4);
	memcpy(&out->pid, notify->plugin_notif + 8, 4);
	memcpy(&out->alive, notify->plugin_notif + 12, 4);
	memcpy(&out->cloexec, notify->plugin_notif + 16, 4);
	memcpy(&out->closed, notify->plugin_notif + 20, 4);
	memcpy(&out->read, notify->plugin_notif + 24, 8);
	out->bytes = notify->plugin_notif + 32;
	*keep = notify;
	return 1;
}

static void the_test_is_the_host(const char *path)
{
	struct urom_testkit_plugin plugin = {0};
	struct urom_worker_notify *notify = NULL;
	struct answer a;

	UROM_TEST_CHECK_STATUS(urom_testkit_open(&plugin, path), UROM_SUCCESS);
	if (!UROM_TEST_CHECK(ask(&plugin, 1, sizeof(buffer), &a, &notify)))
		return;
	UROM_TEST_CHECK(a.available == 1);
	UROM_TEST_CHECK_STATUS(a.status, UROM_SUCCESS);
	UROM_TEST_CHECK(a.pid == (int32_t)getpid());
	UROM_TEST_CHECK(a.alive == 1);
	UROM_TEST_CHECK(a.cloexec == 1);
	UROM_TEST_CHECK(a.closed == 1);
	UROM_TEST_CHECK(a.read == (int64_t)sizeof(buffer));
	UROM_TEST_CHECK(memcmp(a.bytes, buffer, sizeof(buffer)) == 0);
	urom_testkit_release(notify);
	urom_testkit_close(&plugin);
}

static void a_child_is_the_host(const char *path)
{
	struct urom_testkit_plugin plugin = {0};
	struct urom_worker_notify *notify = NULL;
	pid_t child = fork();
	struct answer a;

	if (child == 0) {
		pause();
		_exit(0);
	}
	plugin.host_pid = child;
	UROM_TEST_CHECK_STATUS(urom_testkit_open(&plugin, path), UROM_SUCCESS);
	if (UROM_TEST_CHECK(ask(&plugin, 1, sizeof(buffer), &a, &notify))) {
		UROM_TEST_CHECK_STATUS(a.status, UROM_SUCCESS);
		UROM_TEST_CHECK(a.pid == (int32_t)child);
		UROM_TEST_CHECK(a.read == (int64_t)sizeof(buffer));
		UROM_TEST_CHECK(memcmp(a.bytes, buffer, sizeof(buffer)) ==
				0); /* the child's copy, from before its fork */
		urom_testkit_release(notify);
	}
	urom_testkit_close(&plugin);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);

	memset(&plugin, 0, sizeof(plugin));
	plugin.host_pid = child; /* reaped: no such process any more */
	UROM_TEST_CHECK_STATUS(urom_testkit_open(&plugin, path), UROM_ERR_NOT_FOUND);
}

static void no_host(const char *path)
{
	struct urom_testkit_plugin plugin = {0};
	struct urom_worker_notify *notify = NULL;
	struct answer a;

	plugin.host_pid = -1;
	UROM_TEST_CHECK_STATUS(urom_testkit_open(&plugin, path), UROM_SUCCESS);
	if (UROM_TEST_CHECK(ask(&plugin, 1, 0, &a, &notify))) {
		UROM_TEST_CHECK_STATUS(a.status, UROM_ERR_NOT_SUPPORTED);
		urom_testkit_release(notify);
	}
	urom_testkit_close(&plugin);
}

static void no_symbol(const char *path)
{
	struct urom_testkit_plugin plugin = {0};
	struct urom_worker_notify *notify = NULL;
	struct answer a;

	UROM_TEST_CHECK_STATUS(urom_testkit_open(&plugin, path), UROM_SUCCESS);
	if (UROM_TEST_CHECK(ask(&plugin, 1, 0, &a, &notify))) {
		UROM_TEST_CHECK(a.available == 0);
		UROM_TEST_CHECK_STATUS(a.status, UROM_ERR_NOT_SUPPORTED);
		urom_testkit_release(notify);
	}
	urom_testkit_close(&plugin);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s PLUGIN linked|unlinked\n", argv[0]);
		return 2;
	}
	for (unsigned i = 0; i < sizeof(buffer); i++)
		buffer[i] = (unsigned char)(i * 3 + 11);
	if (strcmp(argv[2], "unlinked") == 0) {
		no_symbol(argv[1]);
	} else {
		the_test_is_the_host(argv[1]);
		a_child_is_the_host(argv[1]);
		no_host(argv[1]);
	}
	return urom_testkit_summary(argv[0]);
}
