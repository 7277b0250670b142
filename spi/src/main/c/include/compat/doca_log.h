/*
 * urom-java DOCA compatibility: DOCA_LOG_REGISTER and DOCA_LOG_* write into
 * the worker's log through urom_log.h, keeping the level and the source name.
 */
#ifndef DOCA_LOG_H_
#define DOCA_LOG_H_

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

#endif /* DOCA_LOG_H_ */
