// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.security;

/** Ids that this machine has no account or group for, to build identities no one has. For tests. */
public final class TestAccounts {
    private TestAccounts() {}

    /** The effective uid of the test JVM. */
    public static final int ME = UnixAccounts.effectiveUid();

    /** Whether the tests run as root. */
    public static boolean runsAsRoot() {
        return ME == 0;
    }

    /** An unprivileged account other than this test's user: {@code nobody}, or {@code daemon} when the tests run as nobody. */
    public static UnixAccount anotherUser() {
        for (String name : new String[] {"nobody", "daemon", "bin"}) {
            var account = UnixAccounts.user(name);
            if (account.isPresent()
                    && account.get().uid() != ME
                    && account.get().uid() != 0) {
                return account.get();
            }
        }
        throw new AssertionError("none of nobody, daemon and bin is an account other than uid " + ME);
    }

    /** The first uid from 4000000 up that has no passwd entry. */
    public static int uidWithoutAccount() {
        for (int uid = 4_000_000; uid < 4_001_000; uid++) {
            if (UnixAccounts.user(uid).isEmpty()) {
                return uid;
            }
        }
        throw new AssertionError("every uid from 4000000 to 4000999 has an account");
    }

    /** The first gid from 4000000 up that has no group entry. */
    public static int gidWithoutGroup() {
        for (int gid = 4_000_000; gid < 4_001_000; gid++) {
            if (UnixAccounts.groupName(gid).isEmpty()) {
                return gid;
            }
        }
        throw new AssertionError("every gid from 4000000 to 4000999 has a group");
    }
}
