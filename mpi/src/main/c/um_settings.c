/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom-java liburom_mpi: the UROM_MPI_* environment, read once at MPI_Init. A bad value leaves the
 * library off with one line naming the variable and why (um.h, struct um_settings).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "um.h"

#define DEFAULT_MIN_BYTES 16384u

static const char *const coll_names[UROM_COLL_TYPE_COUNT] = {"barrier",   "bcast",     "reduce",
							     "allreduce", "allgather", "alltoall"};

const char *um_coll_name(enum urom_coll_type coll)
{
	return (unsigned)coll < UROM_COLL_TYPE_COUNT ? coll_names[coll] : "unknown";
}

static int bad(struct um_settings *s, const char *name, const char *value, const char *why)
{
	snprintf(s->why_off, sizeof(s->why_off), "%s=%.64s: %s", name, value, why);
	s->enabled = 0;
	return -1;
}

/* "0" or "1"; unset: def. */
static int read_flag(struct um_settings *s, const char *name, int def, int *out)
{
	const char *v = getenv(name);

	*out = def;
	if (v == NULL)
		return 0;
	if (strcmp(v, "0") == 0 || strcmp(v, "1") == 0) {
		*out = v[0] == '1';
		return 0;
	}
	return bad(s, name, v, "not 0 or 1");
}

/* A byte count: digits, then optionally k, m or g (KiB, MiB, GiB). */
static int read_bytes(struct um_settings *s, const char *name, uint64_t def, uint64_t *out)
{
	const char *v = getenv(name);
	unsigned long long n;
	char *end;
	int shift = 0;

	*out = def;
	if (v == NULL)
		return 0;
	if (!isdigit((unsigned char)v[0]))
		return bad(s, name, v, "not a byte count (digits, optionally followed by k, m or g)");
	errno = 0;
	n = strtoull(v, &end, 10);
	if (*end == 'k' || *end == 'K')
		shift = 10;
	else if (*end == 'm' || *end == 'M')
		shift = 20;
	else if (*end == 'g' || *end == 'G')
		shift = 30;
	if (shift != 0)
		end++;
	if (*end != '\0')
		return bad(s, name, v, "not a byte count (digits, optionally followed by k, m or g)");
	if (errno == ERANGE || n > (UINT64_MAX >> 1) >> shift)
		return bad(s, name, v, "too large");
	*out = (uint64_t)n << shift;
	return 0;
}

static int read_colls(struct um_settings *s)
{
	const char *v = getenv("UROM_MPI_COLLS");
	char list[256], *tok, *save = NULL;

	s->colls = (1u << UROM_COLL_TYPE_COUNT) - 1;
	if (v == NULL || strcmp(v, "all") == 0)
		return 0;
	s->colls = 0;
	if (strcmp(v, "none") == 0)
		return 0;
	if (strlen(v) >= sizeof(list))
		return bad(s, "UROM_MPI_COLLS", v, "too long");
	strcpy(list, v);
	for (tok = strtok_r(list, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		int found = -1;

		for (int c = 0; c < UROM_COLL_TYPE_COUNT; c++)
			if (strcmp(tok, coll_names[c]) == 0)
				found = c;
		if (found < 0) {
			char why[160];

			snprintf(why, sizeof(why),
				 "no collective named '%.32s' (allreduce, reduce, allgather, alltoall, "
				 "bcast, barrier, or all, none)",
				 tok);
			return bad(s, "UROM_MPI_COLLS", v, why);
		}
		s->colls |= 1u << found;
	}
	if (s->colls == 0)
		return bad(s, "UROM_MPI_COLLS", v, "names no collective (write none to offload none)");
	return 0;
}

static int read_name(struct um_settings *s, const char *name, const char *def, char *out, size_t cap)
{
	const char *v = getenv(name);

	if (v == NULL)
		v = def;
	if (strlen(v) >= cap)
		return bad(s, name, v, "too long");
	for (const char *p = v; *p != '\0'; p++)
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-' && *p != '.')
			return bad(s, name, v, "not a name (letters, digits, '_', '-', '.')");
	strcpy(out, v);
	return 0;
}

int um_settings_read(struct um_settings *s)
{
	const char *connect = getenv("UROM_MPI_CONNECT");
	uint64_t def, timeout;
	int on;

	memset(s, 0, sizeof(*s));
	s->enabled = 1;
	if (read_flag(s, "UROM_MPI", 1, &on) != 0)
		return -1;
	if (!on) {
		snprintf(s->why_off, sizeof(s->why_off), "UROM_MPI=0");
		s->enabled = 0;
		return 0;
	}
	if (read_colls(s) != 0 || read_bytes(s, "UROM_MPI_MIN_BYTES", DEFAULT_MIN_BYTES, &def) != 0)
		return -1;
	for (int c = 0; c < UROM_COLL_TYPE_COUNT; c++) {
		char name[64];
		size_t n;

		if (c == UROM_COLL_BARRIER)
			continue;
		n = (size_t)snprintf(name, sizeof(name), "UROM_MPI_%s_MIN_BYTES", coll_names[c]);
		for (size_t i = 9; i < n; i++)
			name[i] = (char)toupper((unsigned char)name[i]);
		if (read_bytes(s, name, def, &s->min_bytes[c]) != 0)
			return -1;
	}
	if (read_flag(s, "UROM_MPI_BLOCKING", 0, &s->blocking) != 0 ||
	    read_flag(s, "UROM_MPI_STATS", 0, &s->stats) != 0 || read_flag(s, "UROM_MPI_VERBOSE", 0, &s->verbose) != 0)
		return -1;
	if (connect != NULL && strcmp(connect, "lazy") != 0 && strcmp(connect, "init") != 0)
		return bad(s, "UROM_MPI_CONNECT", connect, "not lazy or init");
	s->connect_at_init = connect != NULL && strcmp(connect, "init") == 0;
	if (read_bytes(s, "UROM_MPI_TIMEOUT_MS", 0, &timeout) != 0)
		return -1;
	if (timeout > UROM_COLL_TIMEOUT_MS_MAX)
		return bad(s, "UROM_MPI_TIMEOUT_MS", getenv("UROM_MPI_TIMEOUT_MS"), "above 3600000");
	s->timeout_ms = (uint32_t)timeout;
	if (read_name(s, "UROM_MPI_PLUGIN", "worker_coll", s->plugin, sizeof(s->plugin)) != 0 ||
	    read_name(s, "UROM_MPI_DEVICE", "", s->device, sizeof(s->device)) != 0)
		return -1;
	if (s->plugin[0] == '\0')
		return bad(s, "UROM_MPI_PLUGIN", "", "empty");
	return 0;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 1099511628211ull;
	}
	return h;
}

uint64_t um_settings_hash(const struct um_settings *s)
{
	uint64_t h = 14695981039346656037ull;

	h = fnv(h, &s->enabled, sizeof(s->enabled));
	h = fnv(h, &s->colls, sizeof(s->colls));
	h = fnv(h, s->min_bytes, sizeof(s->min_bytes));
	h = fnv(h, &s->blocking, sizeof(s->blocking));
	h = fnv(h, &s->connect_at_init, sizeof(s->connect_at_init));
	h = fnv(h, &s->timeout_ms, sizeof(s->timeout_ms));
	return h;
}
