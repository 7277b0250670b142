/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom-java host library, internal: the host's identity and the handshake that opens every
 * connection (docs/wire-protocol.md "Handshake", docs/security.md).
 *
 * A host without a key is, on a Unix socket, the Unix user the kernel reports; with a key (the file
 * that UROM_AUTH_KEY_FILE names, checked as the Java host checks it) it proves the key by
 * HMAC-SHA256 (OpenSSL's libcrypto) over the transcript and checks the daemon's proof in return.
 */
#ifndef UROM_AUTH_H_
#define UROM_AUTH_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_error.h>

#include "conn.h"

#define UROM_KEY_NAME_MAX 64
#define UROM_KEY_MIN 32
#define UROM_KEY_MAX 4096
#define UROM_AUTH_KEY_ENV "UROM_AUTH_KEY_FILE"

struct urom_key {
	char name[UROM_KEY_NAME_MAX + 1];
	uint8_t secret[UROM_KEY_MAX];
	size_t secret_len;
};

struct urom_hello_ok {
	uint16_t version;
	uint32_t max_msg_size;
	uint64_t connection_id;
	uint32_t max_inflight;
	char principal[128];
};

/* The key UROM_AUTH_KEY_FILE names: SUCCESS with *key NULL when the variable is unset or empty;
 * BAD_CONFIG with a one-line err naming the file and the rule it breaks. *key is freed with
 * urom_key_free (which wipes it). */
doca_error_t urom_key_from_env(struct urom_key **key, char *err, size_t err_size);
void urom_key_free(struct urom_key *key);

/* Runs the connecting side of the handshake on a fresh connection, as a host, on channel
 * UROM_CHANNEL_CONTROL or UROM_CHANNEL_DATA, within timeout_ms. On failure, the status the
 * service answered (AUTHENTICATION, NOT_PERMITTED, FULL, UNSUPPORTED_VERSION...) or the
 * connection's, with c->err saying why in one line. */
doca_error_t urom_handshake(struct urom_conn *c, int channel, const struct urom_key *key, int timeout_ms,
			    struct urom_hello_ok *ok);

/* HMAC-SHA256; exposed for the tests. */
void urom_hmac(const uint8_t *key, size_t key_len, const uint8_t *msg, size_t msg_len, uint8_t out[32]);

#endif /* UROM_AUTH_H_ */
