// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.access;

import static java.util.Objects.requireNonNull;

import dev.urom.auth.Principal;
import dev.urom.auth.Proofs;
import dev.urom.spi.UromStatus;
import dev.urom.wire.Message.Hello;
import dev.urom.wire.ServerHandshake.Admission;
import dev.urom.wire.ServerHandshake.Decision;
import java.util.OptionalInt;

/**
 * Who may open a data connection to a worker: its owner only. A Unix-user owner is recognised by
 * the kernel's credentials of the connecting process (and must not claim a key); a key owner must
 * claim its name and prove the data-channel key; an anonymous owner (a daemon with
 * {@code --insecure-tcp}) admits anyone who claims no key. Everyone else is refused with
 * NOT_PERMITTED, except that a key worker challenges any name it is given, as if it were its
 * owner's, and refuses the proof (AUTHENTICATION), so that a client cannot learn whose worker it is
 * by trying names.
 *
 * <p>Immutable; {@link #forPeer} makes the admission of one connection.
 */
public final class WorkerAdmission {
    private final WorkerAccess access;
    private final String worker;

    /** @param worker names the worker in refusals ("worker 3") */
    public WorkerAdmission(WorkerAccess access, String worker) {
        this.access = requireNonNull(access, "access is null");
        this.worker = requireNonNull(worker, "worker is null");
    }

    /**
     * The admission of one connection.
     *
     * @param peerUid the connecting process's uid on a Unix socket; empty on TCP
     */
    public Admission forPeer(OptionalInt peerUid) {
        return hello -> decide(hello, peerUid);
    }

    private Decision decide(Hello hello, OptionalInt peerUid) {
        Principal owner = access.owner();
        switch (owner.kind()) {
            case ANONYMOUS:
                return hello.principal().isEmpty()
                        ? new Decision.Admit(Principal.ANONYMOUS)
                        : new Decision.Refuse(UromStatus.NOT_PERMITTED, worker + " belongs to another principal");
            case UNIX:
                if (!hello.principal().isEmpty()) {
                    return new Decision.Refuse(
                            UromStatus.NOT_PERMITTED,
                            worker + " belongs to a Unix user; connect as that user, without a key");
                }
                if (peerUid.isEmpty() || peerUid.getAsInt() != owner.uid()) {
                    return new Decision.Refuse(UromStatus.NOT_PERMITTED, worker + " belongs to another principal");
                }
                return new Decision.Admit(owner);
            default:
                if (hello.principal().isEmpty()) {
                    return new Decision.Refuse(UromStatus.NOT_PERMITTED, worker + " belongs to another principal");
                }
                if (!hello.principal().equals(owner.name())) {
                    // challenged like the owner, so that trying names does not tell whose worker this is
                    // (no proof can match the random key, so the principal given here is never admitted)
                    return new Decision.ProveKey(
                            owner, Proofs.randomSecret(32), worker + " belongs to another principal");
                }
                return new Decision.ProveKey(owner, access.dataKey().orElseThrow(), null);
        }
    }
}
