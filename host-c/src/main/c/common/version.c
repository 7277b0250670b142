/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libdoca_common: doca_version_runtime(), the version string of the doca_version.h this library was
 * built with (the DOCA API level and the urom-java release; doca_version.h states the form).
 */
#include <doca_version.h>

DOCA_EXPERIMENTAL const char *doca_version_runtime(void)
{
	return DOCA_VERSION_STRING;
}
