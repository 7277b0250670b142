// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.spi.DomainLookups;
import dev.urom.spi.PluginIface;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The transport a Java plugin names: checked when it is loaded, handed to its look-ups, kept by the host. */
class WorkerHostTransportTest {
    private final Map<Path, PluginIface> plugins = new HashMap<>();
    private final Map<Long, Optional<String>> asked = new HashMap<>();
    private WorkerHost host;

    @AfterEach
    void closeHost() {
        if (host != null) {
            host.close();
        }
    }

    /** An echo plugin whose transport() answers what {@code transport} gives (or throws). */
    private void register(String path, Supplier<Optional<String>> transport) {
        plugins.put(Path.of(path), new EchoPlugin(path) {
            @Override
            public Optional<String> transport() {
                return transport.get();
            }
        });
    }

    private WorkerHost open(String... items) {
        WorkerHostConfig config = WorkerHostConfig.defaults().withDomains((id, transport) -> {
            asked.put(id, transport);
            return DomainLookups.none();
        });
        PluginLoader loader = path -> plugins.get(path);
        return WorkerHost.open(1, PluginSpec.parseAll(List.of(items)), loader, config);
    }

    @Test
    void aValidTransportReachesTheLookUpsAndTheHost() {
        register("/p/ucp.jar", () -> Optional.of("ucp-tag"));
        register("/p/plain.jar", Optional::empty);
        host = open("/p/ucp.jar:1", "/p/plain.jar:2");

        assertThat(host.failures()).isEmpty();
        assertThat(asked).containsEntry(1L, Optional.of("ucp-tag")).containsEntry(2L, Optional.empty());
        assertThat(host.transport(1)).contains("ucp-tag");
        assertThat(host.transport(2)).isEmpty();
        assertThat(host.transport(4)).as("no such plugin").isEmpty();
    }

    @Test
    void anInvalidTransportFailsTheLoadWithOneLine() {
        register("/p/space.jar", () -> Optional.of("ucp tag"));
        register("/p/long.jar", () -> Optional.of("t".repeat(65)));
        register("/p/empty.jar", () -> Optional.of(""));
        register("/p/null.jar", () -> null);
        register("/p/throws.jar", () -> {
            throw new IllegalStateException("no transport today");
        });
        register("/p/fine.jar", () -> Optional.of("tcp"));
        host = open(
                "/p/space.jar:1",
                "/p/long.jar:2",
                "/p/empty.jar:4",
                "/p/null.jar:8",
                "/p/throws.jar:16",
                "/p/fine.jar:32");

        Map<Long, PluginFailure> failures = host.failures();
        assertThat(failures.keySet()).containsExactly(1L, 2L, 4L, 8L, 16L);
        assertThat(failures.get(1L).status()).isEqualTo(UromStatus.INVALID_VALUE);
        assertThat(failures.get(1L).toString())
                .contains("/p/space.jar")
                .endsWith(
                        "INVALID_VALUE: cannot be loaded: the transport name has character U+0020 at index 3, not one of [A-Za-z0-9._:/-]");
        assertThat(failures.get(2L).reason())
                .isEqualTo("cannot be loaded: the transport name has 65 characters, more than 64");
        assertThat(failures.get(4L).reason()).isEqualTo("cannot be loaded: the transport name is empty");
        assertThat(failures.get(8L).reason()).isEqualTo("cannot be loaded: transport() returned null, not an Optional");
        assertThat(failures.get(16L).status()).isEqualTo(UromStatus.UNEXPECTED);
        assertThat(failures.get(16L).reason())
                .isEqualTo("cannot be loaded: transport() threw java.lang.IllegalStateException: no transport today");
        assertThat(host.plugin(1)).as("never opened").isEmpty();
        assertThat(asked).containsOnlyKeys(32L);
        assertThat(host.transport(32)).contains("tcp");
    }

    @Test
    void aFailedPluginsCommandsAreAnsweredWithItsStatus() {
        register("/p/space.jar", () -> Optional.of("a b"));
        host = open("/p/space.jar:1");
        assertThat(host.call(new WorkerCommand(1, 1, 9, new byte[0]), Duration.ofSeconds(5))
                        .status())
                .isEqualTo(UromStatus.INVALID_VALUE);
    }
}
