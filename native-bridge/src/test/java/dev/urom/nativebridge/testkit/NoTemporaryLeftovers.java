// SPDX-License-Identifier: Apache-2.0
package dev.urom.nativebridge.testkit;

import dev.urom.nativebridge.NativeArtifacts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test class that leaves native-file directories ({@code urom-native-PID-*}) or sandbox
 * sockets ({@code urom-sandbox-*.sock}) in the temporary directory of the test run, naming each.
 *
 * <p>Registered for every test class by JUnit's extension auto-detection (the build turns it on
 * and points {@code TMPDIR} of the test JVMs at a directory of the module's build output, which
 * this extension makes). The processes the tests start inherit that {@code TMPDIR}, so what they
 * leave lands there, in a directory no other run on the machine writes to: a before-and-after
 * comparison per class sees this run's leftovers only. The test JVM's own native-file directory
 * (its pid in the name) is not a leftover: it is deleted when the JVM exits.
 */
public final class NoTemporaryLeftovers implements BeforeAllCallback, AfterAllCallback {
    private static final Pattern NATIVE =
            Pattern.compile(Pattern.quote(NativeArtifacts.EXTRACTED_PREFIX) + "([0-9]+)-.*");
    private static final Pattern SANDBOX_SOCKET = Pattern.compile("urom-sandbox-.*\\.sock");
    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(NoTemporaryLeftovers.class);

    /** The directories looked at: {@code $TMPDIR} (made when missing) and {@code java.io.tmpdir} when that is another. */
    static List<Path> directories() {
        String tmpdir = System.getenv("TMPDIR");
        if (tmpdir == null || tmpdir.isBlank() || !Path.of(tmpdir).isAbsolute()) {
            return List.of();
        }
        try {
            return List.of(Files.createDirectories(Path.of(tmpdir)));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make TMPDIR " + tmpdir + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        context.getStore(NAMESPACE).put("before", leftovers());
    }

    @Override
    public void afterAll(ExtensionContext context) {
        @SuppressWarnings("unchecked")
        Set<String> before = context.getStore(NAMESPACE).get("before", Set.class);
        Set<String> left = new TreeSet<>(leftovers());
        left.removeAll(before);
        if (!left.isEmpty()) {
            throw new AssertionError(
                    context.getRequiredTestClass().getName() + " left " + left.size() + " temporary file(s) behind: "
                            + left.stream().map(NoTemporaryLeftovers::describe).collect(Collectors.joining(", ")));
        }
    }

    /** The matching entries now, as full paths, without this JVM's own native-file directory. */
    static Set<String> leftovers() {
        Set<String> found = new TreeSet<>();
        long self = ProcessHandle.current().pid();
        for (Path dir : directories()) {
            try (Stream<Path> entries = Files.list(dir)) {
                found.addAll(
                        entries.filter(entry -> isLeftover(entry.getFileName().toString(), self))
                                .map(Path::toString)
                                .collect(Collectors.toSet()));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot list " + dir + ": " + e.getMessage(), e);
            }
        }
        return found;
    }

    static boolean isLeftover(String name, long self) {
        Matcher nativeDir = NATIVE.matcher(name);
        if (nativeDir.matches()) {
            return Long.parseLong(nativeDir.group(1)) != self;
        }
        return SANDBOX_SOCKET.matcher(name).matches();
    }

    private static String describe(String path) {
        Matcher nativeDir = NATIVE.matcher(Path.of(path).getFileName().toString());
        if (!nativeDir.matches()) {
            return path;
        }
        long pid = Long.parseLong(nativeDir.group(1));
        return path
                + ProcessHandle.of(pid)
                        .map(p -> " (pid " + pid + " still runs: "
                                + p.info().commandLine().orElse("?") + ")")
                        .orElse(" (pid " + pid + ", gone)");
    }
}
