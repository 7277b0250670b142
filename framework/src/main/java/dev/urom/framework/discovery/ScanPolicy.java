// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.discovery;

import static java.util.Objects.requireNonNull;

import dev.urom.framework.security.PathTrust;
import dev.urom.framework.security.UnixAccount;
import dev.urom.framework.security.UnixAccounts;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a {@link PluginScanner} requires of plugin directories and files before it probes them
 * (probing a native plugin runs its constructors in a child process with the scanner's
 * privileges).
 *
 * <ul>
 *   <li>{@code trustedOwners}: besides root, who may own a plugin directory, a plugin file and
 *       the directories above them; see {@link PathTrust#untrusted}.
 *   <li>{@code allowInsecure}: whether a directory or file that fails that check is scanned all
 *       the same, with a warning in the scan, instead of being rejected (for development).
 *   <li>{@code reader}: the account that must be able to read every accepted plugin (the worker
 *       user, when workers run as another user); a plugin it cannot read is rejected.
 * </ul>
 *
 * Immutable; root's uid is always among the trusted owners.
 */
public record ScanPolicy(Set<Integer> trustedOwners, boolean allowInsecure, Optional<UnixAccount> reader) {
    public ScanPolicy {
        requireNonNull(trustedOwners, "trustedOwners is null");
        requireNonNull(reader, "reader is null");
        Set<Integer> owners = new TreeSet<>(Integer::compareUnsigned);
        owners.add(PathTrust.ROOT_UID);
        for (Integer owner : trustedOwners) {
            owners.add(requireNonNull(owner, "a trusted owner is null"));
        }
        trustedOwners = Set.copyOf(owners);
    }

    /** Owned by root or this process's effective user, not writable by others; no reader check. */
    public static ScanPolicy secure() {
        return new ScanPolicy(Set.of(UnixAccounts.effectiveUid()), false, Optional.empty());
    }

    /** This policy with {@code allowInsecure} set as given. */
    public ScanPolicy withAllowInsecure(boolean allow) {
        return new ScanPolicy(trustedOwners, allow, reader);
    }

    /** This policy, with {@code account} required to be able to read every accepted plugin. */
    public ScanPolicy withReader(UnixAccount account) {
        return new ScanPolicy(trustedOwners, allowInsecure, Optional.of(requireNonNull(account, "account is null")));
    }

    /** This policy with these trusted owners (and root). */
    public ScanPolicy withTrustedOwners(Set<Integer> owners) {
        return new ScanPolicy(owners, allowInsecure, reader);
    }
}
