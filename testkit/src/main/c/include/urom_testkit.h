/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom_testkit.h: the C side of the plugin authors' test kit, header only.
 *
 * Loads a plugin (.so) into the test program, as a worker does (dlopen, then
 * urom_plugin_get_iface and open), hands it commands one by one and makes
 * progress until the notification that answers a command comes, or a time
 * limit passes. The plugin sees no domain: its peer look-ups answer
 * UROM_ERR_NOT_FOUND. Its host, what urom_worker_host_process names for every
 * dest_id, is the test's own process unless host_pid says otherwise (another
 * process, a child of the test say, or none). Build a test with
 *     cc -rdynamic $(pkg-config --cflags urom-plugin) test.c -ldl
 *
 * -rdynamic exports the kit's urom_log_write and urom_worker_host_process, so
 * the plugin's host look-ups reach the kit (without it the plugin finds
 * urom_worker_host_process NULL, as in a worker that lacks it), and its log messages
 * (UROM_LOG_*, DOCA_LOG_*) come to the kit, which prints each on stderr as
 * "[SOURCE] LEVEL message", or, when a test expects it (UROM_TEST_EXPECT_LOG),
 * as "expected: [SOURCE] LEVEL message". The kit is one translation unit's:
 * include it in the test's only .c file.
 *
 * One plugin per struct urom_testkit_plugin, driven by one thread. Every
 * function reports why it failed on one line on stderr. The checks count
 * passes and failures; urom_testkit_summary() prints them and gives the exit
 * status.
 */
#ifndef UROM_TESTKIT_H_
#define UROM_TESTKIT_H_

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "urom_log.h"
#include "urom_plugin.h"
#include "urom_plugin_util.h"

#ifdef __cplusplus
extern "C" {
#endif

#define UROM_TESTKIT_DEFAULT_TIMEOUT_MS 10000u

struct urom_testkit_plugin {
	void *library;
	struct urom_worker_ctx ctx;
	urom_list_link_t received; /* notifications that came and no wait took yet */
	uint64_t plugin_id;        /* the type of every command; 1 unless set before open */
	uint64_t dest_id;          /* the host connection the commands come from; 1 unless set */
	uint64_t next_context;
	unsigned timeout_ms; /* of each wait; UROM_TESTKIT_DEFAULT_TIMEOUT_MS unless set */
	int opened;
	/* The host of every dest_id (urom_worker_host_process): 0, the test's own process; > 0, that
	 * process (a child of the test, say), which must exist when the plugin is opened; -1, none: the
	 * look-ups answer UROM_ERR_NOT_SUPPORTED, as for a host over TCP. */
	int32_t host_pid;
	int host_pidfd_;                          /* the kit's pidfd of that process, -1 for none */
	struct urom_testkit_plugin *next_opened_; /* the kit's list of opened plugins */
};

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

static unsigned urom_testkit_passed_;
static struct urom_testkit_plugin *urom_testkit_opened_;
static unsigned urom_testkit_failed_;

__attribute__((unused)) static const char *urom_testkit_status_name(urom_status_t status)
{
	const char *name = urom_status_name(status);

	return name != NULL ? name : "(not a urom status)";
}

__attribute__((unused)) static int urom_testkit_check_(int ok, const char *file, int line, const char *what)
{
	if (ok) {
		urom_testkit_passed_++;
	} else {
		urom_testkit_failed_++;
		fprintf(stderr, "FAILED %s:%d: %s\n", file, line, what);
	}
	return ok;
}

/* Counts a check; prints the expression and where it is when it is false. */
#define UROM_TEST_CHECK(condition) urom_testkit_check_(!!(condition), __FILE__, __LINE__, #condition)

/* Counts a check that a status is the one expected; prints both names when not. */
#define UROM_TEST_CHECK_STATUS(actual, expected) \
	do { \
		urom_status_t actual_ = (actual), expected_ = (expected); \
		if (!urom_testkit_check_(actual_ == expected_, __FILE__, __LINE__, #actual " == " #expected)) \
			fprintf(stderr, "       got %s, expected %s\n", urom_testkit_status_name(actual_), \
				urom_testkit_status_name(expected_)); \
	} while (0)

/* The level UROM_TEST_EXPECT_LOG waits for (0: none), and how many messages came at it meanwhile. */
static int urom_testkit_expected_level_;
static unsigned urom_testkit_expected_seen_;

/*
 * The plugin's log, when the test is linked with -rdynamic (urom_log.h declares
 * it weak; this is its definition). A message at the level a running
 * UROM_TEST_EXPECT_LOG names is marked "expected: ".
 */
__attribute__((visibility("default"))) void urom_log_write(int level, const char *source, const char *file, int line,
							   const char *func, const char *message)
{
	int expected = urom_testkit_expected_level_ != 0 && level == urom_testkit_expected_level_;

	(void)file;
	(void)line;
	(void)func;
	if (expected)
		urom_testkit_expected_seen_++;
	fprintf(stderr, "%s[%s] %s %s\n", expected ? "expected: " : "", source != NULL ? source : "?",
		urom_log_level_name(level), message != NULL ? message : "");
}

/* Whether the plugin's messages reach urom_log_write above: the program exports it (-rdynamic). */
static int urom_testkit_log_reaches_kit_(void)
{
	return dlsym(RTLD_DEFAULT, "urom_log_write") != NULL;
}

__attribute__((unused)) static void urom_testkit_expect_begin_(int level)
{
	urom_testkit_expected_level_ = level;
	urom_testkit_expected_seen_ = 0;
}

__attribute__((unused)) static unsigned urom_testkit_expect_end_(void)
{
	urom_testkit_expected_level_ = 0;
	if (urom_testkit_expected_seen_ == 0 && !urom_testkit_log_reaches_kit_())
		fprintf(stderr,
			"urom_testkit: the plugin's log does not reach the kit: link the test with -rdynamic\n");
	return urom_testkit_expected_seen_;
}

/*
 * Runs statement (a command the plugin is to refuse, say) expecting the plugin
 * to log at least one message at level (UROM_LOG_LEVEL_ERROR, ...): those
 * print as "expected: [SOURCE] LEVEL message", and the expectation counts as
 * one check, which fails when no such message came.
 */
#define UROM_TEST_EXPECT_LOG(level, statement) \
	do { \
		urom_testkit_expect_begin_(level); \
		statement; \
		urom_testkit_check_(urom_testkit_expect_end_() > 0, __FILE__, __LINE__, \
				    "a " #level " message from the plugin during " #statement); \
	} while (0)

static urom_status_t urom_testkit_no_peer_(struct urom_worker_ctx *ctx, uint64_t domain_id, void **addr)
{
	(void)ctx;
	(void)domain_id;
	(void)addr;
	return UROM_ERR_NOT_FOUND;
}

static urom_status_t urom_testkit_no_segment_(struct urom_worker_ctx *ctx, uint64_t domain_id, uint64_t va, int *seg)
{
	(void)ctx;
	(void)domain_id;
	(void)va;
	(void)seg;
	return UROM_ERR_NOT_FOUND;
}

static urom_status_t urom_testkit_no_key_(struct urom_worker_ctx *ctx, uint64_t domain_id, int seg, size_t *len,
					  void **key)
{
	(void)ctx;
	(void)domain_id;
	(void)seg;
	(void)len;
	(void)key;
	return UROM_ERR_NOT_FOUND;
}

/*
 * The plugin's host look-up, when the test is linked with -rdynamic (urom_plugin.h declares it
 * weak; this is its definition): the plugin's host_pid, with a new pidfd the plugin owns, for
 * every dest_id. UROM_ERR_INVALID_VALUE for NULL or for a context the kit did not open.
 */
__attribute__((visibility("default"))) urom_status_t
urom_worker_host_process(struct urom_worker_ctx *ctx, uint64_t dest_id, struct urom_host_process *host)
{
	struct urom_testkit_plugin *plugin = urom_testkit_opened_;
	int copy;

	(void)dest_id;
	if (ctx == NULL || host == NULL)
		return UROM_ERR_INVALID_VALUE;
	while (plugin != NULL && &plugin->ctx != ctx)
		plugin = plugin->next_opened_;
	if (plugin == NULL)
		return UROM_ERR_INVALID_VALUE;
	if (plugin->host_pidfd_ < 0)
		return UROM_ERR_NOT_SUPPORTED;
	copy = fcntl(plugin->host_pidfd_, F_DUPFD_CLOEXEC, 3);
	if (copy < 0)
		return errno == EMFILE || errno == ENFILE ? UROM_ERR_NO_MEMORY : UROM_ERR_OPERATING_SYSTEM;
	host->pid = plugin->host_pid > 0 ? plugin->host_pid : (int32_t)getpid();
	host->pidfd = copy;
	return UROM_SUCCESS;
}

static void urom_testkit_forget_(struct urom_testkit_plugin *plugin)
{
	struct urom_testkit_plugin **at = &urom_testkit_opened_;

	while (*at != NULL && *at != plugin)
		at = &(*at)->next_opened_;
	if (*at != NULL)
		*at = plugin->next_opened_;
	if (plugin->host_pidfd_ >= 0)
		close(plugin->host_pidfd_);
	plugin->host_pidfd_ = -1;
}

/*
 * Loads the plugin at path and opens it. Settings made in *plugin before the
 * call (plugin_id, dest_id, timeout_ms, host_pid) are kept; zero means the
 * default. UROM_ERR_NOT_FOUND as well when host_pid names no process.
 */
__attribute__((unused)) static urom_status_t urom_testkit_open(struct urom_testkit_plugin *plugin, const char *path)
{
	urom_status_t (*get_iface)(struct urom_plugin_iface *);
	urom_status_t status;

	if (!urom_testkit_log_reaches_kit_())
		fprintf(stderr, "urom_testkit: the test is not linked with -rdynamic: the plugin's log goes to stderr "
				"without the kit, and UROM_TEST_EXPECT_LOG cannot see it\n");
	plugin->library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (plugin->library == NULL) {
		fprintf(stderr, "urom_testkit: cannot load plugin %s: %s\n", path, dlerror());
		return UROM_ERR_NOT_FOUND;
	}
	*(void **)&get_iface = dlsym(plugin->library, "urom_plugin_get_iface");
	if (get_iface == NULL) {
		fprintf(stderr,
			"urom_testkit: plugin %s exports no urom_plugin_get_iface (built with -fvisibility=hidden "
			"without the header's declaration?)\n",
			path);
		dlclose(plugin->library);
		return UROM_ERR_NOT_FOUND;
	}
	memset(&plugin->ctx, 0, sizeof(plugin->ctx));
	status = get_iface(&plugin->ctx.iface);
	if (status != UROM_SUCCESS || plugin->ctx.iface.api_version != UROM_PLUGIN_API_VERSION) {
		fprintf(stderr,
			"urom_testkit: plugin %s: urom_plugin_get_iface gave %s, API version %zu (this kit: %zu)\n",
			path, urom_testkit_status_name(status), (size_t)plugin->ctx.iface.api_version,
			(size_t)UROM_PLUGIN_API_VERSION);
		dlclose(plugin->library);
		return status != UROM_SUCCESS ? status : UROM_ERR_UNSUPPORTED_VERSION;
	}
	plugin->ctx.domain_iface.addr_lookup = urom_testkit_no_peer_;
	plugin->ctx.domain_iface.seg_lookup = urom_testkit_no_segment_;
	plugin->ctx.domain_iface.memh_lookup = urom_testkit_no_key_;
	plugin->ctx.domain_iface.mkey_lookup = urom_testkit_no_key_;
	urom_list_init(&plugin->received);
	if (plugin->plugin_id == 0)
		plugin->plugin_id = 1;
	if (plugin->dest_id == 0)
		plugin->dest_id = 1;
	if (plugin->timeout_ms == 0)
		plugin->timeout_ms = UROM_TESTKIT_DEFAULT_TIMEOUT_MS;
	plugin->next_context = 1;
	plugin->host_pidfd_ = -1;
	if (plugin->host_pid >= 0) {
		pid_t host = plugin->host_pid > 0 ? (pid_t)plugin->host_pid : getpid();

		plugin->host_pidfd_ = (int)syscall(SYS_pidfd_open, host, 0);
		if (plugin->host_pidfd_ < 0) {
			fprintf(stderr, "urom_testkit: plugin %s: no pidfd of host process %ld: %s\n", path, (long)host,
				strerror(errno));
			dlclose(plugin->library);
			return errno == ESRCH ? UROM_ERR_NOT_FOUND : UROM_ERR_OPERATING_SYSTEM;
		}
	}
	plugin->next_opened_ = urom_testkit_opened_;
	urom_testkit_opened_ = plugin;
	status = plugin->ctx.iface.open(&plugin->ctx);
	if (status != UROM_SUCCESS) {
		fprintf(stderr, "urom_testkit: plugin %s: open failed: %s\n", path, urom_testkit_status_name(status));
		urom_testkit_forget_(plugin);
		dlclose(plugin->library);
		return status;
	}
	plugin->opened = 1;
	return UROM_SUCCESS;
}

/*
 * Hands the plugin one command carrying len bytes of payload, with the next
 * context number, stored in *context. Returns what worker_cmd returned: a
 * refused command is never answered by the plugin.
 */
__attribute__((unused)) static urom_status_t urom_testkit_send(struct urom_testkit_plugin *plugin, const void *payload,
							       size_t len, uint64_t *context)
{
	struct urom_worker_cmd_desc *command;
	urom_list_link_t commands = {&commands, &commands};
	urom_list_link_t *left;
	urom_status_t status;

	command = malloc(sizeof(*command) + len);
	if (command == NULL) {
		fprintf(stderr, "urom_testkit: no memory for a command of %zu bytes\n", len);
		return UROM_ERR_NO_MEMORY;
	}
	command->dest_id = plugin->dest_id;
	command->worker_cmd.type = plugin->plugin_id;
	command->worker_cmd.urom_context = plugin->next_context++;
	command->worker_cmd.len = len;
	if (len > 0)
		memcpy(command->worker_cmd.plugin_cmd, payload, len);
	if (context != NULL)
		*context = command->worker_cmd.urom_context;
	urom_list_add_tail(&commands, &command->entry);
	status = plugin->ctx.iface.worker_cmd(&plugin->ctx, &commands);
	while ((left = urom_list_pop_head(&commands)) != NULL) /* what the plugin did not take stays the caller's */
		free(left);
	return status;
}

/* One round of progress; what comes is kept for the waits. Returns how many came. */
__attribute__((unused)) static unsigned urom_testkit_progress(struct urom_testkit_plugin *plugin)
{
	urom_list_link_t fresh = {&fresh, &fresh};
	const urom_list_link_t *link;
	urom_status_t status;
	unsigned count = 0;

	status = plugin->ctx.iface.progress(&plugin->ctx, &fresh);
	if (status != UROM_SUCCESS && status != UROM_ERR_EMPTY)
		fprintf(stderr, "urom_testkit: progress failed: %s\n", urom_testkit_status_name(status));
	urom_list_for_each(link, &fresh)
		count++;
	urom_list_move_tail(&plugin->received, &fresh);
	return count;
}

static uint64_t urom_testkit_now_ms_(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint64_t)now.tv_sec * 1000u + (uint64_t)now.tv_nsec / 1000000u;
}

/*
 * Makes progress until the notification answering the command with this
 * context comes, and hands it over (free it with urom_testkit_release). NULL
 * after the plugin's time limit, with one line on stderr.
 */
__attribute__((unused)) static struct urom_worker_notify *urom_testkit_await(struct urom_testkit_plugin *plugin,
									     uint64_t context)
{
	uint64_t deadline = urom_testkit_now_ms_() + plugin->timeout_ms;
	unsigned idle = 0;

	for (;;) {
		urom_list_link_t *link;

		urom_list_for_each(link, &plugin->received) {
			struct urom_worker_notif_desc *desc =
				UROM_LIST_ENTRY(link, struct urom_worker_notif_desc, entry);

			if (desc->worker_notif.urom_context == context &&
			    desc->worker_notif.type == plugin->plugin_id) {
				urom_list_del(link);
				return &desc->worker_notif;
			}
		}
		if (urom_testkit_now_ms_() >= deadline) {
			fprintf(stderr, "urom_testkit: no answer to context %llu within %u ms\n",
				(unsigned long long)context, plugin->timeout_ms);
			return NULL;
		}
		if (urom_testkit_progress(plugin) == 0 && ++idle > 1000) {
			struct timespec pause = {0, 100000};

			nanosleep(&pause, NULL);
		} else {
			sched_yield();
		}
	}
}

/* Notifications that came and no wait took yet. */
__attribute__((unused)) static unsigned urom_testkit_unclaimed(const struct urom_testkit_plugin *plugin)
{
	const urom_list_link_t *link;
	unsigned count = 0;

	urom_list_for_each(link, &plugin->received)
		count++;
	return count;
}

/* Frees a notification that urom_testkit_await handed over. */
__attribute__((unused)) static void urom_testkit_release(struct urom_worker_notify *notification)
{
	if (notification != NULL)
		free((char *)notification - offsetof(struct urom_worker_notif_desc, worker_notif));
}

/* Frees what is unclaimed, closes the plugin and unloads it. */
__attribute__((unused)) static void urom_testkit_close(struct urom_testkit_plugin *plugin)
{
	urom_list_link_t *link;

	if (!plugin->opened)
		return;
	while ((link = urom_list_pop_head(&plugin->received)) != NULL)
		free(link);
	plugin->ctx.iface.close(&plugin->ctx);
	urom_testkit_forget_(plugin);
	dlclose(plugin->library);
	plugin->opened = 0;
}

/* Prints "NAME: N passed, M failed"; the exit status for main: 0 when nothing failed. */
__attribute__((unused)) static int urom_testkit_summary(const char *name)
{
	printf("%s: %u passed, %u failed\n", name, urom_testkit_passed_, urom_testkit_failed_);
	return urom_testkit_failed_ == 0 && urom_testkit_passed_ > 0 ? 0 : 1;
}

#ifdef __cplusplus
}
#endif

#endif /* UROM_TESTKIT_H_ */
