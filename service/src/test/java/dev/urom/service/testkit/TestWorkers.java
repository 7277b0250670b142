// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.testkit;

import dev.urom.framework.security.UnixAccounts;
import dev.urom.service.daemon.DaemonSecurity;

/**
 * The security settings of tests that start workers with the test JVM's own class path. That class
 * path lies in the Maven repository under the user's home, which another user usually cannot read,
 * so these tests run their workers as the test's own user: a root test JVM says {@code --worker-user
 * root} explicitly, as an operator would have to. Dropping privileges is tested by the service's
 * {@code WorkerPrivilegeTest}, with a class path copied where the worker user can read it.
 */
public final class TestWorkers {
    private TestWorkers() {}

    /** The defaults, with workers as this test's user. */
    public static DaemonSecurity security() {
        return DaemonSecurity.builder()
                .workerUser(UnixAccounts.effectiveUid() == 0 ? "root" : null)
                .build();
    }

    /** The daemon options that say the same on a command line: {@code --worker-user root} as root, none otherwise. */
    public static String[] options() {
        return UnixAccounts.effectiveUid() == 0 ? new String[] {"--worker-user", "root"} : new String[0];
    }
}
