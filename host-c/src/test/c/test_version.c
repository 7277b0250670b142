/* SPDX-License-Identifier: Apache-2.0 */
/*
 * doca_version.h: doca_version() (this program's header) and doca_version_runtime() (the library's)
 * agree, read as major.minor.patch they are the DOCA_VERSION_* level, they name the urom-java
 * release the build was given (UROM_EXPECTED_VERSION, from the Makefile), and the comparison
 * macros order versions as DOCA's do.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <doca_compat.h>
#include <doca_version.h>

#ifndef UROM_EXPECTED_VERSION
#error "the Makefile passes UROM_EXPECTED_VERSION, the urom-java version the libraries were built with"
#endif

static void test_compiled_and_runtime_versions_are_the_same_string(void **state)
{
	(void)state;
	assert_non_null(doca_version_runtime());
	assert_string_equal(doca_version(), DOCA_VERSION_STRING);
	assert_string_equal(doca_version_runtime(), doca_version());
}

static void test_the_string_starts_with_the_api_level_and_names_the_release(void **state)
{
	char expected[128];
	int major = -1, minor = -1, patch = -1, used = 0;

	(void)state;
	assert_int_equal(sscanf(doca_version_runtime(), "%d.%d.%d%n", &major, &minor, &patch, &used), 3);
	assert_int_equal(major, DOCA_VERSION_MAJOR);
	assert_int_equal(minor, DOCA_VERSION_MINOR);
	assert_int_equal(patch, DOCA_VERSION_PATCH);
	snprintf(expected, sizeof(expected), "%d.%d.%d (urom-java %s)", major, minor, patch, UROM_EXPECTED_VERSION);
	assert_string_equal(doca_version_runtime(), expected);
	assert_string_equal(UROM_VERSION_STRING, UROM_EXPECTED_VERSION);
	assert_true(DOCA_VERSION_MAJOR >= 0 && DOCA_VERSION_MAJOR <= 255);
	assert_true(DOCA_VERSION_MINOR >= 0 && DOCA_VERSION_MINOR <= 255);
	assert_true(DOCA_VERSION_PATCH >= 0 && DOCA_VERSION_PATCH <= 9999);
}

static void test_comparisons_order_versions(void **state)
{
	(void)state;
	assert_true(DOCA_VERSION_EQ_CURRENT(DOCA_VERSION_MAJOR, DOCA_VERSION_MINOR, DOCA_VERSION_PATCH));
	assert_true(DOCA_VERSION_LTE_CURRENT(DOCA_VERSION_MAJOR, DOCA_VERSION_MINOR, DOCA_VERSION_PATCH));
	/* What DOCA programs test for: features of 2.x and of 3.0 are there, a later release's are not. */
	assert_true(DOCA_VERSION_LTE_CURRENT(2, 7, 0));
	assert_true(DOCA_VERSION_LTE_CURRENT(3, 0, 0));
	assert_false(DOCA_VERSION_EQ_CURRENT(2, 7, 0));
	assert_false(DOCA_VERSION_LTE_CURRENT(DOCA_VERSION_MAJOR, DOCA_VERSION_MINOR, DOCA_VERSION_PATCH + 1));
	assert_false(DOCA_VERSION_LTE_CURRENT(DOCA_VERSION_MAJOR, DOCA_VERSION_MINOR + 1, 0));
	assert_false(DOCA_VERSION_LTE_CURRENT(DOCA_VERSION_MAJOR + 1, 0, 0));
	/* A patch stays below the next minor: any exact patch, an official one up to 65 (x 1000 < 2^16). */
	assert_true(DOCA_VERSION_CALC_EXACT(1, 2, 9999) < DOCA_VERSION_CALC_EXACT(1, 3, 0));
	assert_true(DOCA_VERSION_CALC(1, 2, 65) < DOCA_VERSION_CALC(1, 3, 0));
	assert_int_equal(DOCA_VERSION_CALC_EXACT(2, 7, 0), 0x02070000);
	/* DOCA_VERSION_EXACT stays the plugin API version that DOCA_STRUCT_CTOR stamps. */
	assert_int_equal(DOCA_VERSION_EXACT, UROM_PLUGIN_API_VERSION);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compiled_and_runtime_versions_are_the_same_string),
		cmocka_unit_test(test_the_string_starts_with_the_api_level_and_names_the_release),
		cmocka_unit_test(test_comparisons_order_versions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
