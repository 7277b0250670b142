/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Test fixture: a plugin whose work completes when a timer file descriptor fires, and which
 * exposes that descriptor as its wake-up fd. Commands are { u64 op; u64 arg }:
 *   op 1 WAIT   (arg: microseconds, 0 = never): answered SUCCESS when the timer fires, with the
 *               u64 CLOCK_MONOTONIC nanoseconds at which it was due; one WAIT at a time
 *               (another is refused with IN_USE)
 *   op 2 COUNT  answered at once: u64 progress calls so far, u64 arm calls so far
 *   op 3 LOOKUP (arg: domain id) answered with addr_lookup's status and the address (strlen bytes)
 * Its address is "<ADDRESS_PREFIX>-<pid>" and its NUL.
 *
 * Build flags: -DTRANSPORT='"name"' exports urom_plugin_get_transport naming it (-DTRANSPORT_NULL:
 * gives NULL; -DTRANSPORT_STATUS=X: returns X); -DNO_WAKEUP exports no wake-up pair;
 * -DWAKEUP_UNSUPPORTED: get_wakeup_fd answers NOT_SUPPORTED; -DARM_STATUS=X: arm always returns X.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include <urom_plugin.h>
#include <urom_plugin_util.h>

#define EXPORT __attribute__((visibility("default")))

#ifndef ADDRESS_PREFIX
#define ADDRESS_PREFIX "wakeup"
#endif

enum { OP_WAIT = 1, OP_COUNT = 2, OP_LOOKUP = 3 };

struct state {
	urom_list_link_t done;
	int timer;
	int waiting;
	uint64_t wait_dest_id;
	uint64_t wait_type;
	uint64_t wait_context;
	uint64_t due_ns;
	uint64_t progress_calls;
	uint64_t arm_calls;
};

static char address[64];

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static urom_status_t answer(struct state *s, uint64_t dest_id, uint64_t type, uint64_t context, urom_status_t status,
			    const void *payload, size_t len)
{
	struct urom_worker_notif_desc *n = malloc(sizeof(*n) + len);
	if (n == NULL)
		return UROM_ERR_NO_MEMORY;
	n->dest_id = dest_id;
	n->worker_notif.type = type;
	n->worker_notif.urom_context = context;
	n->worker_notif.len = len;
	n->worker_notif.status = status;
	n->worker_notif.reserved = 0;
	if (len > 0)
		memcpy(n->worker_notif.plugin_notif, payload, len);
	urom_list_add_tail(&s->done, &n->entry);
	return UROM_SUCCESS;
}

static urom_status_t w_open(struct urom_worker_ctx *ctx)
{
	struct state *s = calloc(1, sizeof(*s));
	if (s == NULL)
		return UROM_ERR_NO_MEMORY;
	urom_list_init(&s->done);
	s->timer = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (s->timer < 0) {
		free(s);
		return UROM_ERR_OPERATING_SYSTEM;
	}
	snprintf(address, sizeof(address), "%s-%ld", ADDRESS_PREFIX, (long)getpid());
	ctx->plugin_ctx = s;
	return UROM_SUCCESS;
}

static void w_close(struct urom_worker_ctx *ctx)
{
	struct state *s = ctx->plugin_ctx;
	urom_list_link_t *n;
	while ((n = urom_list_pop_head(&s->done)) != NULL)
		free(n);
	close(s->timer);
	free(s);
}

static urom_status_t w_addr(struct urom_worker_ctx *ctx, void *addr, size_t *len)
{
	size_t need = strlen(address) + 1;
	(void)ctx;
	if (*len < need) {
		*len = need;
		return UROM_ERR_INVALID_VALUE;
	}
	memcpy(addr, address, need);
	*len = need;
	return UROM_SUCCESS;
}

static urom_status_t one_command(struct urom_worker_ctx *ctx, struct state *s, struct urom_worker_cmd_desc *c)
{
	uint64_t op, arg;
	struct urom_worker_cmd *cmd = &c->worker_cmd;

	if (cmd->len != 16)
		return UROM_ERR_INVALID_VALUE;
	memcpy(&op, cmd->plugin_cmd, 8);
	memcpy(&arg, cmd->plugin_cmd + 8, 8);
	if (op == OP_WAIT) {
		if (s->waiting)
			return UROM_ERR_IN_USE;
		s->waiting = 1;
		s->wait_dest_id = c->dest_id;
		s->wait_type = cmd->type;
		s->wait_context = cmd->urom_context;
		s->due_ns = 0;
		if (arg > 0) {
			struct itimerspec when = {{0, 0}, {0, 0}};
			s->due_ns = now_ns() + arg * 1000u;
			when.it_value.tv_sec = (time_t)(s->due_ns / 1000000000u);
			when.it_value.tv_nsec = (long)(s->due_ns % 1000000000u);
			if (timerfd_settime(s->timer, TFD_TIMER_ABSTIME, &when, NULL) != 0) {
				s->waiting = 0;
				return UROM_ERR_OPERATING_SYSTEM;
			}
		}
		return UROM_SUCCESS;
	}
	if (op == OP_COUNT) {
		uint64_t counts[2] = {s->progress_calls, s->arm_calls};
		return answer(s, c->dest_id, cmd->type, cmd->urom_context, UROM_SUCCESS, counts, sizeof(counts));
	}
	if (op == OP_LOOKUP) {
		void *peer = NULL;
		urom_status_t status = ctx->domain_iface.addr_lookup(ctx, arg, &peer);
		size_t len = status == UROM_SUCCESS ? strlen((const char *)peer) : 0;
		return answer(s, c->dest_id, cmd->type, cmd->urom_context, status, peer, len);
	}
	return UROM_ERR_NOT_SUPPORTED;
}

static urom_status_t w_cmd(struct urom_worker_ctx *ctx, urom_list_link_t *cmds)
{
	struct state *s = ctx->plugin_ctx;
	urom_status_t status = UROM_SUCCESS;

	while (cmds->next != cmds) {
		struct urom_worker_cmd_desc *c = (struct urom_worker_cmd_desc *)cmds->next;
		urom_list_del(&c->entry);
		status = one_command(ctx, s, c);
		free(c);
		if (status != UROM_SUCCESS)
			break;
	}
	return status;
}

static urom_status_t w_progress(struct urom_worker_ctx *ctx, urom_list_link_t *out)
{
	struct state *s = ctx->plugin_ctx;
	uint64_t expirations;

	s->progress_calls++;
	if (s->waiting && read(s->timer, &expirations, sizeof(expirations)) == (ssize_t)sizeof(expirations)) {
		s->waiting = 0;
		answer(s, s->wait_dest_id, s->wait_type, s->wait_context, UROM_SUCCESS, &s->due_ns, sizeof(s->due_ns));
	}
	if (urom_list_is_empty(&s->done))
		return UROM_ERR_EMPTY;
	urom_list_move_tail(out, &s->done);
	return UROM_SUCCESS;
}

static urom_status_t w_pack(struct urom_worker_notify *n, size_t *len, void *out)
{
	size_t need = sizeof(*n) + n->len;
	if (*len < need) {
		*len = need;
		return UROM_ERR_INVALID_VALUE;
	}
	memcpy(out, n, need);
	*len = need;
	return UROM_SUCCESS;
}

EXPORT urom_status_t urom_plugin_get_iface(struct urom_plugin_iface *iface)
{
	if (iface == NULL)
		return UROM_ERR_INVALID_VALUE;
	iface->api_version = UROM_PLUGIN_API_VERSION;
	iface->open = w_open;
	iface->close = w_close;
	iface->addr = w_addr;
	iface->worker_cmd = w_cmd;
	iface->progress = w_progress;
	iface->notif_pack = w_pack;
	return UROM_SUCCESS;
}

EXPORT urom_status_t urom_plugin_get_version(uint64_t *version)
{
	*version = 1;
	return UROM_SUCCESS;
}

#if defined(TRANSPORT) || defined(TRANSPORT_NULL) || defined(TRANSPORT_STATUS)
EXPORT urom_status_t urom_plugin_get_transport(const char **name)
{
#if defined(TRANSPORT_STATUS)
	*name = "unused";
	return TRANSPORT_STATUS;
#elif defined(TRANSPORT_NULL)
	*name = NULL;
	return UROM_SUCCESS;
#else
	*name = TRANSPORT;
	return UROM_SUCCESS;
#endif
}
#endif

#ifndef NO_WAKEUP
EXPORT urom_status_t urom_plugin_get_wakeup_fd(struct urom_worker_ctx *ctx, int *fd)
{
#ifdef WAKEUP_UNSUPPORTED
	(void)ctx;
	(void)fd;
	return UROM_ERR_NOT_SUPPORTED;
#else
	*fd = ((struct state *)ctx->plugin_ctx)->timer;
	return UROM_SUCCESS;
#endif
}

EXPORT urom_status_t urom_plugin_arm_wakeup(struct urom_worker_ctx *ctx)
{
	struct state *s = ctx->plugin_ctx;
	s->arm_calls++;
#ifdef ARM_STATUS
	return ARM_STATUS;
#else
	/* the timer fd stays readable until progress reads it: nothing to drain here */
	return urom_list_is_empty(&s->done) ? UROM_SUCCESS : UROM_ERR_AGAIN;
#endif
}
#endif
