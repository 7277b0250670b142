// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.auth.AuthKey;
import dev.urom.service.access.WorkerAccess;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The ACCESS line read back, and the one-line errors of a malformed one. */
class AccessLineTest {
    private static final AuthKey KEY = AuthKey.of("alice", "a".repeat(32).getBytes(StandardCharsets.US_ASCII));
    private static final byte[] DAEMON_SECRET = "d".repeat(32).getBytes(StandardCharsets.US_ASCII);
    private static final String SEAL = "5e".repeat(32);
    private static final String DATA = "da".repeat(32);

    @Test
    void theLineReadsBackToTheSameAccess() {
        WorkerAccess access = WorkerAccess.of(KEY.principal(), Optional.of(KEY), DAEMON_SECRET);

        WorkerAccess read = AccessLineProperties.parse(AccessLineProperties.line(access));

        assertThat(read.owner()).isEqualTo(access.owner());
        assertThat(read.dataKey().orElseThrow()).isEqualTo(access.dataKey().orElseThrow());
        assertThat(read.sealKey()).isEqualTo(access.sealKey());
        assertThat(AccessLineProperties.line(read)).isEqualTo(AccessLineProperties.line(access));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            no line at all                | <null>                                | the daemon's first line is not ACCESS <owner> <data key> <seal key>
            a STATS request               | STATS 1                               | the daemon's first line is not ACCESS <owner> <data key> <seal key>
            another first word            | access unix:5 - {seal}                | the daemon's first line is not ACCESS <owner> <data key> <seal key>
            a word missing                | ACCESS unix:5 {seal}                  | the daemon's first line is not ACCESS <owner> <data key> <seal key>
            a word too many               | ACCESS unix:5 - {seal} {seal}         | the daemon's first line is not ACCESS <owner> <data key> <seal key>
            two spaces                    | ACCESS  unix:5 - {seal}               | the daemon's first line is not ACCESS <owner> <data key> <seal key>
            a user name for an owner      | ACCESS root - {seal}                  | the owner of the daemon's ACCESS line: 'root' is not a principal (unix:UID, key:NAME or anonymous)
            a uid out of range            | ACCESS unix:4294967295 - {seal}       | the owner of the daemon's ACCESS line: '4294967295' is not a Unix uid
            a bad key name                | ACCESS key:-x {data} {seal}           | the owner of the daemon's ACCESS line: key name '-x' is not valid (1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit)
            a data key of a Unix owner    | ACCESS unix:5 {data} {seal}           | a data key comes with a key principal, and only with one (owner unix:5)
            no data key for a key owner   | ACCESS key:alice - {seal}             | a data key comes with a key principal, and only with one (owner key:alice)
            a data key of anonymous       | ACCESS anonymous {data} {seal}        | a data key comes with a key principal, and only with one (owner anonymous)
            a data key not hex            | ACCESS key:alice {notHex} {seal}      | the data key is not 32 bytes of hex
            a data key odd in length      | ACCESS key:alice {odd} {seal}         | the data key is not 32 bytes of hex
            a data key too short          | ACCESS key:alice {short} {seal}       | the data key has 31 bytes instead of 32
            a seal key not hex            | ACCESS unix:5 - {notHex}              | the seal key is not 32 bytes of hex
            a seal key too long           | ACCESS unix:5 - {long}                | the seal key has 33 bytes instead of 32
            a dash for the seal key       | ACCESS unix:5 - -                     | the seal key is not 32 bytes of hex
            """)
    void aMalformedLineIsOneLineNamingTheFieldAndNeverTheKeys(String what, String template, String message) {
        String line = template.equals("<null>")
                ? null
                : template.replace("{seal}", SEAL)
                        .replace("{data}", DATA)
                        .replace("{notHex}", "zz" + DATA.substring(2))
                        .replace("{odd}", DATA.substring(1))
                        .replace("{short}", DATA.substring(2))
                        .replace("{long}", SEAL + "00");

        assertThatThrownBy(() -> AccessLineProperties.parse(line))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(message)
                .satisfies(e -> assertThat(e.getMessage())
                        .doesNotContain(SEAL.substring(0, 16))
                        .doesNotContain(DATA.substring(2, 18)));
    }
}
