/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom-java host library: the UROM domain context.
 *
 * Its start runs, inside doca_pe_progress(), what the Java host's Domain does (docs/wire-protocol.md,
 * "Data"): ADDRESS for each plugin of each local worker, this process's block of peers in the
 * DOMAIN_SET layout, the program's allgather twice (every block's length as 8 bytes, then the blocks
 * padded to the longest), and DOMAIN_SET to each local worker with the whole table, so C and Java
 * processes can share one domain.
 */
#include <stdlib.h>
#include <string.h>

#include <doca_log.h>
#include <urom_plugin_util.h>

#include "urom_internal.h"

/* A rank's block may not be larger than this: the table must fit one data frame anyway. */
#define MAX_BLOCK (64u << 20)
#define MAX_HANDLE 65536

enum domain_phase {
	DOMAIN_IDLE,
	DOMAIN_ADDRESSES,
	DOMAIN_LENGTHS,
	DOMAIN_BLOCKS,
	DOMAIN_SET,
};

struct domain_buffer {
	uint64_t va;
	uint64_t len;
	uint8_t *memh;
	size_t memh_len;
	uint8_t *mkey;
	size_t mkey_len;
};

struct doca_urom_domain {
	struct doca_ctx ctx;
	struct doca_urom_domain_oob_coll oob;
	bool has_oob;
	uint64_t *ids;
	struct doca_urom_worker **workers;
	size_t n_workers;
	struct domain_buffer *buffers;
	size_t buffers_max;
	size_t n_buffers;
	bool buffers_counted;
	/* While starting. */
	enum domain_phase phase;
	size_t worker_at;
	uint64_t plugins_left;
	struct urom_request addr_req;
	bool addr_pending;
	struct urom_writer block;
	uint8_t *sbuf;
	uint8_t *rbuf;
	size_t longest;
	uint64_t *lengths;
	void *oob_req;
	bool oob_pending;
	struct urom_request *set_reqs;
	uint8_t *table;
	size_t table_len;
};

/* ---- start ---- */

static void forget_requests(struct doca_urom_domain *d)
{
	if (d->addr_pending && d->worker_at < d->n_workers)
		urom_request_unlink(&d->workers[d->worker_at]->requests, &d->addr_req);
	d->addr_pending = false;
	urom_request_reset(&d->addr_req);
	for (size_t i = 0; d->set_reqs != NULL && i < d->n_workers; i++) {
		urom_request_unlink(&d->workers[i]->requests, &d->set_reqs[i]);
		urom_request_reset(&d->set_reqs[i]);
	}
	free(d->set_reqs);
	d->set_reqs = NULL;
	if (d->oob_pending && d->oob.req_free != NULL)
		d->oob.req_free(d->oob_req);
	d->oob_pending = false;
	d->oob_req = NULL;
}

static void clear_start(struct doca_urom_domain *d)
{
	forget_requests(d);
	urom_writer_free(&d->block);
	free(d->sbuf);
	free(d->rbuf);
	free(d->lengths);
	free(d->table);
	d->sbuf = d->rbuf = d->table = NULL;
	d->lengths = NULL;
	d->table_len = d->longest = 0;
	d->phase = DOMAIN_IDLE;
}

static void fail_start(struct doca_urom_domain *d, doca_error_t status, const char *why)
{
	UROM_LOG(DOCA_LOG_LEVEL_ERROR, "domain: %s (%s)", why, doca_error_get_name(status));
	clear_start(d);
	urom_ctx_transition(&d->ctx, DOCA_CTX_STATE_IDLE);
}

static void write_segments(struct doca_urom_domain *d)
{
	urom_w_u32(&d->block, (uint32_t)d->n_buffers);
	for (size_t i = 0; i < d->n_buffers; i++) {
		urom_w_u64(&d->block, d->buffers[i].va);
		urom_w_u64(&d->block, d->buffers[i].len);
		urom_w_bytes(&d->block, d->buffers[i].memh, d->buffers[i].memh_len);
		urom_w_bytes(&d->block, d->buffers[i].mkey, d->buffers[i].mkey_len);
	}
}

/* Starts the peer of worker_at: its domain id and how many addresses follow. */
static void begin_peer(struct doca_urom_domain *d)
{
	struct doca_urom_worker *w = d->workers[d->worker_at];

	d->plugins_left = w->plugins;
	urom_w_u64(&d->block, d->ids[d->worker_at]);
	urom_w_u32(&d->block, (uint32_t)__builtin_popcountll(w->plugins));
}

static doca_error_t ask_next_address(struct doca_urom_domain *d)
{
	struct doca_urom_worker *w = d->workers[d->worker_at];
	uint64_t plugin = d->plugins_left & (~d->plugins_left + 1);
	uint8_t body[8];

	urom_store_le64(body, plugin);
	d->plugins_left &= ~plugin;
	urom_w_u64(&d->block, plugin);
	d->addr_pending = true;
	return urom_worker_request(w, UROM_MSG_ADDRESS, body, sizeof(body), &d->addr_req);
}

/* The ADDRESS_REPLY, appended to the block as the peer's address entry. */
static doca_error_t take_address(struct doca_urom_domain *d, char *why, size_t why_size)
{
	struct doca_urom_worker *w = d->workers[d->worker_at];
	doca_error_t status = urom_request_outcome(&d->addr_req, UROM_MSG_ADDRESS_REPLY, why, why_size);
	const uint8_t *address, *transport, *seal;
	size_t address_len, seal_len;
	struct urom_reader r;
	uint32_t reply_status;
	uint16_t transport_len;

	d->addr_pending = false;
	if (status != DOCA_SUCCESS)
		return status;
	urom_reader_init(&r, d->addr_req.body, d->addr_req.body_len);
	reply_status = urom_r_u32(&r);
	urom_r_u32(&r);
	address = urom_r_bytes(&r, MAX_BLOCK, &address_len);
	transport_len = urom_r_u16(&r);
	transport = urom_r_raw(&r, transport_len);
	seal = urom_r_bytes(&r, 256, &seal_len);
	if (!urom_r_done(&r)) {
		snprintf(why, why_size, "worker %lu sent a malformed ADDRESS_REPLY", (unsigned long)w->id);
		return DOCA_ERROR_UNEXPECTED;
	}
	if (reply_status != DOCA_SUCCESS) {
		snprintf(why, why_size, "worker %lu gave no address for one of its plugins", (unsigned long)w->id);
		return reply_status <= DOCA_ERROR_DEVICE_FATAL_ERROR ? (doca_error_t)reply_status : DOCA_ERROR_UNKNOWN;
	}
	urom_w_bytes(&d->block, address, address_len);
	urom_w_u16(&d->block, transport_len);
	urom_w_raw(&d->block, transport, transport_len);
	urom_w_bytes(&d->block, seal, seal_len);
	urom_request_reset(&d->addr_req);
	return DOCA_SUCCESS;
}

static doca_error_t start_allgather(struct doca_urom_domain *d, void *sbuf, void *rbuf, size_t len)
{
	doca_error_t status;

	d->oob_req = NULL;
	status = d->oob.allgather(sbuf, rbuf, len, d->oob.coll_info, &d->oob_req);
	d->oob_pending = status == DOCA_SUCCESS;
	return status;
}

/* SUCCESS when the allgather in flight has completed (and is freed), IN_PROGRESS while not. */
static doca_error_t test_allgather(struct doca_urom_domain *d)
{
	doca_error_t status = d->oob.req_test(d->oob_req);

	if (status == DOCA_ERROR_IN_PROGRESS)
		return status;
	if (d->oob.req_free != NULL)
		d->oob.req_free(d->oob_req);
	d->oob_pending = false;
	d->oob_req = NULL;
	return status;
}

/* Checks one rank's block and counts its peers and their ids into ids (appended at *n_ids). */
static bool walk_block(const uint8_t *block, size_t len, uint64_t *ids, size_t max_ids, size_t *n_ids, uint32_t *peers)
{
	struct urom_reader r;
	size_t n;

	urom_reader_init(&r, block, len);
	*peers = urom_r_count(&r, 16);
	for (uint32_t p = 0; p < *peers && !r.bad; p++) {
		uint64_t id = urom_r_u64(&r);
		uint32_t addresses = urom_r_count(&r, 18);
		uint32_t segments;

		for (size_t i = 0; i < *n_ids; i++) {
			if (ids[i] == id)
				return false;
		}
		if (*n_ids >= max_ids)
			return false;
		ids[(*n_ids)++] = id;
		for (uint32_t a = 0; a < addresses && !r.bad; a++) {
			urom_r_u64(&r);
			urom_r_bytes(&r, MAX_BLOCK, &n);
			urom_r_raw(&r, urom_r_u16(&r));
			urom_r_bytes(&r, MAX_BLOCK, &n);
		}
		segments = urom_r_count(&r, 24);
		for (uint32_t s = 0; s < segments && !r.bad; s++) {
			urom_r_u64(&r);
			urom_r_u64(&r);
			urom_r_bytes(&r, MAX_BLOCK, &n);
			urom_r_bytes(&r, MAX_BLOCK, &n);
		}
	}
	return urom_r_done(&r);
}

/* Every rank's peers, one table: u64 own id (patched per worker), u32 count, the peers. */
static doca_error_t build_table(struct doca_urom_domain *d, char *why, size_t why_size)
{
	uint32_t size = d->oob.n_oob_indexes, total = 0, peers;
	size_t max_ids = 0, n_ids = 0, at = 12;
	uint64_t *ids;

	for (uint32_t r = 0; r < size; r++)
		max_ids += d->lengths[r] / 16;
	ids = calloc(max_ids == 0 ? 1 : max_ids, sizeof(*ids));
	d->table_len = 12;
	for (uint32_t r = 0; r < size; r++)
		d->table_len += d->lengths[r] - 4;
	d->table = malloc(d->table_len);
	if (ids == NULL || d->table == NULL) {
		free(ids);
		return DOCA_ERROR_NO_MEMORY;
	}
	for (uint32_t r = 0; r < size; r++) {
		const uint8_t *block = d->rbuf + (size_t)r * d->longest;
		size_t before = n_ids;

		if (d->lengths[r] < 4 || !walk_block(block, d->lengths[r], ids, max_ids, &n_ids, &peers)) {
			snprintf(why, why_size,
				 n_ids > before && n_ids < max_ids
					 ? "the block of rank %u is malformed"
					 : "the block of rank %u is malformed or repeats a domain id",
				 r);
			free(ids);
			return DOCA_ERROR_INVALID_VALUE;
		}
		memcpy(d->table + at, block + 4, d->lengths[r] - 4);
		at += d->lengths[r] - 4;
		total += peers;
	}
	free(ids);
	urom_store_le32(d->table + 8, total);
	return DOCA_SUCCESS;
}

static doca_error_t send_tables(struct doca_urom_domain *d, char *why, size_t why_size)
{
	d->set_reqs = calloc(d->n_workers, sizeof(*d->set_reqs));
	if (d->set_reqs == NULL)
		return DOCA_ERROR_NO_MEMORY;
	for (size_t i = 0; i < d->n_workers; i++) {
		doca_error_t status;

		for (int b = 0; b < 8; b++)
			d->table[b] = (uint8_t)(d->ids[i] >> (8 * b));
		status = urom_worker_request(d->workers[i], UROM_MSG_DOMAIN_SET, d->table, d->table_len,
					     &d->set_reqs[i]);
		if (status != DOCA_SUCCESS) {
			snprintf(why, why_size, "the table (%zu bytes) could not be sent to worker %lu", d->table_len,
				 (unsigned long)d->workers[i]->id);
			return status;
		}
	}
	return DOCA_SUCCESS;
}

/* SUCCESS once every worker accepted the table, IN_PROGRESS while one has not answered. */
static doca_error_t tables_accepted(struct doca_urom_domain *d, char *why, size_t why_size)
{
	for (size_t i = 0; i < d->n_workers; i++) {
		struct urom_reader r;
		doca_error_t status;
		uint32_t reply_status;
		char message[200];

		if (!d->set_reqs[i].done)
			return DOCA_ERROR_IN_PROGRESS;
		status = urom_request_outcome(&d->set_reqs[i], UROM_MSG_DOMAIN_SET_REPLY, why, why_size);
		if (status != DOCA_SUCCESS)
			return status;
		urom_reader_init(&r, d->set_reqs[i].body, d->set_reqs[i].body_len);
		reply_status = urom_r_u32(&r);
		urom_r_string(&r, message, sizeof(message));
		if (reply_status != DOCA_SUCCESS) {
			snprintf(why, why_size, "worker %lu refused the table: %s", (unsigned long)d->workers[i]->id,
				 message);
			return reply_status <= DOCA_ERROR_DEVICE_FATAL_ERROR ? (doca_error_t)reply_status
									     : DOCA_ERROR_UNKNOWN;
		}
	}
	return DOCA_SUCCESS;
}

static doca_error_t domain_start(struct doca_ctx *ctx)
{
	struct doca_urom_domain *d = (struct doca_urom_domain *)ctx;

	if (!d->has_oob || d->n_workers == 0) {
		UROM_LOG(DOCA_LOG_LEVEL_ERROR, "domain: %s",
			 !d->has_oob ? "no allgather; doca_urom_domain_set_oob() gives it"
				     : "no workers; doca_urom_domain_set_workers() names them");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (d->buffers_counted && d->n_buffers != d->buffers_max) {
		UROM_LOG(DOCA_LOG_LEVEL_ERROR, "domain: %zu of the %zu buffers announced were added", d->n_buffers,
			 d->buffers_max);
		return DOCA_ERROR_INVALID_VALUE;
	}
	for (size_t i = 0; i < d->n_workers; i++) {
		if (!urom_worker_running(d->workers[i])) {
			UROM_LOG(DOCA_LOG_LEVEL_ERROR, "domain: worker %zu is not RUNNING", i);
			return DOCA_ERROR_BAD_STATE;
		}
	}
	urom_writer_init(&d->block, MAX_BLOCK);
	urom_w_u32(&d->block, (uint32_t)d->n_workers);
	d->worker_at = 0;
	begin_peer(d);
	d->phase = DOMAIN_ADDRESSES;
	if (d->plugins_left != 0 && ask_next_address(d) != DOCA_SUCCESS) {
		clear_start(d);
		return DOCA_ERROR_NOT_CONNECTED;
	}
	return DOCA_ERROR_IN_PROGRESS;
}

static int step_addresses(struct doca_urom_domain *d, char *why, size_t why_size, doca_error_t *status)
{
	if (d->plugins_left == 0 && !d->addr_pending) {
		/* This worker's addresses are in: its segments, then the next worker. */
		write_segments(d);
		if (++d->worker_at < d->n_workers) {
			begin_peer(d);
			if (d->plugins_left != 0)
				*status = ask_next_address(d);
			return 1;
		}
		if (d->block.failed) {
			snprintf(why, why_size, "this process's block of peers is over %u bytes", MAX_BLOCK);
			*status = DOCA_ERROR_TOO_BIG;
			return 1;
		}
		d->sbuf = malloc(8);
		d->lengths = calloc(d->oob.n_oob_indexes, sizeof(uint64_t));
		if (d->sbuf == NULL || d->lengths == NULL) {
			*status = DOCA_ERROR_NO_MEMORY;
			return 1;
		}
		for (int b = 0; b < 8; b++)
			d->sbuf[b] = (uint8_t)((uint64_t)d->block.len >> (8 * b));
		d->phase = DOMAIN_LENGTHS;
		*status = start_allgather(d, d->sbuf, d->lengths, 8);
		if (*status != DOCA_SUCCESS)
			snprintf(why, why_size, "the program's allgather failed");
		return 1;
	}
	urom_worker_pump(d->workers[d->worker_at]);
	if (!d->addr_req.done)
		return 0;
	*status = take_address(d, why, why_size);
	if (*status == DOCA_SUCCESS && d->plugins_left != 0)
		*status = ask_next_address(d);
	return 1;
}

static int step_lengths(struct doca_urom_domain *d, char *why, size_t why_size, doca_error_t *status)
{
	uint32_t size = d->oob.n_oob_indexes;

	*status = test_allgather(d);
	if (*status == DOCA_ERROR_IN_PROGRESS) {
		*status = DOCA_SUCCESS;
		return 0;
	}
	if (*status != DOCA_SUCCESS) {
		snprintf(why, why_size, "the program's allgather of block lengths failed");
		return 1;
	}
	d->longest = 0;
	for (uint32_t r = 0; r < size; r++) {
		uint64_t len = urom_load_le64(&d->lengths[r]);

		d->lengths[r] = len;
		if (len > MAX_BLOCK) {
			snprintf(why, why_size, "rank %u announced a block of %lu bytes", r, (unsigned long)len);
			*status = DOCA_ERROR_INVALID_VALUE;
			return 1;
		}
		if (len > d->longest)
			d->longest = (size_t)len;
	}
	free(d->sbuf);
	d->sbuf = calloc(1, d->longest == 0 ? 1 : d->longest);
	d->rbuf = calloc(size, d->longest == 0 ? 1 : d->longest);
	if (d->sbuf == NULL || d->rbuf == NULL) {
		*status = DOCA_ERROR_NO_MEMORY;
		return 1;
	}
	memcpy(d->sbuf, d->block.data, d->block.len);
	d->phase = DOMAIN_BLOCKS;
	*status = start_allgather(d, d->sbuf, d->rbuf, d->longest);
	if (*status != DOCA_SUCCESS)
		snprintf(why, why_size, "the program's allgather failed");
	return 1;
}

static int domain_progress(struct doca_ctx *ctx)
{
	struct doca_urom_domain *d = (struct doca_urom_domain *)ctx;
	doca_error_t status = DOCA_SUCCESS;
	char why[UROM_CONN_ERR_MAX] = "";
	int did = 0;

	switch (d->phase) {
	case DOMAIN_ADDRESSES:
		did = step_addresses(d, why, sizeof(why), &status);
		break;
	case DOMAIN_LENGTHS:
		did = step_lengths(d, why, sizeof(why), &status);
		break;
	case DOMAIN_BLOCKS:
		status = test_allgather(d);
		if (status == DOCA_ERROR_IN_PROGRESS)
			return 0;
		did = 1;
		if (status != DOCA_SUCCESS) {
			snprintf(why, sizeof(why), "the program's allgather of blocks failed");
			break;
		}
		status = build_table(d, why, sizeof(why));
		if (status == DOCA_SUCCESS && d->table_len > d->workers[0]->data.frame_limit - UROM_FRAME_HEADER) {
			snprintf(why, sizeof(why), "the table of %zu bytes does not fit a message of the channel",
				 d->table_len);
			status = DOCA_ERROR_TOO_BIG;
		}
		if (status == DOCA_SUCCESS)
			status = send_tables(d, why, sizeof(why));
		if (status == DOCA_SUCCESS)
			d->phase = DOMAIN_SET;
		break;
	case DOMAIN_SET:
		for (size_t i = 0; i < d->n_workers; i++)
			did |= urom_worker_pump(d->workers[i]);
		status = tables_accepted(d, why, sizeof(why));
		if (status == DOCA_ERROR_IN_PROGRESS)
			return did;
		did = 1;
		if (status == DOCA_SUCCESS) {
			clear_start(d);
			urom_ctx_transition(&d->ctx, DOCA_CTX_STATE_RUNNING);
			return 1;
		}
		break;
	default:
		return 0;
	}
	if (status != DOCA_SUCCESS)
		fail_start(d, status, why[0] != '\0' ? why : "its start failed");
	return did;
}

static doca_error_t domain_stop(struct doca_ctx *ctx)
{
	clear_start((struct doca_urom_domain *)ctx);
	return DOCA_SUCCESS;
}

static doca_error_t domain_submit(struct doca_task *task)
{
	(void)task;
	return DOCA_ERROR_NOT_SUPPORTED;
}

static void domain_task_free(struct doca_task *task)
{
	(void)task;
}

static const struct urom_ctx_ops domain_ops = {
	.name = "domain",
	.start = domain_start,
	.stop = domain_stop,
	.progress = domain_progress,
	.submit = domain_submit,
	.task_free = domain_task_free,
};

/* ---- public API ---- */

doca_error_t doca_urom_domain_create(struct doca_urom_domain **domain_ctx)
{
	struct doca_urom_domain *d;

	if (domain_ctx == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	d = calloc(1, sizeof(*d));
	if (d == NULL)
		return DOCA_ERROR_NO_MEMORY;
	urom_ctx_init(&d->ctx, &domain_ops);
	*domain_ctx = d;
	return DOCA_SUCCESS;
}

static void free_buffers(struct doca_urom_domain *d)
{
	for (size_t i = 0; i < d->n_buffers; i++) {
		free(d->buffers[i].memh);
		free(d->buffers[i].mkey);
	}
	free(d->buffers);
	d->buffers = NULL;
	d->n_buffers = d->buffers_max = 0;
	d->buffers_counted = false;
}

doca_error_t doca_urom_domain_destroy(struct doca_urom_domain *d)
{
	if (d == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (d->ctx.state != DOCA_CTX_STATE_IDLE)
		return DOCA_ERROR_NOT_PERMITTED;
	urom_ctx_fini(&d->ctx);
	clear_start(d);
	free_buffers(d);
	free(d->ids);
	free(d->workers);
	free(d);
	return DOCA_SUCCESS;
}

static doca_error_t settable(const struct doca_urom_domain *d)
{
	if (d == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	return d->ctx.state == DOCA_CTX_STATE_IDLE && d->phase == DOMAIN_IDLE ? DOCA_SUCCESS : DOCA_ERROR_BAD_STATE;
}

doca_error_t doca_urom_domain_set_buffers_count(struct doca_urom_domain *d, size_t buffers_cnt)
{
	doca_error_t status = settable(d);

	if (status != DOCA_SUCCESS)
		return status;
	if (buffers_cnt > 4096)
		return DOCA_ERROR_INVALID_VALUE;
	free_buffers(d);
	d->buffers = calloc(buffers_cnt == 0 ? 1 : buffers_cnt, sizeof(*d->buffers));
	if (d->buffers == NULL)
		return DOCA_ERROR_NO_MEMORY;
	d->buffers_max = buffers_cnt;
	d->buffers_counted = true;
	return DOCA_SUCCESS;
}

static uint8_t *copy_handle(const void *p, size_t n)
{
	uint8_t *copy = malloc(n == 0 ? 1 : n);

	if (copy != NULL && n != 0)
		memcpy(copy, p, n);
	return copy;
}

doca_error_t doca_urom_domain_add_buffer(struct doca_urom_domain *d, void *buffer, size_t buf_len, void *memh,
					 size_t memh_len, void *mkey, size_t mkey_len)
{
	doca_error_t status = settable(d);
	struct domain_buffer *b;

	if (status != DOCA_SUCCESS)
		return status;
	if ((memh == NULL && memh_len != 0) || (mkey == NULL && mkey_len != 0) || memh_len > MAX_HANDLE ||
	    mkey_len > MAX_HANDLE)
		return DOCA_ERROR_INVALID_VALUE;
	if (!d->buffers_counted)
		return DOCA_ERROR_BAD_STATE;
	if (d->n_buffers >= d->buffers_max)
		return DOCA_ERROR_FULL;
	b = &d->buffers[d->n_buffers];
	b->va = (uint64_t)(uintptr_t)buffer;
	b->len = buf_len;
	b->memh = copy_handle(memh, memh_len);
	b->mkey = copy_handle(mkey, mkey_len);
	if (b->memh == NULL || b->mkey == NULL) {
		free(b->memh);
		free(b->mkey);
		return DOCA_ERROR_NO_MEMORY;
	}
	b->memh_len = memh_len;
	b->mkey_len = mkey_len;
	d->n_buffers++;
	return DOCA_SUCCESS;
}

doca_error_t doca_urom_domain_set_oob(struct doca_urom_domain *d, struct doca_urom_domain_oob_coll *oob)
{
	doca_error_t status = settable(d);

	if (status != DOCA_SUCCESS)
		return status;
	if (oob == NULL || oob->allgather == NULL || oob->req_test == NULL || oob->n_oob_indexes == 0 ||
	    oob->oob_index >= oob->n_oob_indexes)
		return DOCA_ERROR_INVALID_VALUE;
	d->oob = *oob;
	d->has_oob = true;
	return DOCA_SUCCESS;
}

doca_error_t doca_urom_domain_set_workers(struct doca_urom_domain *d, uint64_t *domain_worker_ids,
					  struct doca_urom_worker **workers, size_t workers_cnt)
{
	doca_error_t status = settable(d);
	uint64_t *ids;
	struct doca_urom_worker **ws;

	if (status != DOCA_SUCCESS)
		return status;
	if (domain_worker_ids == NULL || workers == NULL || workers_cnt == 0 || workers_cnt > 4096)
		return DOCA_ERROR_INVALID_VALUE;
	for (size_t i = 0; i < workers_cnt; i++) {
		if (workers[i] == NULL)
			return DOCA_ERROR_INVALID_VALUE;
	}
	ids = malloc(workers_cnt * sizeof(*ids));
	ws = malloc(workers_cnt * sizeof(*ws));
	if (ids == NULL || ws == NULL) {
		free(ids);
		free(ws);
		return DOCA_ERROR_NO_MEMORY;
	}
	memcpy(ids, domain_worker_ids, workers_cnt * sizeof(*ids));
	memcpy(ws, workers, workers_cnt * sizeof(*ws));
	free(d->ids);
	free(d->workers);
	d->ids = ids;
	d->workers = ws;
	d->n_workers = workers_cnt;
	return DOCA_SUCCESS;
}

struct doca_ctx *doca_urom_domain_as_ctx(struct doca_urom_domain *d)
{
	return d == NULL ? NULL : &d->ctx;
}
