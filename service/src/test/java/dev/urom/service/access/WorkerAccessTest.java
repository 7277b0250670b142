// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.access;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.auth.AuthKey;
import dev.urom.auth.Principal;
import dev.urom.auth.Proofs;
import dev.urom.service.process.WorkerLine;
import dev.urom.service.process.WorkerLines;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class WorkerAccessTest {
    private static final HexFormat HEX = HexFormat.of();
    private static final AuthKey KEY = AuthKey.of("alice", "a".repeat(32).getBytes(StandardCharsets.US_ASCII));
    private static final byte[] DAEMON_SECRET = "d".repeat(32).getBytes(StandardCharsets.US_ASCII);
    private static final String SEAL = "5e".repeat(32);
    private static final String DATA = "da".repeat(32);

    @Test
    void aKeyOwnersWorkerHoldsTheDerivedKeysNeverTheKeyItself() {
        WorkerAccess access = WorkerAccess.of(KEY.principal(), Optional.of(KEY), DAEMON_SECRET);

        assertThat(access.owner()).isEqualTo(Principal.key("alice"));
        assertThat(access.dataKey()).hasValueSatisfying(k -> assertThat(k).isEqualTo(Proofs.dataKey(KEY)));
        assertThat(access.sealKey()).isEqualTo(Proofs.sealKey(KEY));
        assertThat(WorkerLines.encode(new WorkerLine.Access(access)))
                .isEqualTo("ACCESS key:alice " + HEX.formatHex(Proofs.dataKey(KEY)) + " "
                        + HEX.formatHex(Proofs.sealKey(KEY)))
                .doesNotContain(HEX.formatHex(Proofs.controlKey(KEY)));
    }

    @Test
    void aUnixOwnersWorkerHasNoDataKeyAndASealKeyOfTheDaemonsSecret() {
        WorkerAccess access = WorkerAccess.of(Principal.unix(1000), Optional.empty(), DAEMON_SECRET);

        assertThat(access.dataKey()).isEmpty();
        assertThat(access.sealKey()).isEqualTo(Proofs.sealKey(DAEMON_SECRET, Principal.unix(1000)));
        assertThat(WorkerLines.encode(new WorkerLine.Access(access)))
                .isEqualTo("ACCESS unix:1000 - " + HEX.formatHex(access.sealKey()));
    }

    @Test
    void twoOwnersAtOneDaemonHaveDifferentSealKeys() {
        assertThat(WorkerAccess.of(Principal.unix(1000), Optional.empty(), DAEMON_SECRET)
                        .sealKey())
                .isNotEqualTo(WorkerAccess.of(Principal.unix(1001), Optional.empty(), DAEMON_SECRET)
                        .sealKey())
                .isNotEqualTo(WorkerAccess.of(Principal.ANONYMOUS, Optional.empty(), DAEMON_SECRET)
                        .sealKey());
    }

    @Test
    void aKeyOwnerWithoutItsKeyIsAnError() {
        assertThatThrownBy(() -> WorkerAccess.of(KEY.principal(), Optional.empty(), DAEMON_SECRET))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("key:alice has no key");
    }

    @Test
    void toStringAndTheKeyAccessorsGiveAwayNothing() {
        WorkerAccess access = WorkerAccess.of(KEY.principal(), Optional.of(KEY), DAEMON_SECRET);
        assertThat(access.toString()).isEqualTo("WorkerAccess[owner=key:alice]");

        access.sealKey()[0] ^= 1;
        access.dataKey().orElseThrow()[0] ^= 1;

        assertThat(access.sealKey()).as("a copy each time").isEqualTo(Proofs.sealKey(KEY));
        assertThat(access.dataKey().orElseThrow()).isEqualTo(Proofs.dataKey(KEY));
    }
}
