/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The C host library proving a key (UROM_AUTH_KEY_FILE) to a daemon started with --auth-keys: on the
 * control channel and, with the key derived from it, on a worker's data channel; and the refusals of
 * a wrong key, an unknown name and a key file others may read.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <doca_buf.h>
#include <doca_ctx.h>
#include <doca_urom.h>

#include "it_daemon.h"

static struct it_daemon daemon_;
static char keys[PATH_MAX];
static char mine[PATH_MAX];

/* Writes a key of 64 hex characters (the secret is the text) with the given mode. */
static void write_key(const char *path, mode_t mode, const char *secret_or_null)
{
	char text[65];
	uint8_t random_bytes[32];
	int fd;

	if (secret_or_null == NULL) {
		assert_int_equal(getrandom(random_bytes, sizeof(random_bytes), 0), sizeof(random_bytes));
		for (int i = 0; i < 32; i++)
			snprintf(text + 2 * i, 3, "%02x", random_bytes[i]);
	} else {
		snprintf(text, sizeof(text), "%s", secret_or_null);
	}
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, 64), 64);
	assert_int_equal(write(fd, "\n", 1), 1);
	close(fd);
	assert_int_equal(chmod(path, mode), 0);
}

static void copy_key(const char *from, const char *to, mode_t mode)
{
	char text[80] = {0};
	FILE *f = fopen(from, "r");

	assert_non_null(f);
	assert_non_null(fgets(text, sizeof(text), f));
	fclose(f);
	text[64] = '\0';
	write_key(to, mode, text);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int setup(void **unused)
{
	const char *tmp = getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp";
	const char *args[] = {"--auth-keys", keys, NULL};
	char path[PATH_MAX + 32];

	(void)unused;
	snprintf(keys, sizeof(keys), "%s/urom-c-keys-XXXXXX", tmp);
	snprintf(mine, sizeof(mine), "%s/urom-c-mine-XXXXXX", tmp);
	if (mkdtemp(keys) == NULL || mkdtemp(mine) == NULL)
		return -1;
	snprintf(path, sizeof(path), "%s/alice.key", keys);
	write_key(path, 0600, NULL);
	return it_daemon_start(&daemon_, args);
}

static int teardown(void **unused)
{
	(void)unused;
	it_daemon_stop(&daemon_);
	nftw(keys, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
	nftw(mine, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
	unsetenv("UROM_AUTH_KEY_FILE");
	return 0;
}

/* Starts a service with the key file path (NULL: none); returns the start's status. */
static doca_error_t start_with(const char *key_file, struct it_host *h)
{
	doca_error_t status;

	if (key_file == NULL)
		unsetenv("UROM_AUTH_KEY_FILE");
	else
		setenv("UROM_AUTH_KEY_FILE", key_file, 1);
	status = it_host_open(h);
	return status;
}

struct done {
	int done;
	doca_error_t status;
	uint64_t data;
};

static void loopback_done(struct doca_urom_worker_cmd_task *task, union doca_data task_user_data,
			  union doca_data ctx_user_data)
{
	struct done *d = task_user_data.ptr;
	struct doca_buf *response = doca_urom_worker_cmd_task_get_response(task);
	uint8_t *data;
	size_t len;

	(void)ctx_user_data;
	d->status = doca_task_get_status(doca_urom_worker_cmd_task_as_task(task));
	doca_buf_get_data(response, (void **)&data);
	doca_buf_get_data_len(response, &len);
	if (len == 16)
		memcpy(&d->data, data + 8, 8);
	d->done = 1;
	doca_urom_worker_cmd_task_release(task);
}

static bool finished(void *arg)
{
	return ((struct done *)arg)->done;
}

static void the_daemons_key_opens_the_service_and_its_workers(void **unused)
{
	char path[PATH_MAX + 32], theirs[PATH_MAX + 32];
	struct it_host h;
	struct doca_urom_worker *worker;
	struct doca_urom_worker_cmd_task *task;
	enum doca_ctx_states state;
	struct done d = {0};
	uint8_t cmd[16] = {0};
	uint64_t value = 0x1122334455667788ULL;
	void *head;

	(void)unused;
	snprintf(theirs, sizeof(theirs), "%s/alice.key", keys);
	snprintf(path, sizeof(path), "%s/alice.key", mine);
	copy_key(theirs, path, 0600);
	assert_int_equal(start_with(path, &h), DOCA_SUCCESS);
	assert_int_equal(it_worker_start(&h, DOCA_UROM_WORKER_ID_ANY, 0, it_plugin_id(h.service, "worker_graph", NULL),
					 0, NULL, 0, &worker, &state),
			 DOCA_SUCCESS);
	assert_int_equal(state, DOCA_CTX_STATE_RUNNING);
	assert_int_equal(
		doca_urom_worker_cmd_task_allocate_init(worker, it_plugin_id(h.service, "worker_graph", NULL), &task),
		DOCA_SUCCESS);
	memcpy(cmd + 8, &value, 8);
	doca_buf_get_data(doca_urom_worker_cmd_task_get_payload(task), &head);
	memcpy(head, cmd, sizeof(cmd));
	doca_buf_set_data(doca_urom_worker_cmd_task_get_payload(task), head, sizeof(cmd));
	doca_task_set_user_data(doca_urom_worker_cmd_task_as_task(task), (union doca_data){.ptr = &d});
	doca_urom_worker_cmd_task_set_cb(task, loopback_done);
	assert_int_equal(doca_task_submit(doca_urom_worker_cmd_task_as_task(task)), DOCA_SUCCESS);
	assert_true(it_progress_until(h.pe, finished, &d, 60000));
	assert_int_equal(d.status, DOCA_SUCCESS);
	assert_true(d.data == value);
	assert_int_equal(it_worker_stop(&h, worker), DOCA_SUCCESS);
	it_host_close(&h);
}

static void a_wrong_key_or_an_unknown_name_is_refused_authentication(void **unused)
{
	char path[PATH_MAX + 32];
	struct it_host h;

	(void)unused;
	snprintf(path, sizeof(path), "%s/alice.key", mine);
	write_key(path, 0600, NULL);
	assert_int_equal(start_with(path, &h), DOCA_ERROR_AUTHENTICATION);
	snprintf(path, sizeof(path), "%s/mallory.key", mine);
	write_key(path, 0600, NULL);
	assert_int_equal(start_with(path, &h), DOCA_ERROR_AUTHENTICATION);
}

static void a_key_file_others_may_read_is_refused_before_anything_is_sent(void **unused)
{
	char path[PATH_MAX + 32], theirs[PATH_MAX + 32];
	struct it_host h;

	(void)unused;
	snprintf(theirs, sizeof(theirs), "%s/alice.key", keys);
	snprintf(path, sizeof(path), "%s/alice.key", mine);
	copy_key(theirs, path, 0644);
	assert_int_equal(start_with(path, &h), DOCA_ERROR_BAD_CONFIG);
	snprintf(path, sizeof(path), "%s/missing.key", mine);
	assert_int_equal(start_with(path, &h), DOCA_ERROR_BAD_CONFIG);
}

static void without_a_key_a_unix_socket_host_is_its_unix_user(void **unused)
{
	struct it_host h;

	(void)unused;
	assert_int_equal(start_with(NULL, &h), DOCA_SUCCESS);
	it_host_close(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_daemons_key_opens_the_service_and_its_workers),
		cmocka_unit_test(a_wrong_key_or_an_unknown_name_is_refused_authentication),
		cmocka_unit_test(a_key_file_others_may_read_is_refused_before_anything_is_sent),
		cmocka_unit_test(without_a_key_a_unix_socket_host_is_its_unix_user),
	};

	return cmocka_run_group_tests_name("host-c auth", tests, setup, teardown);
}
