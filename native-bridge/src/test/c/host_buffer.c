/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Test program: a host's buffer for cross-memory reads. Fills 64 bytes with
 * byte i = i * 7 + 3, prints their address in decimal on one line, and waits
 * until its stdin ends.
 */
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

static volatile unsigned char buffer[64];

int main(void)
{
	char c;

	for (unsigned i = 0; i < sizeof(buffer); i++)
		buffer[i] = (unsigned char)(i * 7 + 3);
	printf("%llu\n", (unsigned long long)(uintptr_t)buffer);
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	return 0;
}
