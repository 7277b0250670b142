// SPDX-License-Identifier: Apache-2.0
package dev.urom.wire;

import java.util.Map;

/**
 * The address a root daemon outside Kubernetes listens on when it is given no {@code --listen},
 * by the daemon's own rule ({@link ServiceAddress#defaultListen()}), whoever runs the test: the
 * systemd unit's runtime directory is held to it.
 */
public final class RootDaemonAddress {
    private RootDaemonAddress() {}

    public static ServiceAddress defaultListen() {
        return ServiceAddress.defaultListen(Map.of(), true, "root", "/tmp");
    }
}
