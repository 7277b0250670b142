// SPDX-License-Identifier: Apache-2.0
package dev.urom.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class ProofsTest {
    private static final AuthKey KEY = AuthKey.of("jobA", filled(0x5a));

    private static byte[] filled(int value) {
        byte[] b = new byte[32];
        Arrays.fill(b, (byte) value);
        return b;
    }

    private static Proofs.Transcript transcript(Proofs.Channel channel, String principal, byte[] serverNonce) {
        return new Proofs.Transcript(channel, 1, principal, filled(1), serverNonce);
    }

    @Test
    void eachSideAndEachPartOfTheTranscriptGivesADifferentProof() {
        byte[] key = Proofs.controlKey(KEY);
        byte[] client = Proofs.clientProof(key, transcript(Proofs.Channel.CONTROL, "jobA", filled(2)));
        assertThat(client)
                .hasSize(Proofs.MAC_BYTES)
                .isEqualTo(Proofs.clientProof(key, transcript(Proofs.Channel.CONTROL, "jobA", filled(2))));
        assertThat(Proofs.serverProof(key, transcript(Proofs.Channel.CONTROL, "jobA", filled(2))))
                .isNotEqualTo(client);
        assertThat(Proofs.clientProof(key, transcript(Proofs.Channel.DATA, "jobA", filled(2))))
                .isNotEqualTo(client);
        assertThat(Proofs.clientProof(key, transcript(Proofs.Channel.CONTROL, "jobB", filled(2))))
                .isNotEqualTo(client);
        assertThat(Proofs.clientProof(key, transcript(Proofs.Channel.CONTROL, "jobA", filled(3))))
                .isNotEqualTo(client);
    }

    @Test
    void derivedKeysDifferFromTheKeyAndFromEachOther() {
        assertThat(Proofs.dataKey(KEY)).isNotEqualTo(Proofs.controlKey(KEY)).isNotEqualTo(Proofs.sealKey(KEY));
        assertThat(Proofs.sealKey(filled(9), Principal.unix(1)))
                .isNotEqualTo(Proofs.sealKey(filled(9), Principal.unix(2)));
    }

    @Test
    void aSealBindsThePluginIdAndTheAddress() {
        byte[] key = Proofs.sealKey(KEY);
        byte[] seal = Proofs.seal(key, 1, "unix:/a".getBytes());
        assertThat(Proofs.same(seal, Proofs.seal(key, 1, "unix:/a".getBytes()))).isTrue();
        assertThat(Proofs.same(seal, Proofs.seal(key, 2, "unix:/a".getBytes()))).isFalse();
        assertThat(Proofs.same(seal, Proofs.seal(key, 1, "unix:/b".getBytes()))).isFalse();
        assertThat(Proofs.same(
                        seal, Proofs.seal(Proofs.sealKey(AuthKey.of("jobB", filled(0x5a))), 1, "unix:/a".getBytes())))
                .isFalse();
        assertThat(Proofs.same(seal, null)).isFalse();
    }

    @Test
    void aSealBindsTheTransportName() {
        byte[] key = Proofs.sealKey(KEY);
        byte[] seal = Proofs.seal(key, 1, "ucp-tag", "addr".getBytes());
        assertThat(Proofs.same(seal, Proofs.seal(key, 1, "ucp-tag", "addr".getBytes())))
                .isTrue();
        assertThat(Proofs.same(seal, Proofs.seal(key, 1, "ucp-tah", "addr".getBytes())))
                .as("another transport")
                .isFalse();
        assertThat(Proofs.same(seal, Proofs.seal(key, 1, "addr".getBytes())))
                .as("no transport")
                .isFalse();
        // the name is length-prefixed: moving bytes between the name and the address changes the seal
        assertThat(Proofs.same(seal, Proofs.seal(key, 1, "ucp-ta", "gaddr".getBytes())))
                .isFalse();
        assertThat(Proofs.same(Proofs.seal(key, 1, "", "a".getBytes()), Proofs.seal(key, 1, "a".getBytes())))
                .as("'' is none")
                .isTrue();
    }

    @Test
    void noncesAreFresh() {
        assertThat(Proofs.nonce()).hasSize(Proofs.NONCE_BYTES).isNotEqualTo(Proofs.nonce());
    }
}
