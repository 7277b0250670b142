// SPDX-License-Identifier: Apache-2.0
package dev.urom.apicheck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The API check of the published modules (urom-spi, urom-wire, urom-host, urom-testkit): each module's public
 * API, with every element's {@code @Api} status, must be the one committed in its {@code api/} file
 * (the layout of Kotlin's binary-compatibility-validator), and no public type may lack a status or
 * expose a type that promises less. A change to the API shows as a change to that file in review.
 *
 * <p>Maven's surefire passes, per module, the jar or classes folder on this test's class path
 * ({@code urom.api.<module>.classes}) and the file ({@code urom.api.<module>.file});
 * {@code -Durom.api.update=true} rewrites the files instead of comparing.
 *
 * <p>No version has been released yet, so nothing compares against one. Once one is, japicmp
 * ({@code com.github.siom79.japicmp:japicmp-maven-plugin}) against the released jars should join
 * this check for binary and source compatibility, keeping the files for review and the statuses.
 */
class PublicApiTest {
    static final String UPDATE_COMMAND =
            "mvn -pl api-check -am test -Durom.api.update=true -Dtest=PublicApiTest -Dsurefire.failIfNoSpecifiedTests=false";

    private static final Map<String, ApiListing> LISTINGS = new ConcurrentHashMap<>();

    static Stream<String> modules() {
        return Arrays.stream(property("urom.api.modules").split(","));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modules")
    void theApiIsTheCommittedOne(String module) throws IOException {
        Path file = Path.of(property("urom.api." + module + ".file"))
                .toAbsolutePath()
                .normalize();
        List<String> built = new ArrayList<>();
        built.add("# The public API of " + module
                + ", listed by api-check; regenerate it, never edit it (README, \"API stability\").");
        built.addAll(listing(module).lines());
        Path shown = repositoryRoot().relativize(file);
        if (Boolean.getBoolean("urom.api.update")) {
            Files.createDirectories(file.getParent());
            Files.write(file, built);
            System.out.println("api-check: wrote " + shown);
            return;
        }
        if (!Files.exists(file)) {
            fail(shown + " is missing: run `" + UPDATE_COMMAND + "` and commit it");
        }
        Optional<String> difference = ApiDiff.describe(Files.readAllLines(file), built, 20);
        if (difference.isPresent()) {
            fail(module + "'s public API is not the one committed in " + shown + ": " + difference.get()
                    + "\nIf the change is meant (and keeps the promises of each element's @Api status), run `"
                    + UPDATE_COMMAND
                    + "` and commit " + shown + " with it.");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modules")
    void everyPublicTypeHasAStatusAndExposesNoWeakerType(String module) {
        assertThat(listing(module).problems()).as("API problems of %s", module).isEmpty();
    }

    private static ApiListing listing(String module) {
        return LISTINGS.computeIfAbsent(
                module,
                m -> ApiLister.list(
                        Path.of(property("urom.api." + m + ".classes")), PublicApiTest.class.getClassLoader()));
    }

    /** Surefire runs the tests in the module's folder, one below the repository's root. */
    private static Path repositoryRoot() {
        return Path.of("").toAbsolutePath().getParent();
    }

    private static String property(String name) {
        String value = System.getProperty(name);
        if (value == null || value.contains("${")) {
            throw new IllegalStateException(
                    "system property " + name + " is " + (value == null ? "unset" : "unresolved (" + value + ")")
                            + ": run this test through Maven (api-check/pom.xml sets it)");
        }
        return value;
    }
}
