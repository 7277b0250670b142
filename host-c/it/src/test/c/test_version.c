/* SPDX-License-Identifier: Apache-2.0 */
/*
 * doca_version.h as a program gets it: through the distribution's pkg-config (the Makefile compiles
 * every test with `pkg-config --cflags doca-urom doca-common doca-argp` of $UROM_HOME). The header's
 * API level is the Version that pkg-config reports for each of the three libraries, and the
 * library's runtime string is the header's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <doca_version.h>

/* `pkg-config --modversion MODULE` against $UROM_HOME/lib/pkgconfig, without its newline. */
static void modversion(const char *module, char *out, size_t size)
{
	const char *home = getenv("UROM_HOME");
	char command[4096];
	FILE *pipe;
	size_t len;

	assert_non_null(home);
	assert_true((size_t)snprintf(command, sizeof(command),
				     "PKG_CONFIG_PATH='%s/lib/pkgconfig' pkg-config --modversion %s", home,
				     module) < sizeof(command));
	pipe = popen(command, "r");
	assert_non_null(pipe);
	assert_non_null(fgets(out, (int)size, pipe));
	assert_int_equal(pclose(pipe), 0);
	len = strlen(out);
	if (len > 0 && out[len - 1] == '\n')
		out[len - 1] = '\0';
}

static void test_pkg_config_versions_are_the_headers_api_level(void **state)
{
	const char *modules[] = {"doca-common", "doca-urom", "doca-argp"};
	char level[64], version[64];

	(void)state;
	snprintf(level, sizeof(level), "%d.%d.%d", DOCA_VERSION_MAJOR, DOCA_VERSION_MINOR, DOCA_VERSION_PATCH);
	for (size_t i = 0; i < sizeof(modules) / sizeof(modules[0]); i++) {
		modversion(modules[i], version, sizeof(version));
		assert_string_equal(version, level);
	}
	assert_int_equal(strncmp(doca_version(), level, strlen(level)), 0);
}

static void test_the_runtime_version_is_the_headers(void **state)
{
	(void)state;
	assert_string_equal(doca_version_runtime(), doca_version());
	assert_non_null(strstr(doca_version(), "(urom-java " UROM_VERSION_STRING ")"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pkg_config_versions_are_the_headers_api_level),
		cmocka_unit_test(test_the_runtime_version_is_the_headers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
