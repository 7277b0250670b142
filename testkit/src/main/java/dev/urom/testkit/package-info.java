// SPDX-License-Identifier: Apache-2.0
/**
 * The plugin authors' test kit: a plugin, native ({@code .so}) or Java (a PF4J plugin jar or a
 * {@link dev.urom.spi.PluginIface} made in the test), loaded into the test's own process and
 * driven command by command, with AssertJ assertions on its notifications, and a domain of several
 * such workers whose plugins reach each other as the workers of one job do.
 */
package dev.urom.testkit;
