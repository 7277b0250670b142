/* SPDX-License-Identifier: Apache-2.0 */
/* urom-java host library: key files and the connecting side of the handshake. */
#include "auth.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

static const char LABEL[] = "urom/2";

void urom_hmac(const uint8_t *key, size_t key_len, const uint8_t *msg, size_t msg_len, uint8_t out[32])
{
	unsigned int len = 32;

	HMAC(EVP_sha256(), key, (int)key_len, msg, msg_len, out, &len);
}

static bool valid_key_name(const char *name)
{
	size_t n = strlen(name), i;

	if (n == 0 || n > UROM_KEY_NAME_MAX)
		return false;
	for (i = 0; i < n; i++) {
		char ch = name[i];
		bool alnum = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');

		if (!alnum && (i == 0 || (ch != '.' && ch != '_' && ch != '-')))
			return false;
	}
	return true;
}

static bool is_space(uint8_t b)
{
	return b == ' ' || b == '\n' || b == '\r' || b == '\t';
}

static doca_error_t read_key(const char *path, struct urom_key *key, char *err, size_t err_size)
{
	const char *base = strrchr(path, '/');
	uint8_t content[UROM_KEY_MAX + 64];
	size_t name_len, from = 0, to = 0;
	struct stat st;
	ssize_t n;
	int fd;

	base = base == NULL ? path : base + 1;
	name_len = strlen(base);
	if (name_len > 4 && strcmp(base + name_len - 4, ".key") == 0)
		name_len -= 4;
	if (name_len > UROM_KEY_NAME_MAX) {
		snprintf(err, err_size, "key file %s: its name gives a key name of over %d characters", path,
			 UROM_KEY_NAME_MAX);
		return DOCA_ERROR_BAD_CONFIG;
	}
	memcpy(key->name, base, name_len);
	key->name[name_len] = '\0';
	if (!valid_key_name(key->name)) {
		snprintf(err, err_size,
			 "key file %s: its name does not give a valid key name (1 to 64 letters, digits, '.', '_' or "
			 "'-', "
			 "starting with a letter or digit)",
			 path);
		return DOCA_ERROR_BAD_CONFIG;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		snprintf(err, err_size, "key file %s %s", path, errno == ENOENT ? "does not exist" : strerror(errno));
		return DOCA_ERROR_BAD_CONFIG;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, err_size, "key file %s is not a regular file", path);
		goto refuse;
	}
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		snprintf(err, err_size, "key file %s (mode %04o, owner uid %u) is not owned by root or uid %u", path,
			 (unsigned)(st.st_mode & 07777), (unsigned)st.st_uid, (unsigned)geteuid());
		goto refuse;
	}
	if ((st.st_mode & 0022) != 0) {
		snprintf(err, err_size, "key file %s (mode %04o) may be written by others than its owner: chmod 600 %s",
			 path, (unsigned)(st.st_mode & 07777), path);
		goto refuse;
	}
	if ((st.st_mode & 0007) != 0 || ((st.st_mode & 0040) != 0 && st.st_uid != 0)) {
		snprintf(err, err_size, "key file %s (mode %04o) may be read by others: chmod 600 %s", path,
			 (unsigned)(st.st_mode & 07777), path);
		goto refuse;
	}
	if (st.st_size > (off_t)sizeof(content)) {
		snprintf(err, err_size, "key file %s is %lld bytes; a key is %d to %d bytes", path,
			 (long long)st.st_size, UROM_KEY_MIN, UROM_KEY_MAX);
		goto refuse;
	}
	n = read(fd, content, sizeof(content));
	close(fd);
	if (n < 0) {
		snprintf(err, err_size, "key file %s cannot be read: %s", path, strerror(errno));
		return DOCA_ERROR_BAD_CONFIG;
	}
	to = (size_t)n;
	while (from < to && is_space(content[from]))
		from++;
	while (to > from && is_space(content[to - 1]))
		to--;
	if (to - from < UROM_KEY_MIN || to - from > UROM_KEY_MAX) {
		OPENSSL_cleanse(content, sizeof(content));
		snprintf(err, err_size,
			 "key file %s holds %zu bytes; a key is %d to %d bytes (urom keygen FILE writes one)", path,
			 to - from, UROM_KEY_MIN, UROM_KEY_MAX);
		return DOCA_ERROR_BAD_CONFIG;
	}
	memcpy(key->secret, content + from, to - from);
	key->secret_len = to - from;
	OPENSSL_cleanse(content, sizeof(content));
	return DOCA_SUCCESS;
refuse:
	close(fd);
	return DOCA_ERROR_BAD_CONFIG;
}

doca_error_t urom_key_from_env(struct urom_key **key, char *err, size_t err_size)
{
	const char *path = getenv(UROM_AUTH_KEY_ENV);
	struct urom_key *k;
	doca_error_t status;
	char why[UROM_CONN_ERR_MAX];

	*key = NULL;
	if (path == NULL || path[0] == '\0')
		return DOCA_SUCCESS;
	k = calloc(1, sizeof(*k));
	if (k == NULL)
		return DOCA_ERROR_NO_MEMORY;
	status = read_key(path, k, why, sizeof(why));
	if (status != DOCA_SUCCESS) {
		snprintf(err, err_size, "%s: %s", UROM_AUTH_KEY_ENV, why);
		urom_key_free(k);
		return status;
	}
	*key = k;
	return DOCA_SUCCESS;
}

void urom_key_free(struct urom_key *key)
{
	if (key == NULL)
		return;
	OPENSSL_cleanse(key, sizeof(*key));
	free(key);
}

/* The data channel's MAC key: HMAC(secret, label + "data-channel key key:<name>"). */
static void data_key(const struct urom_key *key, uint8_t out[32])
{
	char text[sizeof(LABEL) + 32 + UROM_KEY_NAME_MAX];
	int n = snprintf(text, sizeof(text), "%sdata-channel key key:%s", LABEL, key->name);

	urom_hmac(key->secret, key->secret_len, (const uint8_t *)text, (size_t)n, out);
}

static void proof(const uint8_t *mac_key, size_t mac_key_len, const char *side, int channel, const char *principal,
		  const uint8_t client_nonce[UROM_NONCE_BYTES], const uint8_t server_nonce[UROM_NONCE_BYTES],
		  uint8_t out[32])
{
	struct urom_writer w;

	urom_writer_init(&w, 1024);
	urom_w_raw(&w, LABEL, strlen(LABEL));
	urom_w_u8(&w, (uint8_t)strlen(side));
	urom_w_raw(&w, side, strlen(side));
	urom_w_u8(&w, (uint8_t)channel);
	urom_w_u16(&w, UROM_ROLE_HOST);
	urom_w_string(&w, principal);
	urom_w_bytes(&w, client_nonce, UROM_NONCE_BYTES);
	urom_w_bytes(&w, server_nonce, UROM_NONCE_BYTES);
	urom_hmac(mac_key, mac_key_len, w.data, w.len, out);
	urom_writer_free(&w);
}

static doca_error_t send_frame(struct urom_conn *c, int64_t deadline)
{
	doca_error_t status = urom_conn_send_frame(c);
	int64_t left;

	if (status != DOCA_SUCCESS)
		return status;
	left = deadline - urom_now_ms();
	return urom_conn_drain(c, left > 0 ? (int)left : 0);
}

static doca_error_t receive(struct urom_conn *c, int64_t deadline, struct urom_frame *f)
{
	int64_t left = deadline - urom_now_ms();
	doca_error_t status = urom_conn_wait(c, left > 0 ? (int)left : 0, f);

	if (status == DOCA_ERROR_TIME_OUT)
		snprintf(c->err, sizeof(c->err), "the handshake did not end within the time limit");
	return status;
}

static doca_error_t refused(struct urom_conn *c, const struct urom_frame *f)
{
	struct urom_reader r;
	uint32_t status;
	char message[200];

	urom_reader_init(&r, f->body, f->body_len);
	status = urom_r_u32(&r);
	urom_r_string(&r, message, sizeof(message));
	if (r.bad || status == 0 || status > DOCA_ERROR_DEVICE_FATAL_ERROR) {
		snprintf(c->err, sizeof(c->err), "it answered an unreadable ERROR");
		return DOCA_ERROR_UNEXPECTED;
	}
	snprintf(c->err, sizeof(c->err), "%s", message);
	return (doca_error_t)status;
}

doca_error_t urom_handshake(struct urom_conn *c, int channel, const struct urom_key *key, int timeout_ms,
			    struct urom_hello_ok *ok)
{
	int64_t deadline = urom_now_ms() + timeout_ms;
	uint8_t client_nonce[UROM_NONCE_BYTES], server_nonce[UROM_NONCE_BYTES], mac_key[32], expected[32];
	const uint8_t *mac_key_p = NULL;
	size_t mac_key_len = 0;
	bool challenged = false;
	struct urom_writer *w;
	struct urom_frame f;
	struct urom_reader r;
	const char *principal = key == NULL ? "" : key->name;
	doca_error_t status;
	size_t n;

	memset(ok, 0, sizeof(*ok));
	c->frame_limit = UROM_HANDSHAKE_FRAME_LIMIT;
	if (getrandom(client_nonce, sizeof(client_nonce), 0) != (ssize_t)sizeof(client_nonce)) {
		snprintf(c->err, sizeof(c->err), "no random bytes for the handshake's nonce");
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	if (key != NULL) {
		if (channel == UROM_CHANNEL_CONTROL) {
			mac_key_p = key->secret;
			mac_key_len = key->secret_len;
		} else {
			data_key(key, mac_key);
			mac_key_p = mac_key;
			mac_key_len = sizeof(mac_key);
		}
	}
	w = urom_conn_begin(c, UROM_MSG_HELLO, 0);
	urom_w_u32(w, UROM_WIRE_MAGIC);
	urom_w_u16(w, UROM_WIRE_VERSION);
	urom_w_u16(w, UROM_ROLE_HOST);
	urom_w_bytes(w, client_nonce, sizeof(client_nonce));
	urom_w_string(w, principal);
	status = send_frame(c, deadline);
	if (status != DOCA_SUCCESS)
		goto out;
	status = receive(c, deadline, &f);
	if (status != DOCA_SUCCESS)
		goto out;
	if (f.type == UROM_MSG_CHALLENGE) {
		const uint8_t *nonce;
		uint8_t mac[32];

		if (key == NULL) {
			snprintf(c->err, sizeof(c->err),
				 "it asks for a key and this host has none: name a key file with " UROM_AUTH_KEY_ENV);
			status = DOCA_ERROR_AUTHENTICATION;
			goto out;
		}
		urom_reader_init(&r, f.body, f.body_len);
		nonce = urom_r_bytes(&r, UROM_NONCE_BYTES, &n);
		if (!urom_r_done(&r) || n != UROM_NONCE_BYTES) {
			snprintf(c->err, sizeof(c->err), "its CHALLENGE holds no nonce of %d bytes", UROM_NONCE_BYTES);
			status = DOCA_ERROR_UNEXPECTED;
			goto out;
		}
		memcpy(server_nonce, nonce, sizeof(server_nonce));
		challenged = true;
		proof(mac_key_p, mac_key_len, "client", channel, principal, client_nonce, server_nonce, mac);
		w = urom_conn_begin(c, UROM_MSG_PROOF, 0);
		urom_w_bytes(w, mac, sizeof(mac));
		status = send_frame(c, deadline);
		if (status != DOCA_SUCCESS)
			goto out;
		status = receive(c, deadline, &f);
		if (status != DOCA_SUCCESS)
			goto out;
	}
	if (f.type == UROM_MSG_ERROR) {
		status = refused(c, &f);
		goto out;
	}
	if (f.type != UROM_MSG_HELLO_OK) {
		snprintf(c->err, sizeof(c->err), "it answered message type %u to HELLO", f.type);
		status = DOCA_ERROR_UNEXPECTED;
		goto out;
	}
	urom_reader_init(&r, f.body, f.body_len);
	ok->version = urom_r_u16(&r);
	urom_r_u16(&r);
	ok->max_msg_size = urom_r_u32(&r);
	ok->connection_id = urom_r_u64(&r);
	ok->max_inflight = urom_r_u32(&r);
	urom_r_u32(&r);
	urom_r_string(&r, ok->principal, sizeof(ok->principal));
	{
		const uint8_t *server_proof = urom_r_bytes(&r, 64, &n);

		if (!urom_r_done(&r)) {
			snprintf(c->err, sizeof(c->err), "its HELLO_OK is malformed");
			status = DOCA_ERROR_UNEXPECTED;
			goto out;
		}
		if (ok->version != UROM_WIRE_VERSION) {
			snprintf(c->err, sizeof(c->err), "it speaks protocol version %u; this host speaks %d",
				 ok->version, UROM_WIRE_VERSION);
			status = DOCA_ERROR_UNSUPPORTED_VERSION;
			goto out;
		}
		if (key != NULL) {
			if (!challenged) {
				snprintf(c->err, sizeof(c->err),
					 "it let this host in without asking for the key of '%s': it is not a service "
					 "that key is for",
					 key->name);
				status = DOCA_ERROR_AUTHENTICATION;
				goto out;
			}
			proof(mac_key_p, mac_key_len, "server", channel, principal, client_nonce, server_nonce,
			      expected);
			if (n != sizeof(expected) || CRYPTO_memcmp(expected, server_proof, sizeof(expected)) != 0) {
				snprintf(c->err, sizeof(c->err),
					 "its proof does not match the key of '%s': it does not hold that key",
					 key->name);
				status = DOCA_ERROR_AUTHENTICATION;
				goto out;
			}
		}
	}
	status = DOCA_SUCCESS;
out:
	OPENSSL_cleanse(mac_key, sizeof(mac_key));
	return status;
}
