/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom-java DOCA compatibility: DOCA_LOG_REGISTER and DOCA_LOG_* write into
 * the worker's log through urom_log.h, keeping the level and the source name.
 *
 * The same header serves host programs built against urom-java's C host
 * library (libdoca_common): there urom_log_write() is the library's, which
 * hands each message to the logging backends declared below (a plugin never
 * calls them; in a worker they do not exist). Levels are numbers,
 * DOCA_LOG_LEVEL_DISABLE (10) ... DOCA_LOG_LEVEL_TRACE (70): a backend for
 * application messages shows those between its upper limit (most severe,
 * default CRIT) and its lower limit (least severe, default the global lower
 * limit, itself INFO by default); a backend for SDK messages (the library's
 * own) shows those at its SDK level or more severe. Until a program creates a
 * backend of a kind, messages of that kind at ERROR or more severe go to
 * stderr.
 */
#ifndef DOCA_LOG_H_
#define DOCA_LOG_H_

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <urom_log.h>

#define DOCA_LOG_LEVEL_DISABLE UROM_LOG_LEVEL_DISABLE
#define DOCA_LOG_LEVEL_CRIT UROM_LOG_LEVEL_CRIT
#define DOCA_LOG_LEVEL_ERROR UROM_LOG_LEVEL_ERROR
#define DOCA_LOG_LEVEL_WARNING UROM_LOG_LEVEL_WARNING
#define DOCA_LOG_LEVEL_INFO UROM_LOG_LEVEL_INFO
#define DOCA_LOG_LEVEL_DEBUG UROM_LOG_LEVEL_DEBUG
#define DOCA_LOG_LEVEL_TRACE UROM_LOG_LEVEL_TRACE

#define DOCA_LOG_REGISTER(SOURCE) UROM_LOG_SOURCE(SOURCE)

#define DOCA_LOG_CRIT(format, ...) UROM_LOG_CRIT(format, ##__VA_ARGS__)
#define DOCA_LOG_ERR(format, ...) UROM_LOG_ERR(format, ##__VA_ARGS__)
#define DOCA_LOG_WARN(format, ...) UROM_LOG_WARN(format, ##__VA_ARGS__)
#define DOCA_LOG_INFO(format, ...) UROM_LOG_INFO(format, ##__VA_ARGS__)
#define DOCA_LOG_DBG(format, ...) UROM_LOG_DBG(format, ##__VA_ARGS__)
#define DOCA_LOG_TRC(format, ...) UROM_LOG_TRC(format, ##__VA_ARGS__)
/* DOCA's generic form, with a level. */
#define DOCA_LOG(level, format, ...) UROM_LOG_AT((level), format, ##__VA_ARGS__)

/* DOCA's enum name for the levels above. */
#define doca_log_level urom_log_level

#ifdef __cplusplus
extern "C" {
#endif

/* Host library only (libdoca_common): the logging backends. */
struct doca_log_backend;

/* Called with the formatted record of a buffer backend (the buffer given at creation). */
typedef void (*log_flush_callback)(char *buf);

/* How many backends of each kind a process may create (NO_MEMORY past it). */
DOCA_EXPERIMENTAL uint32_t doca_log_get_max_num_backends(void);
DOCA_EXPERIMENTAL uint32_t doca_log_get_max_num_backends_sdk(void);

/* Application messages. The limits are levels (INVALID_VALUE otherwise); NOT_PERMITTED for an SDK
 * backend and for a limit made strict. */
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_set_level_lower_limit(struct doca_log_backend *backend, uint32_t level);
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_set_level_upper_limit(struct doca_log_backend *backend,
								      uint32_t upper_limit);
/* A strict limit no longer follows the global limits nor direct changes. */
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_set_level_lower_limit_strict(struct doca_log_backend *backend);
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_set_level_upper_limit_strict(struct doca_log_backend *backend);
/* Set every application backend's limit (strict ones excepted) and the default of new ones. */
DOCA_EXPERIMENTAL doca_error_t doca_log_level_set_global_lower_limit(uint32_t level);
DOCA_EXPERIMENTAL doca_error_t doca_log_level_set_global_upper_limit(uint32_t upper_limit);
DOCA_EXPERIMENTAL uint32_t doca_log_level_get_global_lower_limit(void);
DOCA_EXPERIMENTAL uint32_t doca_log_level_get_global_upper_limit(void);
/* A FILE * or a file descriptor the program keeps open; a buffer of capacity bytes that receives each
 * record (NUL-terminated, truncated to fit) before handler is called. */
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_file(FILE *fptr, struct doca_log_backend **backend);
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_fd(int fd, struct doca_log_backend **backend);
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_buf(char *buf, size_t capacity, log_flush_callback handler,
								struct doca_log_backend **backend);
/* NOT_SUPPORTED by this library. */
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_syslog(const char *name, struct doca_log_backend **backend);
/* Two application backends: stdout for INFO and less severe (down to the global lower limit), stderr
 * for WARNING and more severe (up to the global upper limit). */
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_standard(void);

/* SDK messages. */
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_set_sdk_level(struct doca_log_backend *backend, uint32_t level);
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_file_sdk(FILE *fptr, struct doca_log_backend **backend);
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_fd_sdk(int fd, struct doca_log_backend **backend);
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_buf_sdk(char *buf, size_t capacity,
								    log_flush_callback handler,
								    struct doca_log_backend **backend);
/* NOT_SUPPORTED by this library. */
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_syslog_sdk(const char *name,
								       struct doca_log_backend **backend);
/* Set every SDK backend's level and the default of new ones (INFO until set). */
DOCA_EXPERIMENTAL doca_error_t doca_log_level_set_global_sdk_limit(uint32_t level);
DOCA_EXPERIMENTAL uint32_t doca_log_level_get_global_sdk_limit(void);

/* DOCA's source registration and printf-style entry, for programs that call them directly (the
 * macros above do not need them). */
DOCA_EXPERIMENTAL doca_error_t doca_log_register_source(const char *source_name, int *source);
DOCA_EXPERIMENTAL doca_error_t doca_log_unregister_source(int source);
DOCA_EXPERIMENTAL doca_error_t doca_log(uint32_t level, int source, const char *fname, int line, const char *func,
					const char *format, ...) __attribute__((format(printf, 6, 7)));

#ifdef __cplusplus
}
#endif

#endif /* DOCA_LOG_H_ */
