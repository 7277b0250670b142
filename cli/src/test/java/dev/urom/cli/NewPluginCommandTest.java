// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command's own refusals, one line each; what it writes is PluginScaffoldTest's and DistributionIT's. */
class NewPluginCommandTest {
    @TempDir
    Path dir;

    private CliRunner.Run newPlugin(String... args) {
        String[] all = new String[args.length + 1];
        all[0] = "new-plugin";
        System.arraycopy(args, 0, all, 1, args.length);
        return CliRunner.run(null, all);
    }

    @Test
    void anUnknownLanguageIsAUsageError() {
        CliRunner.Run run = newPlugin("demo", "--lang", "rust", "--dir", dir.toString());

        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err().lines().findFirst())
                .hasValue("urom new-plugin: --lang 'rust' is not a plugin language; use c or java");
    }

    @Test
    void aPackageForACPluginIsAUsageError() {
        CliRunner.Run run = newPlugin("demo", "--lang", "c", "--package", "org.acme", "--dir", dir.toString());

        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err()).startsWith("urom new-plugin: --package is for --lang java only");
    }

    @Test
    void aBadNameOrPackageOrFolderFailsInOneLineBeforeAnythingIsWritten() throws Exception {
        CliRunner.Run name = newPlugin("Demo", "--lang", "c", "--dir", dir.toString());
        CliRunner.Run keyword = newPlugin("int", "--lang", "java", "--dir", dir.toString());
        CliRunner.Run folder =
                newPlugin("demo", "--lang", "c", "--dir", dir.resolve("absent").toString());

        assertThat(name.status()).isEqualTo(2);
        assertThat(name.errLines())
                .containsExactly(
                        "urom new-plugin: plugin name 'Demo' is not lower-case letters, digits and underscores starting with a letter",
                        "(see: urom new-plugin --help)");
        assertThat(keyword.status()).isEqualTo(2);
        assertThat(keyword.errLines().get(0))
                .isEqualTo("urom new-plugin: Java package 'com.example.int' is not a lower-case Java package name"
                        + " (dot-separated identifiers, no keyword); choose one with --package");
        assertThat(folder.status()).isEqualTo(2);
        assertThat(folder.errLines().get(0))
                .isEqualTo("urom new-plugin: --dir " + dir.resolve("absent") + " is not a folder");
        assertThat(Files.list(dir)).isEmpty();
    }

    @Test
    void outsideADistributionItSaysSo() throws Exception {
        CliRunner.Run run = newPlugin("demo", "--lang", "c", "--dir", dir.toString());

        assertThat(run.status()).isEqualTo(1);
        assertThat(run.err().strip())
                .startsWith("urom new-plugin: not run from a distribution but from ")
                .endsWith("; use the bin/urom of one");
        assertThat(Files.list(dir)).isEmpty();
    }
}
