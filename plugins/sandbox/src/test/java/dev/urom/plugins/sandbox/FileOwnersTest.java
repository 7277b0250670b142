// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link FileOwners} on the owners of real files, as any user: the foreign file is one this test's
 * user does not own ({@link OwnerFixtures#notMine}), its owner read the way MEM_MAP reads it.
 */
class FileOwnersTest {
    @TempDir
    Path dir;

    @Test
    void onlyTheWorkersUserAndUromOwnerUidOwnAcceptedFiles() throws Exception {
        long me = OwnerFixtures.myUid(dir);
        long owner;
        try (FileChannel channel = FileChannel.open(OwnerFixtures.notMine(dir), StandardOpenOption.READ)) {
            owner = OpenFileStatus.of(channel).uid();
        }
        long other = owner == OwnerFixtures.NOBODY ? OwnerFixtures.NOBODY - 1 : owner + 1;
        long mine;
        try (FileChannel channel =
                FileChannel.open(Files.write(dir.resolve("mine"), new byte[1]), StandardOpenOption.READ)) {
            mine = OpenFileStatus.of(channel).uid();
        }

        FileOwners unset = FileOwners.fromEnvironment(name -> null, me);
        FileOwners theOwner = FileOwners.fromEnvironment(Map.of(FileOwners.VARIABLE, Long.toString(owner))::get, me);
        FileOwners another = FileOwners.fromEnvironment(Map.of(FileOwners.VARIABLE, Long.toString(other))::get, me);

        assertThat(unset.accepts(owner)).as("no UROM_OWNER_UID").isFalse();
        assertThat(another.accepts(owner)).as("another UROM_OWNER_UID").isFalse();
        assertThat(theOwner.accepts(owner)).as("UROM_OWNER_UID is the owner").isTrue();
        assertThat(new boolean[] {unset.accepts(mine), another.accepts(mine), theOwner.accepts(mine)})
                .as("the worker's own file")
                .containsOnly(true);
        assertThat(another.describe()).isEqualTo("uid " + me + " (the worker) and uid " + other + " (UROM_OWNER_UID)");
        assertThat(unset.describe()).isEqualTo("uid " + me + " (the worker; UROM_OWNER_UID is not set)");
    }

    @Test
    void theWorkersUidIsTheUidThatOwnsWhatThisProcessCreates() throws Exception {
        assertThat(FileOwners.effectiveUid()).isEqualTo(OwnerFixtures.myUid(dir));
    }
}
