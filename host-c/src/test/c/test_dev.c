/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libdoca_common's devices: the lines of DOCA_UROM_SERVICE_FILE meant for this host, their checks and
 * warnings, PCI addresses, daemon addresses; and the calls that only exist for NVIDIA's samples/common.c
 * (representors, memory maps, buffer inventories).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <doca_buf_inventory.h>
#include <doca_dev.h>
#include <doca_log.h>
#include <doca_mmap.h>

#include "urom_core.h"

/* ---- the SDK lines the library writes ---- */

#define MAX_RECORDS 16

static char records[MAX_RECORDS][1600];
static int n_records;
static char record_buf[1600];

static void on_record(char *buf)
{
	if (n_records < MAX_RECORDS)
		snprintf(records[n_records], sizeof(records[0]), "%s", buf);
	n_records++;
}

static int records_with(const char *a, const char *b)
{
	int i, n = 0;

	for (i = 0; i < n_records && i < MAX_RECORDS; i++)
		if (strstr(records[i], a) != NULL && (b == NULL || strstr(records[i], b) != NULL))
			n++;
	return n;
}

/* ---- service files ---- */

static char dir[256];
static char path[300];
static char host[256];

static void write_file(const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(setenv("DOCA_UROM_SERVICE_FILE", path, 1), 0);
}

/* text with every "@" replaced by this host's name. */
static void write_for_host(const char *text)
{
	size_t cap = strlen(text) * (strlen(host) + 1) + 1, o = 0;
	char *out = malloc(cap);
	const char *p;

	assert_non_null(out);
	for (p = text; *p != '\0'; p++) {
		if (*p == '@') {
			memcpy(out + o, host, strlen(host));
			o += strlen(host);
		} else {
			out[o++] = *p;
		}
	}
	out[o] = '\0';
	write_file(out);
	free(out);
}

static struct doca_devinfo **list;
static uint32_t count;

static void load(void)
{
	n_records = 0;
	list = NULL;
	count = 12345;
	assert_int_equal(doca_devinfo_create_list(&list, &count), DOCA_SUCCESS);
	assert_non_null(list);
	assert_null(list[count]);
}

static void unload(void)
{
	assert_int_equal(doca_devinfo_destroy_list(list), DOCA_SUCCESS);
	list = NULL;
}

static const char *ibdev(uint32_t i)
{
	static char name[DOCA_DEVINFO_IBDEV_NAME_SIZE];

	assert_int_equal(doca_devinfo_get_ibdev_name(list[i], name, sizeof(name)), DOCA_SUCCESS);
	return name;
}

static const char *pci(uint32_t i)
{
	static char addr[DOCA_DEVINFO_PCI_ADDR_SIZE];

	assert_int_equal(doca_devinfo_get_pci_addr_str(list[i], addr), DOCA_SUCCESS);
	return addr;
}

static int group_setup(void **state)
{
	struct doca_log_backend *sdk;
	const char *tmp;

	(void)state;
	assert_int_equal(gethostname(host, sizeof(host) - 1), 0);
	tmp = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/urom-test-dev-XXXXXX", tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/services", dir);
	assert_int_equal(doca_log_backend_create_with_buf_sdk(record_buf, sizeof(record_buf), on_record, &sdk),
			 DOCA_SUCCESS);
	assert_int_equal(doca_log_backend_set_sdk_level(sdk, DOCA_LOG_LEVEL_WARNING), DOCA_SUCCESS);
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	unlink(path);
	rmdir(dir);
	return 0;
}

/* ---- tests ---- */

static void test_unset_variable(void **state)
{
	(void)state;
	assert_int_equal(unsetenv("DOCA_UROM_SERVICE_FILE"), 0);
	load();
	assert_int_equal(count, 0);
	assert_int_equal(n_records, 1);
	assert_int_equal(records_with("[ERR]", "DOCA_UROM_SERVICE_FILE is not set"), 1);
	unload();
	assert_int_equal(setenv("DOCA_UROM_SERVICE_FILE", "", 1), 0);
	load();
	assert_int_equal(count, 0);
	assert_int_equal(records_with("[ERR]", "is not set"), 1);
	unload();
}

static void test_unreadable_file(void **state)
{
	char missing[320];

	(void)state;
	snprintf(missing, sizeof(missing), "%s/none", dir);
	assert_int_equal(setenv("DOCA_UROM_SERVICE_FILE", missing, 1), 0);
	load();
	assert_int_equal(count, 0);
	assert_int_equal(n_records, 1);
	assert_int_equal(records_with("[ERR]", missing), 1);
	assert_int_equal(records_with("cannot open", NULL), 1);
	unload();
	/* A directory opens, but is not a regular file. */
	assert_int_equal(setenv("DOCA_UROM_SERVICE_FILE", dir, 1), 0);
	load();
	assert_int_equal(count, 0);
	assert_int_equal(records_with("[ERR]", "not a regular file"), 1);
	unload();
}

static void test_this_hosts_lines_only(void **state)
{
	(void)state;
	write_for_host("# UROM services\n"
		       "\n"
		       "otherhost dpu dpuX 0000:01:00.0 mlx5_9:1\n"
		       "@ dpu dpuA 03:00.0 mlx5_0:1,mlx5_1:1\n"
		       "   # indented comment\n"
		       "@\tdpu\tdpuB\t0000:3A:00.1\tmlx5_2   # trailing comment\n"
		       "@.example.com dpu dpuC 0000:05:00.0 mlx5_5\n"
		       "another dpu dpuY 0000:07:00.0 mlx5_7\n"
		       "@ dpu dpuD 0001:0b:1f.7 mlx5_bond_0:2\r\n");
	load();
	assert_int_equal(n_records, 0);
	assert_int_equal(count, 3);
	assert_string_equal(ibdev(0), "mlx5_0");
	assert_string_equal(pci(0), "0000:03:00.0");
	assert_string_equal(ibdev(1), "mlx5_2");
	assert_string_equal(pci(1), "0000:3a:00.1");
	assert_string_equal(ibdev(2), "mlx5_bond_0");
	assert_string_equal(pci(2), "0001:0b:1f.7");
	{
		char iface[DOCA_DEVINFO_IFACE_NAME_SIZE];
		enum doca_pci_func_type type;
		uint32_t sf;

		assert_int_equal(doca_devinfo_get_iface_name(list[0], iface, sizeof(iface)), DOCA_SUCCESS);
		assert_string_equal(iface, "mlx5_0");
		assert_int_equal(doca_devinfo_get_pci_func_type(list[0], &type), DOCA_SUCCESS);
		assert_int_equal(type, DOCA_PCI_FUNC_TYPE_PF);
		assert_int_equal(doca_devinfo_get_sf_index(list[0], &sf), DOCA_ERROR_NOT_SUPPORTED);
	}
	unload();
}

static void test_host_name_case(void **state)
{
	char upper[256];
	size_t i;

	(void)state;
	for (i = 0; host[i] != '\0'; i++)
		upper[i] = (char)(host[i] >= 'a' && host[i] <= 'z' ? host[i] - 32 : host[i]);
	upper[i] = '\0';
	{
		char text[400];

		snprintf(text, sizeof(text), "%s dpu dpuA 0000:03:00.0 mlx5_0\n", upper);
		write_file(text);
	}
	load();
	assert_int_equal(count, 1);
	unload();
}

static void test_malformed_lines_warned_and_skipped(void **state)
{
	char line3[400];

	(void)state;
	write_for_host("@ dpu dpuA 0000:03:00.0 mlx5_0\n"          /* 1 good */
		       "@ dpu\n"                                   /* 2 */
		       "@ host dpuA 0000:04:00.0 mlx5_1\n"         /* 3 */
		       "@ dpu dpuA 0000:04:00 mlx5_1\n"            /* 4 */
		       "@ dpu dpuA:99999 0000:04:00.0 mlx5_1\n"    /* 5 */
		       "@ dpu fe80::1 0000:04:00.0 mlx5_1\n"       /* 6 */
		       "@ dpu unix:relative 0000:04:00.0 mlx5_1\n" /* 7 */
		       "@ dpu dpuA 0000:04:00.0 mlx5_1,,mlx5_2\n"  /* 8 */
		       "@ dpu dpuA 0000:04:00.0 mlx5_1 extra\n"    /* 9 */
		       "@ dpu dpuA 0000:04:20.0 mlx5_1\n"          /* 10: device 0x20 */
		       "@ dpu [fe80::1 0000:04:00.0 mlx5_1\n"      /* 11 */
		       "other dpu dpuA nonsense mlx5_1\n"          /* 12: another host's, still checked */
		       "@ dpu dpuA 0000:03:00.0 mlx5_3\n"          /* 13: repeats line 1's address */
		       "@ dpu dpuE 0000:06:00.0 mlx5_6\n");        /* 14 good */
	load();
	assert_int_equal(count, 2);
	assert_string_equal(ibdev(0), "mlx5_0");
	assert_string_equal(ibdev(1), "mlx5_6");
	assert_int_equal(n_records, 12);
	assert_int_equal(records_with("[WRN]", "; skipped"), 12);
	snprintf(line3, sizeof(line3), "DOCA_UROM_SERVICE_FILE %s line 2: expected 5 fields, found 2; skipped\n", path);
	assert_int_equal(records_with(line3, NULL), 1);
	assert_int_equal(records_with("line 3: service type 'host' is not 'dpu'", NULL), 1);
	assert_int_equal(records_with("line 4: '0000:04:00' is not a PCI address", NULL), 1);
	assert_int_equal(records_with("line 5: the daemon's port", NULL), 1);
	assert_int_equal(records_with("line 6: an IPv6 address needs brackets", NULL), 1);
	assert_int_equal(records_with("line 7: a unix: address needs an absolute path", NULL), 1);
	assert_int_equal(records_with("line 8: a network device name is empty", NULL), 1);
	assert_int_equal(records_with("line 9: expected 5 fields, found more", NULL), 1);
	assert_int_equal(records_with("line 10: '0000:04:20.0' is not a PCI address", NULL), 1);
	assert_int_equal(records_with("line 11: an IPv6 address lacks its ']'", NULL), 1);
	assert_int_equal(records_with("line 12: 'nonsense' is not a PCI address", NULL), 1);
	assert_int_equal(records_with("line 13: PCI address 0000:03:00.0 is already the device of line 1", NULL), 1);
	unload();
}

static void test_long_field(void **state)
{
	char text[700];
	char name[300];

	(void)state;
	memset(name, 'h', 256);
	name[256] = '\0';
	snprintf(text, sizeof(text), "%s dpu dpuA 0000:03:00.0 mlx5_0\n", name);
	write_file(text);
	load();
	assert_int_equal(count, 0);
	assert_int_equal(records_with("line 1: field 1 is longer than 255 bytes; skipped", NULL), 1);
	/* and, since no line was for this host, one more warning saying so */
	assert_int_equal(records_with("has no line for this host", NULL), 1);
	assert_int_equal(n_records, 2);
	unload();
}

static void test_pci_equality(void **state)
{
	uint8_t eq = 7;

	(void)state;
	write_for_host("@ dpu dpuA 0000:3a:00.1 mlx5_0\n@ dpu dpuB 0002:03:00.0 mlx5_1\n");
	load();
	assert_int_equal(count, 2);
	assert_int_equal(doca_devinfo_is_equal_pci_addr(list[0], "0000:3a:00.1", &eq), DOCA_SUCCESS);
	assert_int_equal(eq, 1);
	assert_int_equal(doca_devinfo_is_equal_pci_addr(list[0], "3A:00.1", &eq), DOCA_SUCCESS);
	assert_int_equal(eq, 1);
	assert_int_equal(doca_devinfo_is_equal_pci_addr(list[0], "3a:00.0", &eq), DOCA_SUCCESS);
	assert_int_equal(eq, 0);
	assert_int_equal(doca_devinfo_is_equal_pci_addr(list[0], "0001:3a:00.1", &eq), DOCA_SUCCESS);
	assert_int_equal(eq, 0);
	/* The short form means domain 0. */
	assert_int_equal(doca_devinfo_is_equal_pci_addr(list[1], "03:00.0", &eq), DOCA_SUCCESS);
	assert_int_equal(eq, 0);
	assert_int_equal(doca_devinfo_is_equal_pci_addr(list[1], "0002:03:00.0", &eq), DOCA_SUCCESS);
	assert_int_equal(eq, 1);
	assert_int_equal(doca_devinfo_is_equal_pci_addr(list[0], "3a:00", &eq), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_devinfo_is_equal_pci_addr(list[0], "zz:00.0", &eq), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_devinfo_is_equal_pci_addr(list[0], "0000:3a:00.1 ", &eq), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_devinfo_is_equal_pci_addr(list[0], "00000:3a:00.1", &eq), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_devinfo_is_equal_pci_addr(list[0], NULL, &eq), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_devinfo_is_equal_pci_addr(list[0], "3a:00.1", NULL), DOCA_ERROR_INVALID_VALUE);
	unload();
}

static void test_service_addresses(void **state)
{
	static const char *const expected[] = {
		"tcp:dpuA:7300",        "tcp:dpuA:7400",     "tcp:[fe80::1]:7400",         "tcp:[::1]:7300",
		"unix:/path/urom.sock", "tcp:10.0.0.2:7301", "tcp:dpu-b.example.com:7300",
	};
	struct doca_dev *dev;
	uint32_t i;

	(void)state;
	write_for_host("@ dpu dpuA 0000:01:00.0 d0\n"
		       "@ dpu dpuA:7400 0000:02:00.0 d1\n"
		       "@ dpu [fe80::1]:7400 0000:03:00.0 d2\n"
		       "@ dpu [::1] 0000:04:00.0 d3\n"
		       "@ dpu unix:/path/urom.sock 0000:05:00.0 d4\n"
		       "@ dpu 10.0.0.2:7301 0000:06:00.0 d5\n"
		       "@ dpu dpu-b.example.com 0000:07:00.0 d6\n");
	load();
	assert_int_equal(n_records, 0);
	assert_int_equal(count, 7);
	for (i = 0; i < count; i++) {
		assert_int_equal(doca_dev_open(list[i], &dev), DOCA_SUCCESS);
		assert_string_equal(urom_dev_service_address(dev), expected[i]);
		assert_int_equal(doca_dev_close(dev), DOCA_SUCCESS);
	}
	unload();
	assert_null(urom_dev_service_address(NULL));
}

static void test_open_outlives_list(void **state)
{
	struct doca_dev *dev;
	char name[DOCA_DEVINFO_IBDEV_NAME_SIZE];
	char small[8];

	(void)state;
	write_for_host("@ dpu dpuA 0000:03:00.0 mlx5_0:1\n");
	load();
	assert_int_equal(count, 1);
	assert_int_equal(doca_dev_open(list[0], &dev), DOCA_SUCCESS);
	assert_int_equal(doca_devinfo_get_ibdev_name(list[0], small, sizeof(small)), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_devinfo_get_iface_name(list[0], small, sizeof(small)), DOCA_ERROR_INVALID_VALUE);
	unload();
	assert_int_equal(doca_devinfo_get_ibdev_name(doca_dev_as_devinfo(dev), name, sizeof(name)), DOCA_SUCCESS);
	assert_string_equal(name, "mlx5_0");
	assert_string_equal(urom_dev_service_address(dev), "tcp:dpuA:7300");
	assert_int_equal(doca_dev_close(dev), DOCA_SUCCESS);
	/* NULLs */
	assert_int_equal(doca_devinfo_create_list(NULL, &count), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_devinfo_create_list(&list, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_devinfo_destroy_list(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_dev_open(NULL, &dev), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_dev_close(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_null(doca_dev_as_devinfo(NULL));
	assert_int_equal(doca_devinfo_get_pci_addr_str(NULL, name), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_devinfo_get_ibdev_name(NULL, name, sizeof(name)), DOCA_ERROR_INVALID_VALUE);
}

static void test_too_big_file(void **state)
{
	FILE *f;
	size_t i;

	(void)state;
	f = fopen(path, "w");
	assert_non_null(f);
	for (i = 0; i < 1024 * 1024 + 1; i++)
		fputc('#', f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(setenv("DOCA_UROM_SERVICE_FILE", path, 1), 0);
	load();
	assert_int_equal(count, 0);
	assert_int_equal(n_records, 1);
	assert_int_equal(records_with("[ERR]", "larger than 1 MiB"), 1);
	unload();
}

static void test_at_most_256_devices(void **state)
{
	size_t cap = 300 * 340, o = 0;
	char *text = malloc(cap);
	int i;

	(void)state;
	assert_non_null(text);
	for (i = 0; i < 300; i++)
		o += (size_t)snprintf(text + o, cap - o, "%s dpu dpu%d 0000:%02x:%02x.%d mlx5_%d\n", host, i,
				      i / 32 + 1, i % 32, 0, i);
	write_file(text);
	free(text);
	load();
	assert_int_equal(count, 256);
	assert_int_equal(n_records, 1);
	assert_int_equal(records_with("[WRN]", "line 257: more than 256 devices"), 1);
	assert_string_equal(ibdev(255), "mlx5_255");
	unload();
}

static void test_representors_and_memory(void **state)
{
	struct doca_devinfo_rep **reps = (void *)1;
	struct doca_dev_rep *rep = (void *)1;
	struct doca_mmap *mmap = (void *)1;
	struct doca_buf_inventory *inv = (void *)1;
	struct doca_buf *buf = (void *)1;
	struct doca_dev *dev;
	uint32_t n = 9;
	char x[8];

	(void)state;
	write_for_host("@ dpu dpuA 0000:03:00.0 mlx5_0\n");
	load();
	assert_int_equal(doca_dev_open(list[0], &dev), DOCA_SUCCESS);
	unload();
	assert_int_equal(doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_NET, &reps, &n),
			 DOCA_ERROR_NOT_SUPPORTED);
	assert_null(reps);
	assert_int_equal(n, 0);
	assert_int_equal(doca_devinfo_rep_create_list(NULL, 0, &reps, &n), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_devinfo_rep_destroy_list(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_dev_rep_open(NULL, &rep), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_dev_rep_close(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_devinfo_rep_get_vuid(NULL, x, sizeof(x)), DOCA_ERROR_INVALID_VALUE);
	assert_null(doca_dev_rep_as_devinfo(NULL));
	assert_int_equal(doca_mmap_create(&mmap), DOCA_ERROR_NOT_SUPPORTED);
	assert_null(mmap);
	assert_int_equal(doca_mmap_create(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_mmap_add_dev(NULL, dev), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_mmap_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_mmap_set_permissions(NULL, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_buf_inventory_create(16, &inv), DOCA_ERROR_NOT_SUPPORTED);
	assert_null(inv);
	assert_int_equal(doca_buf_inventory_start(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_buf_inventory_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_buf_inventory_buf_get_by_addr(NULL, NULL, x, sizeof(x), &buf), DOCA_ERROR_INVALID_VALUE);
	assert_null(buf);
	assert_int_equal(doca_dev_close(dev), DOCA_SUCCESS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unset_variable),
		cmocka_unit_test(test_unreadable_file),
		cmocka_unit_test(test_this_hosts_lines_only),
		cmocka_unit_test(test_host_name_case),
		cmocka_unit_test(test_malformed_lines_warned_and_skipped),
		cmocka_unit_test(test_long_field),
		cmocka_unit_test(test_pci_equality),
		cmocka_unit_test(test_service_addresses),
		cmocka_unit_test(test_open_outlives_list),
		cmocka_unit_test(test_too_big_file),
		cmocka_unit_test(test_at_most_256_devices),
		cmocka_unit_test(test_representors_and_memory),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
