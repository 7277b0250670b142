/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom-java: status codes shared by the plugin ABI and the wire protocol.
 *
 * The numeric values are DOCA's doca_error_t values, so a status crosses the
 * C ABI, the Java SPI and the wire unchanged; urom_status_name gives the name
 * that the Java SPI uses for each.
 */
#ifndef UROM_STATUS_H_
#define UROM_STATUS_H_

typedef enum urom_status {
	UROM_SUCCESS = 0,
	UROM_ERR_UNKNOWN = 1,
	UROM_ERR_NOT_PERMITTED = 2,
	UROM_ERR_IN_USE = 3,
	UROM_ERR_NOT_SUPPORTED = 4,
	UROM_ERR_AGAIN = 5,
	UROM_ERR_INVALID_VALUE = 6,
	UROM_ERR_NO_MEMORY = 7,
	UROM_ERR_INITIALIZATION = 8,
	UROM_ERR_TIME_OUT = 9,
	UROM_ERR_SHUTDOWN = 10,
	UROM_ERR_CONNECTION_RESET = 11,
	UROM_ERR_CONNECTION_ABORTED = 12,
	UROM_ERR_CONNECTION_INPROGRESS = 13,
	UROM_ERR_NOT_CONNECTED = 14,
	UROM_ERR_NO_LOCK = 15,
	UROM_ERR_NOT_FOUND = 16,
	UROM_ERR_IO_FAILED = 17,
	UROM_ERR_BAD_STATE = 18,
	UROM_ERR_UNSUPPORTED_VERSION = 19,
	UROM_ERR_OPERATING_SYSTEM = 20,
	UROM_ERR_DRIVER = 21,
	UROM_ERR_UNEXPECTED = 22,
	UROM_ERR_ALREADY_EXIST = 23,
	UROM_ERR_FULL = 24,
	UROM_ERR_EMPTY = 25,
	UROM_ERR_IN_PROGRESS = 26,
	UROM_ERR_TOO_BIG = 27,
	UROM_ERR_AUTHENTICATION = 28,
	UROM_ERR_BAD_CONFIG = 29,
	UROM_ERR_SKIPPED = 30,
	UROM_ERR_DEVICE_FATAL_ERROR = 31,
} urom_status_t;

/*
 * The name of a status without its UROM_ or UROM_ERR_ prefix, as the Java
 * SPI's UromStatus spells it ("SUCCESS", "INVALID_VALUE", ...); NULL for a
 * value that is no status.
 */
static inline const char *urom_status_name(urom_status_t status)
{
	static const char *const names[] = {
		"SUCCESS",
		"UNKNOWN",
		"NOT_PERMITTED",
		"IN_USE",
		"NOT_SUPPORTED",
		"AGAIN",
		"INVALID_VALUE",
		"NO_MEMORY",
		"INITIALIZATION",
		"TIME_OUT",
		"SHUTDOWN",
		"CONNECTION_RESET",
		"CONNECTION_ABORTED",
		"CONNECTION_INPROGRESS",
		"NOT_CONNECTED",
		"NO_LOCK",
		"NOT_FOUND",
		"IO_FAILED",
		"BAD_STATE",
		"UNSUPPORTED_VERSION",
		"OPERATING_SYSTEM",
		"DRIVER",
		"UNEXPECTED",
		"ALREADY_EXIST",
		"FULL",
		"EMPTY",
		"IN_PROGRESS",
		"TOO_BIG",
		"AUTHENTICATION",
		"BAD_CONFIG",
		"SKIPPED",
		"DEVICE_FATAL_ERROR",
	};

	return (unsigned)status < sizeof(names) / sizeof(names[0]) ? names[status] : (const char *)0;
}

#endif /* UROM_STATUS_H_ */
