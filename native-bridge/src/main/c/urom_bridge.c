/* SPDX-License-Identifier: Apache-2.0 */
/*
 * liburom_bridge.so: the worker's end of native plugin logging.
 *
 * The worker loads this library RTLD_GLOBAL before any plugin, so the weak
 * urom_log_write reference of every plugin loaded later resolves here. Each
 * message goes to the sink the Java side registers with
 * urom_bridge_set_log_sink(); until then (or after the sink is cleared with
 * NULL) it goes to stderr. Safe to call from any thread.
 *
 * Loading it also makes the C library's stdout line-buffered: a worker's
 * stdout is a pipe (the daemon's, or stderr's), which stdio would otherwise
 * buffer in blocks, so a plugin's printf() lines would be lost when the worker
 * dies by a signal. stderr is unbuffered already.
 */
#include <stdatomic.h>
#include <stdio.h>

#include <urom_log.h>

#define UROM_BRIDGE_EXPORT __attribute__((visibility("default")))

typedef void (*urom_log_sink_t)(int level, const char *source, const char *file, int line, const char *func,
				const char *message);

static _Atomic(urom_log_sink_t) log_sink;

__attribute__((constructor)) static void line_buffered_stdout(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
}

UROM_BRIDGE_EXPORT void urom_bridge_set_log_sink(urom_log_sink_t sink)
{
	atomic_store(&log_sink, sink);
}

UROM_BRIDGE_EXPORT void urom_log_write(int level, const char *source, const char *file, int line, const char *func,
				       const char *message)
{
	urom_log_sink_t sink = atomic_load(&log_sink);

	if (sink != NULL) {
		sink(level, source, file, line, func, message);
		return;
	}
	fprintf(stderr, "[%s] %s %s:%d %s\n", source != NULL ? source : "?", urom_log_level_name(level),
		file != NULL ? file : "?", line, message != NULL ? message : "");
}
