/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libdoca_common: logging. Application messages (DOCA_LOG_* in a program, which urom_log.h formats and
 * hands to urom_log_write() below) and SDK messages (urom_sdk_log(), this library's own) each go to
 * the backends of their kind; doca_log.h states the level rules.
 *
 * Each message becomes exactly one line, at most LOG_LINE_MAX bytes:
 *   [HH:MM:SS:uuuuuu][pid][DOCA][LVL][file.c:line][function] message       (application)
 *   [HH:MM:SS:uuuuuu][pid][DOCA][LVL][SOURCE] message                      (SDK)
 * Control characters in the message become '?' (a trailing newline is dropped, a tab is a space), and a
 * message cut at UROM_LOG_MESSAGE_MAX ends with "...".
 *
 * Backends live in fixed tables for the life of the process (DOCA has no call to destroy one). One
 * lock guards the tables, the limits and the writing, so the lines of concurrent threads never mix; a
 * message logged from inside a backend's flush handler is dropped rather than deadlocking.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* urom_log.h declares urom_log_write() weak, for plugins loaded where no one defines it. This file is
 * its definition, which must be an ordinary (strong) one: the declaration is renamed out of the way. */
#define urom_log_write urom_log_write_plugin_declaration_
#include <doca_log.h>
#undef urom_log_write

#include "urom_core.h"

#define LOG_MAX_BACKENDS 16
#define LOG_MAX_SOURCES 256
#define LOG_SOURCE_NAME_MAX 128
/* Room for the prefix (bounded fields below) and the longest message. */
#define LOG_LINE_MAX (UROM_LOG_MESSAGE_MAX + 384)

enum log_sink { SINK_FILE, SINK_FD, SINK_BUF };

struct doca_log_backend {
	bool used;
	bool sdk;
	enum log_sink sink;
	FILE *file;
	int fd;
	char *buf;
	size_t capacity;
	log_flush_callback handler;
	/* Application: shown when upper <= level <= min(lower, lower_cap). */
	uint32_t lower;
	uint32_t upper;
	uint32_t lower_cap;
	bool lower_strict;
	bool upper_strict;
	/* SDK: shown when level <= sdk_level. */
	uint32_t sdk_level;
};

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static struct doca_log_backend app_backends[LOG_MAX_BACKENDS];
static struct doca_log_backend sdk_backends[LOG_MAX_BACKENDS];
static unsigned app_count, sdk_count;
static uint32_t global_lower = DOCA_LOG_LEVEL_INFO;
static uint32_t global_upper = DOCA_LOG_LEVEL_CRIT;
static uint32_t global_sdk = DOCA_LOG_LEVEL_INFO;
static char source_names[LOG_MAX_SOURCES][LOG_SOURCE_NAME_MAX];
static unsigned source_count;
static __thread bool in_log;

static bool level_valid(uint32_t level)
{
	return level >= DOCA_LOG_LEVEL_DISABLE && level <= DOCA_LOG_LEVEL_TRACE && level % 10 == 0;
}

static const char *level_tag(int level)
{
	if (level <= DOCA_LOG_LEVEL_CRIT)
		return "CRT";
	if (level <= DOCA_LOG_LEVEL_ERROR)
		return "ERR";
	if (level <= DOCA_LOG_LEVEL_WARNING)
		return "WRN";
	if (level <= DOCA_LOG_LEVEL_INFO)
		return "INF";
	if (level <= DOCA_LOG_LEVEL_DEBUG)
		return "DBG";
	return "TRC";
}

static bool app_shows(const struct doca_log_backend *b, int level)
{
	uint32_t lower = b->lower < b->lower_cap ? b->lower : b->lower_cap;

	return level >= (int)b->upper && level <= (int)lower;
}

static bool sdk_shows(const struct doca_log_backend *b, int level)
{
	return level >= DOCA_LOG_LEVEL_CRIT && level <= (int)b->sdk_level;
}

/* Appends src to out[*pos..cap), one line: control characters replaced, a final newline dropped. */
static void append_clean(char *out, size_t cap, size_t *pos, const char *src, size_t max)
{
	size_t n = src != NULL ? strnlen(src, max) : 0, i;

	while (n > 0 && (src[n - 1] == '\n' || src[n - 1] == '\r'))
		n--;
	for (i = 0; i < n && *pos + 1 < cap; i++) {
		unsigned char c = (unsigned char)src[i];

		if (c == '\t')
			c = ' ';
		else if (c < 0x20 || c == 0x7f)
			c = '?';
		out[(*pos)++] = (char)c;
	}
	out[*pos] = '\0';
}

static const char *base_name(const char *path)
{
	const char *slash;

	if (path == NULL)
		return "?";
	slash = strrchr(path, '/');
	return slash != NULL ? slash + 1 : path;
}

/* Builds the line. where is "[file:line][func]" or "[SOURCE]", already bounded. */
static size_t format_line(char *line, size_t cap, int level, const char *where, const char *message)
{
	struct timeval now;
	struct tm tm;
	size_t pos, len;
	int n;

	gettimeofday(&now, NULL);
	localtime_r(&now.tv_sec, &tm);
	n = snprintf(line, cap, "[%02d:%02d:%02d:%06ld][%ld][DOCA][%s]%s ", tm.tm_hour, tm.tm_min, tm.tm_sec,
		     (long)now.tv_usec, (long)getpid(), level_tag(level), where);
	pos = n < 0 ? 0 : ((size_t)n < cap ? (size_t)n : cap - 1);
	len = message != NULL ? strnlen(message, UROM_LOG_MESSAGE_MAX) : 0;
	append_clean(line, cap, &pos, message, UROM_LOG_MESSAGE_MAX);
	if (len >= UROM_LOG_MESSAGE_MAX - 1 && pos >= 3) {
		/* Cut by the formatting buffer: say so. */
		memcpy(line + pos - 3, "...", 3);
	}
	if (pos + 1 >= cap)
		pos = cap - 2;
	line[pos++] = '\n';
	line[pos] = '\0';
	return pos;
}

static void write_fd(int fd, const char *line, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, line, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		line += n;
		len -= (size_t)n;
	}
}

static void emit(const struct doca_log_backend *b, const char *line, size_t len)
{
	size_t n;

	switch (b->sink) {
	case SINK_FILE:
		fputs(line, b->file);
		fflush(b->file);
		break;
	case SINK_FD:
		write_fd(b->fd, line, len);
		break;
	case SINK_BUF:
		n = len < b->capacity - 1 ? len : b->capacity - 1;
		memcpy(b->buf, line, n);
		b->buf[n] = '\0';
		b->handler(b->buf);
		break;
	}
}

/* Writes one message to the backends of its kind (or to stderr, when there are none and it matters). */
static void dispatch(bool sdk, int level, const char *where, const char *message)
{
	struct doca_log_backend *table = sdk ? sdk_backends : app_backends;
	char line[LOG_LINE_MAX];
	size_t len = 0;
	unsigned i, count;
	bool built = false;

	if (in_log)
		return;
	pthread_mutex_lock(&log_lock);
	in_log = true;
	count = sdk ? sdk_count : app_count;
	if (count == 0) {
		if (level >= DOCA_LOG_LEVEL_CRIT && level <= DOCA_LOG_LEVEL_ERROR) {
			len = format_line(line, sizeof(line), level, where, message);
			fputs(line, stderr);
			fflush(stderr);
		}
	}
	for (i = 0; i < count; i++) {
		if (!(sdk ? sdk_shows(&table[i], level) : app_shows(&table[i], level)))
			continue;
		if (!built) {
			len = format_line(line, sizeof(line), level, where, message);
			built = true;
		}
		emit(&table[i], line, len);
	}
	in_log = false;
	pthread_mutex_unlock(&log_lock);
}

__attribute__((visibility("default"))) void urom_log_write(int level, const char *source, const char *file, int line,
							   const char *func, const char *message);

__attribute__((visibility("default"))) void urom_log_write(int level, const char *source, const char *file, int line,
							   const char *func, const char *message)
{
	char where[192];

	(void)source;
	snprintf(where, sizeof(where), "[%.64s:%d][%.96s]", base_name(file), line, func != NULL ? func : "?");
	dispatch(false, level, where, message);
}

UROM_INTERNAL void urom_sdk_log(int level, const char *source, const char *fmt, ...)
{
	char message[UROM_LOG_MESSAGE_MAX];
	char where[LOG_SOURCE_NAME_MAX + 8];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	snprintf(where, sizeof(where), "[%.*s]", LOG_SOURCE_NAME_MAX - 1, source != NULL ? source : "DOCA");
	dispatch(true, level, where, message);
}

/* ---- backends ---- */

static doca_error_t backend_add(bool sdk, enum log_sink sink, struct doca_log_backend **out,
				struct doca_log_backend **made)
{
	struct doca_log_backend *b;
	unsigned *count = sdk ? &sdk_count : &app_count;

	if (*count >= LOG_MAX_BACKENDS)
		return DOCA_ERROR_NO_MEMORY;
	b = &(sdk ? sdk_backends : app_backends)[*count];
	memset(b, 0, sizeof(*b));
	b->used = true;
	b->sdk = sdk;
	b->sink = sink;
	b->fd = -1;
	b->lower = global_lower;
	b->upper = global_upper;
	b->lower_cap = DOCA_LOG_LEVEL_TRACE;
	b->sdk_level = global_sdk;
	(*count)++;
	if (out != NULL)
		*out = b;
	*made = b;
	return DOCA_SUCCESS;
}

static doca_error_t create_with_file(bool sdk, FILE *fptr, struct doca_log_backend **backend)
{
	struct doca_log_backend *b;
	doca_error_t result;

	if (fptr == NULL || backend == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&log_lock);
	result = backend_add(sdk, SINK_FILE, backend, &b);
	if (result == DOCA_SUCCESS)
		b->file = fptr;
	pthread_mutex_unlock(&log_lock);
	return result;
}

static doca_error_t create_with_fd(bool sdk, int fd, struct doca_log_backend **backend)
{
	struct doca_log_backend *b;
	doca_error_t result;

	if (fd < 0 || backend == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&log_lock);
	result = backend_add(sdk, SINK_FD, backend, &b);
	if (result == DOCA_SUCCESS)
		b->fd = fd;
	pthread_mutex_unlock(&log_lock);
	return result;
}

static doca_error_t create_with_buf(bool sdk, char *buf, size_t capacity, log_flush_callback handler,
				    struct doca_log_backend **backend)
{
	struct doca_log_backend *b;
	doca_error_t result;

	if (buf == NULL || capacity == 0 || handler == NULL || backend == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&log_lock);
	result = backend_add(sdk, SINK_BUF, backend, &b);
	if (result == DOCA_SUCCESS) {
		b->buf = buf;
		b->capacity = capacity;
		b->handler = handler;
	}
	pthread_mutex_unlock(&log_lock);
	return result;
}

/* A pointer to a backend that exists, in one of the tables. */
static bool backend_known(const struct doca_log_backend *b)
{
	const struct doca_log_backend *const tables[] = {app_backends, sdk_backends};
	unsigned t;

	for (t = 0; t < 2; t++) {
		uintptr_t lo = (uintptr_t)&tables[t][0], hi = (uintptr_t)&tables[t][LOG_MAX_BACKENDS];
		uintptr_t p = (uintptr_t)b;

		if (p >= lo && p < hi && (p - lo) % sizeof(*b) == 0)
			return b->used;
	}
	return false;
}

DOCA_EXPERIMENTAL uint32_t doca_log_get_max_num_backends(void)
{
	return LOG_MAX_BACKENDS;
}

DOCA_EXPERIMENTAL uint32_t doca_log_get_max_num_backends_sdk(void)
{
	return LOG_MAX_BACKENDS;
}

DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_file(FILE *fptr, struct doca_log_backend **backend)
{
	return create_with_file(false, fptr, backend);
}

DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_fd(int fd, struct doca_log_backend **backend)
{
	return create_with_fd(false, fd, backend);
}

DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_buf(char *buf, size_t capacity, log_flush_callback handler,
								struct doca_log_backend **backend)
{
	return create_with_buf(false, buf, capacity, handler, backend);
}

DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_syslog(const char *name, struct doca_log_backend **backend)
{
	if (name == NULL || backend == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	return DOCA_ERROR_NOT_SUPPORTED;
}

DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_standard(void)
{
	struct doca_log_backend *out, *err;
	doca_error_t result;

	pthread_mutex_lock(&log_lock);
	if (app_count + 2 > LOG_MAX_BACKENDS) {
		pthread_mutex_unlock(&log_lock);
		return DOCA_ERROR_NO_MEMORY;
	}
	/* stdout: INFO and less severe, as far as the global lower limit goes. */
	result = backend_add(false, SINK_FILE, NULL, &out);
	if (result == DOCA_SUCCESS) {
		out->file = stdout;
		out->upper = DOCA_LOG_LEVEL_INFO;
		out->upper_strict = true;
		/* stderr: WARNING and more severe, as far as the global upper limit goes. */
		result = backend_add(false, SINK_FILE, NULL, &err);
	}
	if (result == DOCA_SUCCESS) {
		err->file = stderr;
		err->lower_cap = DOCA_LOG_LEVEL_WARNING;
	}
	pthread_mutex_unlock(&log_lock);
	return result;
}

DOCA_EXPERIMENTAL doca_error_t doca_log_backend_set_level_lower_limit(struct doca_log_backend *backend, uint32_t level)
{
	doca_error_t result = DOCA_SUCCESS;

	if (!level_valid(level))
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&log_lock);
	if (!backend_known(backend))
		result = DOCA_ERROR_INVALID_VALUE;
	else if (backend->sdk || backend->lower_strict)
		result = DOCA_ERROR_NOT_PERMITTED;
	else
		backend->lower = level;
	pthread_mutex_unlock(&log_lock);
	return result;
}

DOCA_EXPERIMENTAL doca_error_t doca_log_backend_set_level_upper_limit(struct doca_log_backend *backend,
								      uint32_t upper_limit)
{
	doca_error_t result = DOCA_SUCCESS;

	if (!level_valid(upper_limit))
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&log_lock);
	if (!backend_known(backend))
		result = DOCA_ERROR_INVALID_VALUE;
	else if (backend->sdk || backend->upper_strict)
		result = DOCA_ERROR_NOT_PERMITTED;
	else
		backend->upper = upper_limit;
	pthread_mutex_unlock(&log_lock);
	return result;
}

DOCA_EXPERIMENTAL doca_error_t doca_log_backend_set_level_lower_limit_strict(struct doca_log_backend *backend)
{
	doca_error_t result = DOCA_SUCCESS;

	pthread_mutex_lock(&log_lock);
	if (!backend_known(backend))
		result = DOCA_ERROR_INVALID_VALUE;
	else
		backend->lower_strict = true;
	pthread_mutex_unlock(&log_lock);
	return result;
}

DOCA_EXPERIMENTAL doca_error_t doca_log_backend_set_level_upper_limit_strict(struct doca_log_backend *backend)
{
	doca_error_t result = DOCA_SUCCESS;

	pthread_mutex_lock(&log_lock);
	if (!backend_known(backend))
		result = DOCA_ERROR_INVALID_VALUE;
	else
		backend->upper_strict = true;
	pthread_mutex_unlock(&log_lock);
	return result;
}

DOCA_EXPERIMENTAL doca_error_t doca_log_level_set_global_lower_limit(uint32_t level)
{
	unsigned i;

	if (!level_valid(level))
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&log_lock);
	global_lower = level;
	for (i = 0; i < app_count; i++)
		if (!app_backends[i].lower_strict)
			app_backends[i].lower = level;
	pthread_mutex_unlock(&log_lock);
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t doca_log_level_set_global_upper_limit(uint32_t upper_limit)
{
	unsigned i;

	if (!level_valid(upper_limit))
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&log_lock);
	global_upper = upper_limit;
	for (i = 0; i < app_count; i++)
		if (!app_backends[i].upper_strict)
			app_backends[i].upper = upper_limit;
	pthread_mutex_unlock(&log_lock);
	return DOCA_SUCCESS;
}

/* A global level, read under the lock its setters hold. */
static uint32_t locked_level(const uint32_t *level)
{
	uint32_t value;

	pthread_mutex_lock(&log_lock);
	value = *level;
	pthread_mutex_unlock(&log_lock);
	return value;
}

DOCA_EXPERIMENTAL uint32_t doca_log_level_get_global_lower_limit(void)
{
	return locked_level(&global_lower);
}

DOCA_EXPERIMENTAL uint32_t doca_log_level_get_global_upper_limit(void)
{
	return locked_level(&global_upper);
}

DOCA_EXPERIMENTAL doca_error_t doca_log_backend_set_sdk_level(struct doca_log_backend *backend, uint32_t level)
{
	doca_error_t result = DOCA_SUCCESS;

	if (!level_valid(level))
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&log_lock);
	if (!backend_known(backend))
		result = DOCA_ERROR_INVALID_VALUE;
	else if (!backend->sdk)
		result = DOCA_ERROR_NOT_PERMITTED;
	else
		backend->sdk_level = level;
	pthread_mutex_unlock(&log_lock);
	return result;
}

DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_file_sdk(FILE *fptr, struct doca_log_backend **backend)
{
	return create_with_file(true, fptr, backend);
}

DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_fd_sdk(int fd, struct doca_log_backend **backend)
{
	return create_with_fd(true, fd, backend);
}

DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_buf_sdk(char *buf, size_t capacity,
								    log_flush_callback handler,
								    struct doca_log_backend **backend)
{
	return create_with_buf(true, buf, capacity, handler, backend);
}

DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_syslog_sdk(const char *name,
								       struct doca_log_backend **backend)
{
	if (name == NULL || backend == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	return DOCA_ERROR_NOT_SUPPORTED;
}

DOCA_EXPERIMENTAL doca_error_t doca_log_level_set_global_sdk_limit(uint32_t level)
{
	unsigned i;

	if (!level_valid(level))
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&log_lock);
	global_sdk = level;
	for (i = 0; i < sdk_count; i++)
		sdk_backends[i].sdk_level = level;
	pthread_mutex_unlock(&log_lock);
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL uint32_t doca_log_level_get_global_sdk_limit(void)
{
	return locked_level(&global_sdk);
}

/* ---- DOCA's direct entry points ---- */

DOCA_EXPERIMENTAL doca_error_t doca_log_register_source(const char *source_name, int *source)
{
	doca_error_t result = DOCA_SUCCESS;

	if (source_name == NULL || source == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&log_lock);
	if (source_count >= LOG_MAX_SOURCES) {
		result = DOCA_ERROR_NO_MEMORY;
	} else {
		snprintf(source_names[source_count], LOG_SOURCE_NAME_MAX, "%s", source_name);
		*source = (int)source_count++;
	}
	pthread_mutex_unlock(&log_lock);
	return result;
}

DOCA_EXPERIMENTAL doca_error_t doca_log_unregister_source(int source)
{
	(void)source;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t doca_log(uint32_t level, int source, const char *fname, int line, const char *func,
					const char *format, ...)
{
	char message[UROM_LOG_MESSAGE_MAX];
	char name[LOG_SOURCE_NAME_MAX];
	va_list ap;
	bool known;

	pthread_mutex_lock(&log_lock);
	known = source >= 0 && (unsigned)source < source_count;
	if (known)
		memcpy(name, source_names[source], sizeof(name));
	pthread_mutex_unlock(&log_lock);
	if (!known || level < DOCA_LOG_LEVEL_CRIT || level > DOCA_LOG_LEVEL_TRACE || format == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	va_start(ap, format);
	vsnprintf(message, sizeof(message), format, ap);
	va_end(ap);
	urom_log_write((int)level, name, fname, line, func, message);
	return DOCA_SUCCESS;
}
