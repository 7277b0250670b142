/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Drives worker_sandbox.so's optional entry points and UCX completions
 * directly, without a worker: two plugin instances A (domain id 0) and B
 * (domain id 1) in this process, found by a look-up written here. Built and
 * run by SandboxUcpNativeIT, once per case; prints one line of results and
 * exits 0, or prints "failed: <why>" and exits 1.
 *
 *   sandbox_ucp_probe <plugin.so> transport   the transport name
 *   sandbox_ucp_probe <plugin.so> wakeup      wake-up fd and arm around a message for a posted receive
 *   sandbox_ucp_probe <plugin.so> at-once     a send and a receive that UCX completes at once
 *   sandbox_ucp_probe <plugin.so> refusals    the entry points' answers to missing arguments
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <urom_plugin.h>
#include <urom_plugin_util.h>

static const char *status_name(urom_status_t status)
{
	const char *name = urom_status_name(status);

	return name != NULL ? name : "OTHER";
}

/* Generous bounds: the build machine is shared. */
#define WAIT_MS 20000

static struct urom_plugin_iface iface;
static urom_status_t (*get_transport)(const char **);
static urom_status_t (*get_wakeup_fd)(struct urom_worker_ctx *, int *);
static urom_status_t (*arm_wakeup)(struct urom_worker_ctx *);

struct instance {
	struct urom_worker_ctx ctx;
	uint8_t address[4096];
	urom_list_link_t answers;
};

static struct instance peers[2];

static void fail(const char *why)
{
	printf("failed: %s\n", why);
	exit(1);
}

static urom_status_t lookup(struct urom_worker_ctx *ctx, uint64_t domain_id, void **addr)
{
	(void)ctx;
	static const char garbage[] = "unix:/tmp/not-a-ucp-address";

	if (domain_id == 2) {
		*addr = (void *)garbage;
		return UROM_SUCCESS;
	}
	if (domain_id > 1)
		return UROM_ERR_NOT_FOUND;
	*addr = peers[domain_id].address;
	return UROM_SUCCESS;
}

static void open_instance(struct instance *in)
{
	size_t len = sizeof(in->address);

	memset(&in->ctx, 0, sizeof(in->ctx));
	in->ctx.iface = iface;
	in->ctx.domain_iface.addr_lookup = lookup;
	urom_list_init(&in->answers);
	if (iface.open(&in->ctx) != UROM_SUCCESS)
		fail("open");
	if (iface.addr(&in->ctx, in->address, &len) != UROM_SUCCESS)
		fail("addr");
}

/* Submits one command of seven u64 words (then `data`) with urom_context `uctx`. */
static void submit(struct instance *in, uint64_t uctx, const uint64_t words[7], const void *data, size_t data_len)
{
	urom_list_link_t list;
	struct urom_worker_cmd_desc *desc = calloc(1, sizeof(*desc) + 56 + data_len);

	if (desc == NULL)
		fail("calloc");
	desc->worker_cmd.urom_context = uctx;
	desc->worker_cmd.len = 56 + data_len;
	for (int i = 0; i < 7; i++)
		urom_store_le64(desc->worker_cmd.plugin_cmd + 8 * i, words[i]);
	if (data_len > 0)
		memcpy(desc->worker_cmd.plugin_cmd + 56, data, data_len);
	urom_list_init(&list);
	urom_list_add_tail(&list, &desc->entry);
	if (iface.worker_cmd(&in->ctx, &list) != UROM_SUCCESS)
		fail("worker_cmd refused the command");
}

static void send_to(struct instance *in, uint64_t uctx, uint64_t dest, uint64_t tag, const char *text)
{
	uint64_t words[7] = {1, uctx, dest, 0, strlen(text), tag, 0};

	submit(in, uctx, words, text, strlen(text));
}

static void recv_inline(struct instance *in, uint64_t uctx, uint64_t count, uint64_t tag)
{
	uint64_t words[7] = {2, uctx, 0, count, tag, UINT64_MAX, 0};

	submit(in, uctx, words, NULL, 0);
}

/* Runs progress once; the number of answers it handed out. */
static int progress(struct instance *in)
{
	urom_list_link_t got, *link;
	int n = 0;

	urom_list_init(&got);
	if (iface.progress(&in->ctx, &got) == UROM_SUCCESS) {
		urom_list_for_each(link, &got)
			n++;
		urom_list_move_tail(&in->answers, &got);
	}
	return n;
}

/* The answer to `uctx` if `in` has it (taken off its list), else NULL. */
static struct urom_worker_notif_desc *take(struct instance *in, uint64_t uctx)
{
	urom_list_link_t *it;

	urom_list_for_each(it, &in->answers) {
		struct urom_worker_notif_desc *desc = UROM_LIST_ENTRY(it, struct urom_worker_notif_desc, entry);

		if (desc->worker_notif.urom_context == uctx) {
			urom_list_del(it);
			return desc;
		}
	}
	return NULL;
}

/* Milliseconds of CLOCK_MONOTONIC: the loops below are bounded by time, not by a count of rounds,
 * so that a loaded machine slows them down without failing them. */
static uint64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

/* Progresses both instances until `in` answered `uctx`. */
static struct urom_worker_notif_desc *await_answer(struct instance *in, uint64_t uctx)
{
	for (uint64_t end = now_ms() + WAIT_MS; now_ms() < end;) {
		struct urom_worker_notif_desc *desc = take(in, uctx);

		if (desc != NULL)
			return desc;
		progress(&peers[0]);
		progress(&peers[1]);
	}
	fail("no answer");
	return NULL;
}

static int readable(int fd, int timeout_ms)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};

	return poll(&p, 1, timeout_ms) == 1 && (p.revents & POLLIN);
}

/* Progress and arm until arm says SUCCESS (UCX may have start-up events); the number of AGAINs seen. */
static void arm_until_armed(struct instance *in)
{
	for (uint64_t end = now_ms() + WAIT_MS; now_ms() < end;) {
		urom_status_t status = arm_wakeup(&in->ctx);

		if (status == UROM_SUCCESS)
			return;
		if (status != UROM_ERR_AGAIN)
			fail("arm answered neither SUCCESS nor AGAIN");
		progress(in);
	}
	fail("arm never said SUCCESS");
}

static void print_received(const char *what, struct urom_worker_notif_desc *desc)
{
	const uint8_t *p = desc->worker_notif.plugin_notif;
	uint64_t count = urom_load_le64(p + 24);

	printf(" %s=%s:%.*s:tag=0x%llx", what, status_name(desc->worker_notif.status), (int)count, (const char *)p + 48,
	       (unsigned long long)urom_load_le64(p + 32));
	free(desc);
}

static void case_wakeup(void)
{
	int fd = -1;
	struct urom_worker_notif_desc *desc;

	open_instance(&peers[0]);
	open_instance(&peers[1]);
	if (get_wakeup_fd(&peers[1].ctx, &fd) != UROM_SUCCESS || fd < 0)
		fail("no wake-up fd");
	recv_inline(&peers[1], 1, 64, 0x77);
	arm_until_armed(&peers[1]);
	printf("armed idle=%s", readable(fd, 0) ? "readable" : "quiet");
	send_to(&peers[0], 2, 1, 0x77, "wake");
	desc = await_answer(&peers[0], 2);
	free(desc);
	printf(" message=%s", readable(fd, WAIT_MS) ? "readable" : "quiet");
	printf(" arm=%s", status_name(arm_wakeup(&peers[1].ctx)));
	for (uint64_t end = now_ms() + WAIT_MS; (desc = take(&peers[1], 1)) == NULL && now_ms() < end;)
		progress(&peers[1]);
	if (desc == NULL)
		fail("the receive was not answered");
	print_received("received", desc);
	printf("\n");
	iface.close(&peers[0].ctx);
	iface.close(&peers[1].ctx);
}

static void case_at_once(void)
{
	struct urom_worker_notif_desc *desc;

	open_instance(&peers[0]);
	open_instance(&peers[1]);
	/* A warm-up message makes the endpoint A -> B fully wired, so the next short send completes at once. */
	recv_inline(&peers[1], 1, 64, 0x1);
	send_to(&peers[0], 2, 1, 0x1, "warm");
	free(await_answer(&peers[0], 2));
	free(await_answer(&peers[1], 1));
	arm_until_armed(&peers[0]);
	send_to(&peers[0], 3, 1, 0x2, "now");
	/* No progress since the submit: an answer already queued makes arm say AGAIN. */
	printf("send-arm=%s", status_name(arm_wakeup(&peers[0].ctx)));
	progress(&peers[0]);
	desc = take(&peers[0], 3);
	printf(" send=%s", desc == NULL ? "unanswered" : status_name(desc->worker_notif.status));
	free(desc);
	/* B takes the message into UCX's unexpected queue, then a receive matches it at once. */
	for (int i = 0; i < 100; i++)
		progress(&peers[1]);
	arm_until_armed(&peers[1]);
	recv_inline(&peers[1], 4, 64, 0x2);
	printf(" recv-arm=%s", status_name(arm_wakeup(&peers[1].ctx)));
	progress(&peers[1]);
	desc = take(&peers[1], 4);
	if (desc == NULL)
		printf(" recv=unanswered");
	else
		print_received("recv", desc);
	printf("\n");
	iface.close(&peers[0].ctx);
	iface.close(&peers[1].ctx);
}

static void case_refusals(void)
{
	struct urom_worker_ctx unopened;
	int fd;

	memset(&unopened, 0, sizeof(unopened));
	printf("transport(NULL)=%s", status_name(get_transport(NULL)));
	printf(" fd(NULL)=%s", status_name(get_wakeup_fd(NULL, &fd)));
	printf(" fd(unopened)=%s", status_name(get_wakeup_fd(&unopened, &fd)));
	open_instance(&peers[0]);
	printf(" fd(no out)=%s", status_name(get_wakeup_fd(&peers[0].ctx, NULL)));
	printf(" arm(NULL)=%s", status_name(arm_wakeup(NULL)));
	printf(" arm(unopened)=%s\n", status_name(arm_wakeup(&unopened)));
	iface.close(&peers[0].ctx);
}

int main(int argc, char **argv)
{
	void *plugin;
	urom_status_t (*get_iface)(struct urom_plugin_iface *);

	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc != 3)
		fail("usage: sandbox_ucp_probe <plugin.so> transport|wakeup|at-once|refusals");
	plugin = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (plugin == NULL)
		fail(dlerror());
	get_iface = (urom_status_t(*)(struct urom_plugin_iface *))dlsym(plugin, "urom_plugin_get_iface");
	get_transport = (urom_status_t(*)(const char **))dlsym(plugin, "urom_plugin_get_transport");
	get_wakeup_fd = (urom_status_t(*)(struct urom_worker_ctx *, int *))dlsym(plugin, "urom_plugin_get_wakeup_fd");
	arm_wakeup = (urom_status_t(*)(struct urom_worker_ctx *))dlsym(plugin, "urom_plugin_arm_wakeup");
	if (get_iface == NULL || get_transport == NULL || get_wakeup_fd == NULL || arm_wakeup == NULL)
		fail("a symbol is missing");
	if (get_iface(&iface) != UROM_SUCCESS)
		fail("get_iface");
	if (strcmp(argv[2], "transport") == 0) {
		const char *name = NULL;

		if (get_transport(&name) != UROM_SUCCESS || name == NULL)
			fail("get_transport");
		printf("%s\n", name);
	} else if (strcmp(argv[2], "wakeup") == 0) {
		case_wakeup();
	} else if (strcmp(argv[2], "at-once") == 0) {
		case_at_once();
	} else if (strcmp(argv[2], "garbage") == 0) {
		uint64_t words[7] = {1, 1, 2, 0, 1, 1, 0};
		urom_list_link_t list;
		struct urom_worker_cmd_desc *desc = calloc(1, sizeof(*desc) + 57);

		open_instance(&peers[0]);
		desc->worker_cmd.len = 57;
		for (int i = 0; i < 7; i++)
			urom_store_le64(desc->worker_cmd.plugin_cmd + 8 * i, words[i]);
		urom_list_init(&list);
		urom_list_add_tail(&list, &desc->entry);
		printf("send=%s\n", status_name(iface.worker_cmd(&peers[0].ctx, &list)));
		iface.close(&peers[0].ctx);
	} else if (strcmp(argv[2], "refusals") == 0) {
		case_refusals();
	} else {
		fail("unknown case");
	}
	return 0;
}
