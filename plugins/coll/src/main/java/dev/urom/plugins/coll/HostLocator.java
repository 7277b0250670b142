// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll;

import dev.urom.spi.UromException;

/**
 * Names the process of the host behind a connection ({@code destId}); called from the plugin's
 * thread. Throws {@link UromException} NOT_FOUND when the connection is unknown and NOT_SUPPORTED
 * when it has no local process (a TCP host). The caller owns the pidfd it returns.
 */
@FunctionalInterface
interface HostLocator {
    HostHandle locate(long destId) throws UromException;
}
