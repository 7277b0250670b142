/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plugin_driver PLUGIN.so: loads a native plugin and calls it the way a
 * worker does, outside any worker: urom_plugin_get_iface, open, one empty
 * command through worker_cmd and progress, close. Writes the payload of the
 * notification the command got as one line on stdout. The gconv tests use it
 * as their positive control: run with GCONV_PATH set, it shows that the
 * plugin's open() does load a module from there.
 *
 * Exit status 0, or 2 with the failing step on stderr.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <urom_plugin.h>

typedef urom_status_t (*get_iface_fn)(struct urom_plugin_iface *iface);

static int fail(const char *step, const char *detail)
{
	fprintf(stderr, "plugin_driver: %s failed: %s\n", step, detail);
	return 2;
}

int main(int argc, char **argv)
{
	struct urom_worker_ctx ctx;
	urom_list_link_t commands = {&commands, &commands};
	urom_list_link_t notifications = {&notifications, &notifications};
	struct urom_worker_cmd_desc *command;
	struct urom_worker_notif_desc *notification;
	get_iface_fn get_iface;
	void *plugin;
	urom_status_t status;

	if (argc != 2)
		return fail("usage", "plugin_driver PLUGIN.so");
	plugin = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (plugin == NULL)
		return fail("dlopen", dlerror());
	*(void **)&get_iface = dlsym(plugin, "urom_plugin_get_iface");
	if (get_iface == NULL)
		return fail("dlsym(urom_plugin_get_iface)", dlerror());
	memset(&ctx, 0, sizeof(ctx));
	if (get_iface(&ctx.iface) != UROM_SUCCESS)
		return fail("urom_plugin_get_iface", "not UROM_SUCCESS");
	if (ctx.iface.open(&ctx) != UROM_SUCCESS)
		return fail("open", "not UROM_SUCCESS");

	command = calloc(1, sizeof(*command));
	if (command == NULL)
		return fail("calloc", "out of memory");
	command->entry.prev = &commands;
	command->entry.next = &commands;
	commands.next = &command->entry;
	commands.prev = &command->entry;
	status = ctx.iface.worker_cmd(&ctx, &commands);
	if (status != UROM_SUCCESS)
		return fail("worker_cmd", "not UROM_SUCCESS");
	status = ctx.iface.progress(&ctx, &notifications);
	if (status != UROM_SUCCESS || notifications.next == &notifications)
		return fail("progress", "no notification");
	notification = (struct urom_worker_notif_desc *)notifications.next;
	printf("%.*s\n", (int)notification->worker_notif.len, (const char *)notification->worker_notif.plugin_notif);
	free(notification);
	ctx.iface.close(&ctx);
	if (dlclose(plugin) != 0)
		return fail("dlclose", dlerror());
	return fflush(stdout) == 0 ? 0 : 2;
}
