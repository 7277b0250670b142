/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom-java: logging from native plugins into the worker's log.
 *
 * A plugin names its log source once per file with UROM_LOG_SOURCE(name) and
 * then logs with UROM_LOG_ERR/WARN/INFO/DBG/TRC(fmt, ...). Each message is
 * formatted in the plugin and handed to urom_log_write(), which the worker
 * process provides (the native bridge library, loaded before any plugin).
 * The reference is weak, so a plugin also loads in a process without the
 * bridge (a probe, a C test): there the message goes to stderr as
 * "[SOURCE] LEVEL message", the level by name. A C test built with the test
 * kit (urom_testkit.h) and linked with -rdynamic receives the messages itself.
 *
 * Levels use the service's numeric scale (10 = disabled ... 70 = trace).
 */
#ifndef UROM_LOG_H_
#define UROM_LOG_H_

#include <stdarg.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

enum urom_log_level {
	UROM_LOG_LEVEL_DISABLE = 10,
	UROM_LOG_LEVEL_CRIT = 20,
	UROM_LOG_LEVEL_ERROR = 30,
	UROM_LOG_LEVEL_WARNING = 40,
	UROM_LOG_LEVEL_INFO = 50,
	UROM_LOG_LEVEL_DEBUG = 60,
	UROM_LOG_LEVEL_TRACE = 70,
};

/* Provided by the worker; NULL when the process has no log bridge. */
extern void urom_log_write(int level, const char *source, const char *file, int line, const char *func,
			   const char *message) __attribute__((weak));

#define UROM_LOG_MESSAGE_MAX 1024

/* The name of a level (ERROR, WARNING, ...); "LEVEL" for a number that is none. */
__attribute__((unused)) static const char *urom_log_level_name(int level)
{
	switch (level) {
	case UROM_LOG_LEVEL_DISABLE:
		return "DISABLE";
	case UROM_LOG_LEVEL_CRIT:
		return "CRIT";
	case UROM_LOG_LEVEL_ERROR:
		return "ERROR";
	case UROM_LOG_LEVEL_WARNING:
		return "WARNING";
	case UROM_LOG_LEVEL_INFO:
		return "INFO";
	case UROM_LOG_LEVEL_DEBUG:
		return "DEBUG";
	case UROM_LOG_LEVEL_TRACE:
		return "TRACE";
	default:
		return "LEVEL";
	}
}

__attribute__((format(printf, 6, 7), unused)) static void
urom_log_emit(int level, const char *source, const char *file, int line, const char *func, const char *fmt, ...)
{
	char message[UROM_LOG_MESSAGE_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	if (urom_log_write != NULL)
		urom_log_write(level, source, file, line, func, message);
	else
		fprintf(stderr, "[%s] %s %s\n", source, urom_log_level_name(level), message);
}

#define UROM_LOG_SOURCE(name) static const char urom_log_source_name_[] __attribute__((unused)) = #name

#define UROM_LOG_AT(level, fmt, ...) \
	urom_log_emit((level), urom_log_source_name_, __FILE__, __LINE__, __func__, fmt, ##__VA_ARGS__)
#define UROM_LOG_CRIT(fmt, ...) UROM_LOG_AT(UROM_LOG_LEVEL_CRIT, fmt, ##__VA_ARGS__)
#define UROM_LOG_ERR(fmt, ...) UROM_LOG_AT(UROM_LOG_LEVEL_ERROR, fmt, ##__VA_ARGS__)
#define UROM_LOG_WARN(fmt, ...) UROM_LOG_AT(UROM_LOG_LEVEL_WARNING, fmt, ##__VA_ARGS__)
#define UROM_LOG_INFO(fmt, ...) UROM_LOG_AT(UROM_LOG_LEVEL_INFO, fmt, ##__VA_ARGS__)
#define UROM_LOG_DBG(fmt, ...) UROM_LOG_AT(UROM_LOG_LEVEL_DEBUG, fmt, ##__VA_ARGS__)
#define UROM_LOG_TRC(fmt, ...) UROM_LOG_AT(UROM_LOG_LEVEL_TRACE, fmt, ##__VA_ARGS__)

#ifdef __cplusplus
}
#endif

#endif /* UROM_LOG_H_ */
