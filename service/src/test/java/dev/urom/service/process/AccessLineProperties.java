// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.auth.AuthKey;
import dev.urom.auth.Principal;
import dev.urom.service.access.WorkerAccess;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** The ACCESS line as a codec: what {@link WorkerLines#encode} writes, {@link WorkerLines#decodeAccess} reads back, and nothing else. */
class AccessLineProperties {
    private static final HexFormat HEX = HexFormat.of();

    /** The fields of an ACCESS line, one of which a malformed line spoils. */
    enum Field {
        OWNER,
        DATA_KEY,
        SEAL_KEY
    }

    record Spoiled(String line, Field field, String keysHex) {}

    @Property
    void aWorkersLineReadsBackToTheSameOwnerAndKeys(
            @ForAll("owners") Principal owner,
            @ForAll("secrets") byte[] secret,
            @ForAll("secrets") byte[] daemonSecret) {
        Optional<AuthKey> key =
                owner.kind() == Principal.Kind.KEY ? Optional.of(AuthKey.of(owner.name(), secret)) : Optional.empty();
        WorkerAccess access = WorkerAccess.of(owner, key, daemonSecret);

        WorkerAccess read = parse(line(access));

        assertThat(read.owner()).isEqualTo(owner);
        assertThat(read.dataKey().map(HEX::formatHex))
                .isEqualTo(access.dataKey().map(HEX::formatHex));
        assertThat(read.sealKey()).isEqualTo(access.sealKey());
        assertThat(line(read)).isEqualTo(line(access));
    }

    @Property
    void anyWellFormedLineIsReadAsWritten(
            @ForAll("owners") Principal owner,
            @ForAll("keys") byte[] dataKey,
            @ForAll("keys") byte[] sealKey,
            @ForAll boolean upperCase) {
        String data = owner.kind() == Principal.Kind.KEY ? HEX.formatHex(dataKey) : "-";
        String line = "ACCESS " + owner.text() + " " + data + " " + HEX.formatHex(sealKey);

        WorkerAccess read = parse(
                upperCase
                        ? line.replace(
                                HEX.formatHex(sealKey), HEX.withUpperCase().formatHex(sealKey))
                        : line);

        assertThat(read.owner()).isEqualTo(owner);
        assertThat(read.sealKey()).isEqualTo(sealKey);
        assertThat(read.dataKey().isPresent()).isEqualTo(owner.kind() == Principal.Kind.KEY);
        assertThat(line(read)).as("written in lower case").isEqualTo(line);
    }

    @Property
    void aSpoiledFieldIsRefusedInOneLineThatNamesItAndShowsNoKey(@ForAll("spoiled") Spoiled spoiled) {
        String named = switch (spoiled.field()) {
            case OWNER -> "the owner of the daemon's ACCESS line: ";
            case DATA_KEY -> "the data key ";
            case SEAL_KEY -> "the seal key ";
        };

        assertThatThrownBy(() -> parse(spoiled.line()))
                .isInstanceOf(IllegalArgumentException.class)
                .satisfies(e -> assertThat(e.getMessage())
                        .startsWith(named)
                        .doesNotContain("\n")
                        .doesNotContain("\r")
                        .doesNotContain(spoiled.keysHex()));
    }

    @Property
    void theGenericDecoderReadsTheSameAccess(
            @ForAll("owners") Principal owner,
            @ForAll("secrets") byte[] secret,
            @ForAll("secrets") byte[] daemonSecret) {
        Optional<AuthKey> key =
                owner.kind() == Principal.Kind.KEY ? Optional.of(AuthKey.of(owner.name(), secret)) : Optional.empty();
        WorkerAccess access = WorkerAccess.of(owner, key, daemonSecret);

        assertThat(WorkerLines.decode(line(access))).isEqualTo(new WorkerLine.Access(access));
        assertThat(WorkerLines.decode(line(access).getBytes(StandardCharsets.US_ASCII)))
                .isEqualTo(new WorkerLine.Access(access));
    }

    static String line(WorkerAccess access) {
        return WorkerLines.encode(new WorkerLine.Access(access));
    }

    static WorkerAccess parse(String line) {
        return WorkerLines.decodeAccess(line == null ? new byte[0] : line.getBytes(StandardCharsets.ISO_8859_1));
    }

    @Provide
    Arbitrary<Principal> owners() {
        return Arbitraries.oneOf(
                Arbitraries.longs()
                        .between(0, 0xffff_fffeL)
                        .map(uid -> new Principal(Principal.Kind.UNIX, Long.toString(uid))),
                keyNames().map(Principal::key),
                Arbitraries.just(Principal.ANONYMOUS));
    }

    @Provide
    Arbitrary<byte[]> secrets() {
        return Arbitraries.bytes()
                .array(byte[].class)
                .ofMinSize(AuthKey.MIN_SECRET_BYTES)
                .ofMaxSize(128);
    }

    @Provide
    Arbitrary<byte[]> keys() {
        return Arbitraries.bytes().array(byte[].class).ofSize(32);
    }

    /** A valid line of a key owner with one field replaced by something that is not valid there. */
    @Provide
    Arbitrary<Spoiled> spoiled() {
        Arbitrary<String> badOwner = Arbitraries.oneOf(
                Arbitraries.strings()
                        .alpha()
                        .numeric()
                        .ofMinLength(1)
                        .ofMaxLength(20)
                        .filter(s -> !s.equals("anonymous")),
                Arbitraries.strings().alpha().ofMinLength(1).ofMaxLength(10).map(s -> "unix:" + s),
                Arbitraries.longs().between(0x1_0000_0000L, Long.MAX_VALUE).map(n -> "unix:" + n),
                Arbitraries.strings()
                        .withChars("!@#$%^&*()+=/")
                        .ofMinLength(1)
                        .ofMaxLength(10)
                        .map(s -> "key:" + s));
        Arbitrary<String> badKey = Arbitraries.oneOf(
                Arbitraries.bytes()
                        .array(byte[].class)
                        .ofMinSize(1)
                        .ofMaxSize(64)
                        .filter(b -> b.length != 32)
                        .map(HEX::formatHex),
                Arbitraries.strings()
                        .withChars("0123456789abcdefg-xyz")
                        .ofMinLength(1)
                        .ofMaxLength(70)
                        .filter(s -> !s.equals("-") && (s.length() != 64 || !s.matches("[0-9a-f]+"))));
        return Combinators.combine(keyNames(), keys(), keys(), Arbitraries.of(Field.class), badOwner, badKey)
                .as((name, data, seal, field, owner, key) -> {
                    String dataHex = HEX.formatHex(data);
                    String sealHex = HEX.formatHex(seal);
                    List<String> words = switch (field) {
                        case OWNER -> List.of("ACCESS", owner, dataHex, sealHex);
                        case DATA_KEY -> List.of("ACCESS", "key:" + name, key, sealHex);
                        case SEAL_KEY -> List.of("ACCESS", "key:" + name, dataHex, key);
                    };
                    String shownKey = field == Field.SEAL_KEY ? dataHex : sealHex;
                    return new Spoiled(String.join(" ", words), field, shownKey);
                });
    }

    private static Arbitrary<String> keyNames() {
        Arbitrary<Character> first = Arbitraries.chars().alpha().numeric();
        Arbitrary<String> rest =
                Arbitraries.strings().alpha().numeric().withChars("._-").ofMaxLength(63);
        return Combinators.combine(first, rest).as((f, r) -> f + r);
    }
}
