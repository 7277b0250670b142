/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libcallgrind_window.so: the window DispatchDriver counts, marked for valgrind's callgrind by its
 * client requests. Outside valgrind each request is a few no-op instructions.
 *
 * urom_callgrind_window_open   starts instrumentation (for a run with --instr-atstart=no) and zeroes
 *                              every thread's counters, so the window starts from nothing
 * urom_callgrind_window_close  dumps every thread's counters since the open (with --separate-threads=yes,
 *                              one file per thread) and stops instrumentation; this function's name in a
 *                              thread's file says that thread is the one that opened and closed the window
 */
#include <valgrind/callgrind.h>

void urom_callgrind_window_open(void)
{
	CALLGRIND_START_INSTRUMENTATION;
	CALLGRIND_ZERO_STATS;
}

void urom_callgrind_window_close(void)
{
	CALLGRIND_DUMP_STATS_AT("urom_callgrind_window");
	CALLGRIND_STOP_INSTRUMENTATION;
}
