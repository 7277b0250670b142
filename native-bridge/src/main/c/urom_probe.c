/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom-probe <absolute .so path>: loads a native plugin in a process of its
 * own and reports on stdout exactly one line:
 *
 *   ok version=<u64> api=0x<hex>
 *   rejected <reason>
 *
 * The plugin's own stdout is sent to stderr, so nothing it prints can be
 * mistaken for the result. After the line is written the probe leaves with
 * _exit(), without running the plugin's destructors: exit status 0 after
 * "ok", 1 after "rejected", 2 for a usage error. Any other ending (a signal,
 * the plugin calling exit()) comes with no result line at all.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <urom_plugin.h>

#include "write_all.h"

enum { PROBE_OK = 0, PROBE_REJECTED = 1, PROBE_USAGE = 2 };

static int result_fd = -1;

static const char *status_name(int status)
{
	const char *name = urom_status_name((urom_status_t)status);

	return name != NULL ? name : "UNRECOGNIZED";
}

/* Writes the one result line (newlines inside the text become spaces) and ends the process. */
__attribute__((format(printf, 2, 3), noreturn)) static void finish(int code, const char *fmt, ...)
{
	char line[2048];
	va_list ap;
	size_t len;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	for (char *c = line; *c != '\0'; c++)
		if (*c == '\n' || *c == '\r')
			*c = ' ';
	len = strlen(line);
	line[len++] = '\n';
	write_all(result_fd, line, len);
	_exit(code);
}

/* dlerror() without the "<path>: " it starts with: the caller names the file already. */
static const char *loader_reason(const char *path)
{
	const char *error = dlerror();
	size_t len = strlen(path);

	if (error == NULL)
		return "unknown loader error";
	if (strncmp(error, path, len) == 0 && error[len] == ':' && error[len + 1] == ' ')
		return error + len + 2;
	return error;
}

/* Keeps the real stdout for the result and points fd 1 at stderr for the plugin. */
static void reserve_result_channel(void)
{
	result_fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	if (result_fd < 0)
		_exit(PROBE_USAGE);
	fflush(stdout);
	dup2(STDERR_FILENO, STDOUT_FILENO);
}

int main(int argc, char **argv)
{
	static const char *const entry_names[] = {"open", "close", "addr", "worker_cmd", "progress", "notif_pack"};
	struct rlimit no_core = {0, 0};
	union {
		struct urom_plugin_iface iface;
		unsigned char bytes[256]; /* room for a plugin built against a longer table */
	} table;
	urom_status_t (*get_iface)(struct urom_plugin_iface *);
	urom_status_t (*get_version)(uint64_t *);
	uint64_t field, version = 0;
	uint32_t api;
	void *entries[6];
	urom_status_t status;
	void *handle;

	reserve_result_channel();
	setrlimit(RLIMIT_CORE, &no_core);

	if (argc != 2 || argv[1][0] != '/')
		finish(PROBE_USAGE, "rejected usage: urom-probe <absolute path of a .so>");

	/* RTLD_NOW, as the worker: a function no loaded library defines is found here, not at a command. */
	handle = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (handle == NULL)
		finish(PROBE_REJECTED, "rejected not a loadable shared object: %s", loader_reason(argv[1]));

	*(void **)&get_iface = dlsym(handle, "urom_plugin_get_iface");
	if (get_iface == NULL)
		finish(PROBE_REJECTED, "rejected missing symbol urom_plugin_get_iface");
	*(void **)&get_version = dlsym(handle, "urom_plugin_get_version");
	if (get_version == NULL)
		finish(PROBE_REJECTED, "rejected missing symbol urom_plugin_get_version");

	memset(&table, 0, sizeof(table));
	status = get_iface(&table.iface);
	if (status != UROM_SUCCESS)
		finish(PROBE_REJECTED, "rejected urom_plugin_get_iface returned %s (%d)", status_name(status),
		       (int)status);

	memcpy(&field, table.bytes, sizeof(field));
	api = (uint32_t)field;
	if (api != (uint32_t)UROM_PLUGIN_API_VERSION)
		finish(PROBE_REJECTED, "rejected plugin API version 0x%" PRIx32 " is not the supported 0x%" PRIx64, api,
		       (uint64_t)UROM_PLUGIN_API_VERSION);

	memcpy(entries, table.bytes + 8, sizeof(entries));
	for (size_t i = 0; i < 6; i++)
		if (entries[i] == NULL)
			finish(PROBE_REJECTED, "rejected urom_plugin_get_iface left %s NULL", entry_names[i]);

	status = get_version(&version);
	if (status != UROM_SUCCESS)
		finish(PROBE_REJECTED, "rejected urom_plugin_get_version returned %s (%d)", status_name(status),
		       (int)status);

	finish(PROBE_OK, "ok version=%" PRIu64 " api=0x%" PRIx32, version, api);
}
