// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.auth.AuthKey;
import dev.urom.auth.Principal;
import dev.urom.auth.Proofs;
import dev.urom.framework.auth.KeyDirectory;
import dev.urom.service.testkit.TestKeys;
import dev.urom.spi.UromStatus;
import dev.urom.wire.Message.Hello;
import dev.urom.wire.Role;
import dev.urom.wire.ServerHandshake.Decision;
import java.nio.file.Path;
import java.util.OptionalInt;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Who may open a control connection, decision by decision, with a real key directory. */
class ControlAdmissionTest {
    private static final OptionalInt TCP = OptionalInt.empty();
    private static final OptionalInt UNIX_USER_1234 = OptionalInt.of(1234);

    @TempDir
    Path dir;

    private KeyDirectory keys;
    private AuthKey alice;

    @BeforeEach
    void setUp() throws Exception {
        Path directory = TestKeys.directory(dir, "alice");
        keys = KeyDirectory.open(directory);
        alice = TestKeys.key(directory, "alice");
    }

    private static Decision decide(ControlAdmission admission, OptionalInt peer, Hello hello) {
        return admission.forConnection(peer).decide(hello);
    }

    private static void assertRefused(Decision decision, UromStatus status, String message) {
        assertThat(decision).isEqualTo(new Decision.Refuse(status, message));
    }

    @Test
    void onlyHostsAreServedWhateverTheyClaim() {
        ControlAdmission admission = new ControlAdmission(keys, true);
        for (OptionalInt peer : new OptionalInt[] {TCP, UNIX_USER_1234}) {
            for (String name : new String[] {"", "alice"}) {
                assertRefused(
                        decide(admission, peer, Hello.of(Role.WORKER, name)),
                        UromStatus.NOT_PERMITTED,
                        "the daemon serves hosts; this connection said it is a WORKER");
            }
        }
    }

    @Test
    void aUnixHostWithoutAKeyIsTheUserTheKernelNames() {
        assertThat(decide(new ControlAdmission(keys, false), UNIX_USER_1234, Hello.of(Role.HOST)))
                .isEqualTo(new Decision.Admit(Principal.unix(1234)));
        assertThat(decide(new ControlAdmission(null, false), OptionalInt.of(0), Hello.of(Role.HOST)))
                .isEqualTo(new Decision.Admit(Principal.unix(0)));
    }

    @Test
    void aTcpHostWithoutAKeyIsRefusedUnlessTheListenerIsInsecureAndThenAnonymous() {
        String refusal = "this daemon admits TCP hosts that prove a key: give one with --auth-key-file or "
                + AuthKey.ENVIRONMENT_VARIABLE;
        assertRefused(
                decide(new ControlAdmission(keys, false), TCP, Hello.of(Role.HOST)),
                UromStatus.AUTHENTICATION,
                refusal);
        assertRefused(
                decide(new ControlAdmission(null, false), TCP, Hello.of(Role.HOST)),
                UromStatus.AUTHENTICATION,
                refusal);
        assertThat(decide(new ControlAdmission(keys, true), TCP, Hello.of(Role.HOST)))
                .isEqualTo(new Decision.Admit(Principal.ANONYMOUS));
    }

    @Test
    void aKnownNameMustProveItsKeyEvenOnAnInsecureListenerOrAUnixSocket() {
        for (boolean insecure : new boolean[] {false, true}) {
            for (OptionalInt peer : new OptionalInt[] {TCP, UNIX_USER_1234}) {
                ControlAdmission.Connection connection = new ControlAdmission(keys, insecure).forConnection(peer);
                Decision decision = connection.decide(Hello.of(Role.HOST, "alice"));

                assertThat(decision).isInstanceOfSatisfying(Decision.ProveKey.class, prove -> {
                    assertThat(prove.principal()).isEqualTo(Principal.key("alice"));
                    assertThat(prove.macKey()).isEqualTo(Proofs.controlKey(alice));
                    assertThat(prove.unknownReason()).isNull();
                });
                assertThat(connection.key())
                        .hasValueSatisfying(k -> assertThat(k.principal()).isEqualTo(Principal.key("alice")));
            }
        }
    }

    @Test
    void anUnknownNameIsChallengedWithAFreshRandomKeyAndTheLogReasonSaysWhy() {
        ControlAdmission admission = new ControlAdmission(keys, false);
        ControlAdmission.Connection first = admission.forConnection(TCP);
        ControlAdmission.Connection second = admission.forConnection(TCP);

        Decision.ProveKey one = (Decision.ProveKey) first.decide(Hello.of(Role.HOST, "mallory"));
        Decision.ProveKey two = (Decision.ProveKey) second.decide(Hello.of(Role.HOST, "mallory"));

        assertThat(one.principal()).isEqualTo(Principal.key("mallory"));
        assertThat(one.unknownReason())
                .isEqualTo("the key directory " + keys.directory() + " has no usable key for it");
        assertThat(one.macKey()).hasSize(32).isNotEqualTo(two.macKey()).isNotEqualTo(Proofs.controlKey(alice));
        assertThat(first.key()).isEmpty();
    }

    @Test
    void aClaimedNameThatIsNotAKeyNameOrWithoutKeysAtTheDaemonIsRefused() {
        assertRefused(
                decide(new ControlAdmission(keys, false), TCP, Hello.of(Role.HOST, "../alice")),
                UromStatus.AUTHENTICATION,
                "the key name claimed is not a valid key name");
        assertRefused(
                decide(new ControlAdmission(null, true), TCP, Hello.of(Role.HOST, "alice")),
                UromStatus.AUTHENTICATION,
                "this daemon has no keys");
        assertRefused(
                decide(new ControlAdmission(null, false), UNIX_USER_1234, Hello.of(Role.HOST, "alice")),
                UromStatus.AUTHENTICATION,
                "this daemon has no keys: connect without a key (unset " + AuthKey.ENVIRONMENT_VARIABLE
                        + ", no --auth-key-file) to be known by your Unix user");
    }
}
