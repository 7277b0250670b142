// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll;

/**
 * The host process behind a connection: its pid and a pidfd on it, which the plugin owns once it
 * has it (and closes at {@link CollPlugin#close}).
 */
record HostHandle(int pid, int pidfd) {}
