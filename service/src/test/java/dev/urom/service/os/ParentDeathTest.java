// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.os;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.framework.security.UnixAccounts;
import dev.urom.nativebridge.testkit.UserNamespaces;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ParentDeathTest {
    private Process shell;
    private ProcessHandle grandchild;

    @AfterEach
    void destroy() throws InterruptedException {
        if (grandchild != null) {
            grandchild.destroyForcibly();
        }
        if (shell != null) {
            shell.destroyForcibly();
            shell.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private static String quotedProbe() {
        List<String> quoted = new ArrayList<>();
        for (String word : ChildJvm.command(ParentDeathProbe.class, List.of(), List.of())) {
            quoted.add("'" + word.replace("'", "'\\''") + "'");
        }
        return String.join(" ", quoted);
    }

    @Test
    void aParentThatIsPidOneIsNotTakenForDead() throws Exception {
        // In a container the daemon is the entrypoint: pid 1 of its pid namespace. sh plays it here.
        // A user who is not root needs a user namespace of its own to make a pid namespace.
        List<String> command = new ArrayList<>(List.of("unshare"));
        if (UnixAccounts.effectiveUid() != 0) {
            UserNamespaces.assumeAvailable();
            command.addAll(List.of("--user", "--map-root-user"));
        }
        command.addAll(List.of("--pid", "--fork", "--kill-child", "sh", "-c", quotedProbe() + " & wait"));
        shell = new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        BufferedReader out = new BufferedReader(new InputStreamReader(shell.getInputStream(), StandardCharsets.UTF_8));

        assertThat(out.readLine()).as("the probe armed instead of halting").startsWith("ARMED ");
    }

    @Test
    void theChildIsKilledWhenItsParentIsKilled() throws Exception {
        // sh stays the probe's parent: kill it and the probe must die with it.
        shell = new ProcessBuilder("sh", "-c", quotedProbe() + " & wait")
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        BufferedReader out = new BufferedReader(new InputStreamReader(shell.getInputStream(), StandardCharsets.UTF_8));
        String line = out.readLine();
        assertThat(line).startsWith("ARMED ");
        long pid = Long.parseLong(line.substring("ARMED ".length()));
        Optional<ProcessHandle> handle = ProcessHandle.of(pid);
        assertThat(handle).isPresent();
        grandchild = handle.get();
        assertThat(grandchild.parent().map(ProcessHandle::pid)).contains(shell.pid());

        shell.destroyForcibly();
        assertThat(grandchild.onExit().get(30, TimeUnit.SECONDS).isAlive()).isFalse();
    }
}
