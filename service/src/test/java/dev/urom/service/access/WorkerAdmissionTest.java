// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.access;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.auth.AuthKey;
import dev.urom.auth.Principal;
import dev.urom.auth.Proofs;
import dev.urom.spi.UromStatus;
import dev.urom.wire.Message.Challenge;
import dev.urom.wire.Message.ErrorReply;
import dev.urom.wire.Message.Hello;
import dev.urom.wire.Message.HelloOk;
import dev.urom.wire.Message.Proof;
import dev.urom.wire.Role;
import dev.urom.wire.ServerHandshake;
import dev.urom.wire.ServerHandshake.Decision;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.OptionalInt;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class WorkerAdmissionTest {
    private static final AuthKey ALICE = AuthKey.of("alice", "a".repeat(32).getBytes(StandardCharsets.US_ASCII));
    private static final AuthKey ALICE_OTHER_SECRET =
            AuthKey.of("alice", "b".repeat(32).getBytes(StandardCharsets.US_ASCII));
    private static final byte[] DAEMON_SECRET = "d".repeat(32).getBytes(StandardCharsets.US_ASCII);
    private static final OptionalInt TCP = OptionalInt.empty();
    private static final String OTHER_PRINCIPAL = "worker 3 belongs to another principal";

    private static WorkerAdmission unixOwned(int uid) {
        return new WorkerAdmission(WorkerAccess.of(Principal.unix(uid), Optional.empty(), DAEMON_SECRET), "worker 3");
    }

    private static WorkerAdmission keyOwned() {
        return new WorkerAdmission(WorkerAccess.of(ALICE.principal(), Optional.of(ALICE), DAEMON_SECRET), "worker 3");
    }

    private static WorkerAdmission anonymous() {
        return new WorkerAdmission(WorkerAccess.of(Principal.ANONYMOUS, Optional.empty(), DAEMON_SECRET), "worker 3");
    }

    private static Decision decide(WorkerAdmission admission, OptionalInt peerUid, String claimed) {
        return admission.forPeer(peerUid).decide(Hello.of(Role.HOST, claimed));
    }

    @Test
    void aUnixOwnersUidIsLetInAsThatUser() {
        assertThat(decide(unixOwned(1000), OptionalInt.of(1000), ""))
                .isEqualTo(new Decision.Admit(Principal.unix(1000)));
    }

    @Property
    void aUnixOwnedWorkerLetsInItsOwnersUidAndNoOtherUid(
            @ForAll @IntRange(min = 0, max = 70000) int owner, @ForAll @IntRange(min = 0, max = 70000) int peer) {
        Decision decision = decide(unixOwned(owner), OptionalInt.of(peer), "");

        if (peer == owner) {
            assertThat(decision).isEqualTo(new Decision.Admit(Principal.unix(owner)));
        } else {
            assertThat(decision).isEqualTo(new Decision.Refuse(UromStatus.NOT_PERMITTED, OTHER_PRINCIPAL));
        }
    }

    @Test
    void rootIsNoOwnerOfAnotherUsersWorker() {
        assertThat(decide(unixOwned(1000), OptionalInt.of(0), ""))
                .isEqualTo(new Decision.Refuse(UromStatus.NOT_PERMITTED, OTHER_PRINCIPAL));
    }

    @Test
    void aUnixOwnedWorkerLetsNobodyInOverTcp() {
        assertThat(decide(unixOwned(1000), TCP, ""))
                .isEqualTo(new Decision.Refuse(UromStatus.NOT_PERMITTED, OTHER_PRINCIPAL));
    }

    @Test
    void aUnixOwnedWorkerRefusesAKeyClaimEvenFromItsOwnersUid() {
        assertThat(decide(unixOwned(1000), OptionalInt.of(1000), "alice"))
                .isEqualTo(new Decision.Refuse(
                        UromStatus.NOT_PERMITTED,
                        "worker 3 belongs to a Unix user; connect as that user, without a key"));
    }

    @Test
    void aKeyOwnedWorkerAsksItsOwnerToProveTheDataKey() {
        for (OptionalInt peer : new OptionalInt[] {TCP, OptionalInt.of(0), OptionalInt.of(1000)}) {
            Decision decision = decide(keyOwned(), peer, "alice");

            assertThat(decision).isInstanceOfSatisfying(Decision.ProveKey.class, prove -> {
                assertThat(prove.principal()).isEqualTo(ALICE.principal());
                assertThat(prove.macKey())
                        .as("the data-channel key, not the key itself")
                        .isEqualTo(Proofs.dataKey(ALICE))
                        .isNotEqualTo(Proofs.controlKey(ALICE));
                assertThat(prove.unknownReason()).isNull();
            });
        }
    }

    @Test
    void aKeyOwnedWorkerRefusesAHostWithoutAKeyAndChallengesAnyOtherNameWithAKeyNoProofMatches() {
        for (OptionalInt peer : new OptionalInt[] {TCP, OptionalInt.of(0), OptionalInt.of(1000)}) {
            assertThat(decide(keyOwned(), peer, ""))
                    .isEqualTo(new Decision.Refuse(UromStatus.NOT_PERMITTED, OTHER_PRINCIPAL));
            assertThat(decide(keyOwned(), peer, "bob")).isInstanceOfSatisfying(Decision.ProveKey.class, prove -> {
                assertThat(prove.unknownReason()).isEqualTo(OTHER_PRINCIPAL);
                assertThat(prove.macKey()).hasSize(32).isNotEqualTo(Proofs.dataKey(ALICE));
            });
        }
    }

    @Test
    void anAnonymousWorkerLetsInWhoeverClaimsNoKey() {
        assertThat(decide(anonymous(), TCP, "")).isEqualTo(new Decision.Admit(Principal.ANONYMOUS));
        assertThat(decide(anonymous(), TCP, "alice"))
                .isEqualTo(new Decision.Refuse(UromStatus.NOT_PERMITTED, OTHER_PRINCIPAL));
    }

    @Test
    void theWholeHandshakeOpensForTheDataKeysProofOnly() {
        assertThat(handshakeProving(ALICE, Proofs.Channel.DATA))
                .isInstanceOfSatisfying(
                        HelloOk.class, ok -> assertThat(ok.principal()).isEqualTo("key:alice"));
        assertThat(handshakeProving(ALICE, Proofs.Channel.CONTROL))
                .as("the principal's own key, as on the control channel")
                .isInstanceOfSatisfying(
                        ErrorReply.class, e -> assertThat(e.status()).isEqualTo(UromStatus.AUTHENTICATION));
        assertThat(handshakeProving(ALICE_OTHER_SECRET, Proofs.Channel.DATA))
                .as("another secret under the same name")
                .isInstanceOfSatisfying(
                        ErrorReply.class,
                        e -> assertThat(e)
                                .isEqualTo(
                                        new ErrorReply(
                                                UromStatus.AUTHENTICATION,
                                                "authentication failed: the proof does not match the key of principal 'alice'")));
    }

    /** The reply to the PROOF that {@code key} makes for {@code channel} at a worker of {@link #ALICE}, over TCP. */
    private static Object handshakeProving(AuthKey key, Proofs.Channel channel) {
        ServerHandshake handshake =
                new ServerHandshake(Proofs.Channel.DATA, keyOwned().forPeer(TCP), 4096, 1, 8);
        Hello hello = Hello.of(Role.HOST, key.name());
        ServerHandshake.Step challenged = handshake.receive(hello);
        assertThat(challenged.state()).isEqualTo(ServerHandshake.State.AWAITING_PROOF);
        byte[] serverNonce = ((Challenge) challenged.reply()).nonce();
        byte[] macKey = channel == Proofs.Channel.DATA ? Proofs.dataKey(key) : Proofs.controlKey(key);
        Proofs.Transcript transcript =
                new Proofs.Transcript(channel, Role.HOST.code(), key.name(), hello.nonce(), serverNonce);
        ServerHandshake.Step step = handshake.receive(new Proof(Proofs.clientProof(macKey, transcript)));
        assertThat(step.state()).isIn(ServerHandshake.State.OPEN, ServerHandshake.State.REFUSED);
        return step.reply();
    }
}
