// SPDX-License-Identifier: Apache-2.0
package dev.urom.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KeyFileRulesTest {
    @TempDir
    Path dir;

    @Test
    void theEffectiveUidReadFromProcIsTheOwnerOfAFileThisProcessCreates() throws IOException {
        Path made = Files.createFile(dir.resolve("mine"));

        assertThat(KeyFileRules.effectiveUid()).isEqualTo(Files.getAttribute(made, "unix:uid"));
        assertThat(KeyFileRules.trustedOwners()).isEqualTo(new HashSet<>(List.of(0, KeyFileRules.effectiveUid())));
    }
}
