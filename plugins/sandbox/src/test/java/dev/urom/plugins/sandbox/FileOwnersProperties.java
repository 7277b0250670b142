// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/** How {@link FileOwners} reads {@code UROM_OWNER_UID}: a decimal uid, or the plugin does not open. */
class FileOwnersProperties {
    private static final long WORKER = 4242;

    @Property
    void aDecimalUidUpToTheLargestIsThatUid(
            @ForAll @LongRange(min = 0, max = FileOwners.MAX_UID) long uid,
            @ForAll @IntRange(min = 0, max = 12) int leadingZeros)
            throws UromException {
        FileOwners owners = parse("0".repeat(leadingZeros) + uid);
        assertThat(owners.accepts(uid)).isTrue();
        assertThat(owners.accepts(WORKER)).isTrue();
        assertThat(owners.describe()).endsWith("and uid " + uid + " (UROM_OWNER_UID)");
    }

    @Property
    void aNumberAboveTheLargestUidIsABadConfig(@ForAll @LongRange(min = FileOwners.MAX_UID + 1) long uid) {
        assertBadConfig(Long.toString(uid));
    }

    @Property
    void anythingButDigitsIsABadConfig(@ForAll("notOnlyDigits") String text) {
        assertBadConfig(text);
    }

    @Property
    void unsetAcceptsOnlyTheWorker(@ForAll @LongRange(min = 0, max = FileOwners.MAX_UID) long uid)
            throws UromException {
        Assume.that(uid != WORKER);
        FileOwners owners = FileOwners.fromEnvironment(name -> null, WORKER);
        assertThat(owners.accepts(uid)).isFalse();
        assertThat(owners.accepts(WORKER)).isTrue();
    }

    @Provide
    Arbitrary<String> notOnlyDigits() {
        return Arbitraries.strings()
                .ofMaxLength(14)
                .filter(text -> text.isEmpty() || !text.chars().allMatch(c -> c >= '0' && c <= '9'));
    }

    private static FileOwners parse(String text) throws UromException {
        return FileOwners.fromEnvironment(Map.of(FileOwners.VARIABLE, text)::get, WORKER);
    }

    private static void assertBadConfig(String text) {
        assertThatThrownBy(() -> parse(text)).isInstanceOfSatisfying(UromException.class, e -> {
            assertThat(e.status()).isEqualTo(UromStatus.BAD_CONFIG);
            assertThat(e.getMessage()).startsWith("UROM_OWNER_UID='").contains("is not a decimal uid");
        });
    }
}
