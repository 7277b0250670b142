// SPDX-License-Identifier: Apache-2.0
package dev.urom.apicheck;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every source file of the repository carries {@link #SPDX_LINE} in a comment of its own syntax
 * within its first lines (CONTRIBUTING.md, "Licence"), and every file of the repository is either
 * such a source file or of a kind known to be exempt, so that a file of a new kind is classified
 * rather than let through. The files are those git tracks ({@code git ls-files}); without git, or outside a
 * checkout, the tree less its build and hidden folders.
 */
class LicenceHeadersTest {
    static final String SPDX_LINE = "SPDX-License-Identifier: Apache-2.0";
    private static final Path REPO =
            Path.of(System.getProperty("urom.repo", "..")).toAbsolutePath().normalize();
    /** How far into a file the line may be: after a shebang or an XML declaration and a short comment. */
    private static final int HEADER_LINES = 5;

    /** The comment a source file of {@code path}'s kind holds the line in; empty for a file that is exempt. */
    enum Kind {
        SLASH("// " + SPDX_LINE),
        BLOCK("/* " + SPDX_LINE + " */"),
        XML("<!-- " + SPDX_LINE + " -->"),
        HASH("# " + SPDX_LINE),
        EXEMPT(null);

        final String comment;

        Kind(String comment) {
            this.comment = comment;
        }
    }

    /**
     * The kind of {@code path} (relative to the repository, with {@code /}), or empty for a file of
     * a kind nobody has classified yet. Exempt: documentation, the licence texts, files whose
     * format has no comments (JSON, Maven's {@code maven.config}), the API listings that
     * {@code PublicApiTest} compares byte for byte with the build's, empty placeholders, git's and
     * the CI's own configuration.
     */
    static Optional<Kind> kind(String path, byte[] head) {
        String name = path.substring(path.lastIndexOf('/') + 1);
        if (name.endsWith(".java")) {
            return Optional.of(Kind.SLASH);
        }
        if (name.endsWith(".c") || name.endsWith(".h") || name.endsWith(".h.in")) {
            return Optional.of(Kind.BLOCK);
        }
        if (name.endsWith(".xml")) {
            return Optional.of(Kind.XML);
        }
        if (name.equals("Makefile")
                || Stream.of(".sh", ".py", ".yaml", ".yml", ".properties", ".pc", ".pc.in", ".mk", ".service", ".env")
                        .anyMatch(name::endsWith)
                || name.equals(".clang-format")
                || name.equals(".git-blame-ignore-revs")
                || path.contains("/META-INF/services/")
                || (!name.contains(".") && startsWith(head, "#!"))) {
            return Optional.of(Kind.HASH);
        }
        if (name.endsWith(".md")
                || name.equals("LICENSE")
                || name.equals("NOTICE")
                || name.endsWith(".json")
                || name.equals("maven.config")
                || name.endsWith(".api")
                || name.equals(".keep")
                || name.equals(".gitignore")) {
            return Optional.of(Kind.EXEMPT);
        }
        return Optional.empty();
    }

    private static boolean startsWith(byte[] head, String prefix) {
        byte[] bytes = prefix.getBytes(StandardCharsets.US_ASCII);
        return head.length >= bytes.length && Arrays.equals(head, 0, bytes.length, bytes, 0, bytes.length);
    }

    /** The problem with {@code text}, a file of kind {@code kind}, or empty when it carries the line where it should. */
    static Optional<String> problem(Kind kind, String text) {
        if (kind == Kind.EXEMPT) {
            return Optional.empty();
        }
        List<String> head = text.lines().limit(HEADER_LINES).toList();
        if (head.stream().anyMatch(line -> line.strip().equals(kind.comment))) {
            return Optional.empty();
        }
        return Optional.of("no line '" + kind.comment + "' in its first " + HEADER_LINES + " lines");
    }

    @Test
    void everySourceFileCarriesTheLicenceLineAndEveryOtherFileIsKnownExempt() throws IOException, InterruptedException {
        List<String> files = repositoryFiles();
        List<String> missing = new ArrayList<>();
        Set<String> unclassified = new TreeSet<>();
        int sources = 0;
        for (String path : files) {
            Path file = REPO.resolve(path);
            if (!Files.isRegularFile(file)) {
                continue;
            }
            byte[] bytes = Files.readAllBytes(file);
            Optional<Kind> kind = kind(path, Arrays.copyOf(bytes, Math.min(bytes.length, 2)));
            if (kind.isEmpty()) {
                unclassified.add(path);
                continue;
            }
            if (kind.get() != Kind.EXEMPT) {
                sources++;
                problem(kind.get(), new String(bytes, StandardCharsets.UTF_8))
                        .ifPresent(p -> missing.add(path + ": " + p));
            }
        }
        assertThat(unclassified)
                .as("files of a kind LicenceHeadersTest.kind does not know: a source file needs the SPDX line, "
                        + "a file that cannot hold it an entry among the exempt")
                .isEmpty();
        assertThat(missing)
                .as("source files without the SPDX line (CONTRIBUTING.md, Licence)")
                .isEmpty();
        assertThat(sources).as("source files found in %s", REPO).isGreaterThan(500);
    }

    @Test
    void eachKindIsToldByItsName() {
        byte[] none = new byte[0];
        assertThat(kind("spi/src/main/java/dev/urom/spi/Api.java", none)).hasValue(Kind.SLASH);
        assertThat(kind("spi/src/main/c/include/urom_plugin.h", none)).hasValue(Kind.BLOCK);
        assertThat(kind("plugins/graph/src/main/c/Makefile", none)).hasValue(Kind.HASH);
        assertThat(kind("bin/urom", "#!".getBytes(StandardCharsets.US_ASCII))).hasValue(Kind.HASH);
        assertThat(kind("host-c/src/main/c/pkgconfig/doca-urom.pc.in", none)).hasValue(Kind.HASH);
        assertThat(kind("host-c/src/main/c/include/doca_version.h.in", none)).hasValue(Kind.BLOCK);
        assertThat(kind("plugins/graph/scaffold/c/urom-sdk.mk", none)).hasValue(Kind.HASH);
        assertThat(kind("pom.xml", none)).hasValue(Kind.XML);
        assertThat(kind(".clang-format", none)).hasValue(Kind.HASH);
        assertThat(kind("deploy/systemd/urom.service", none)).hasValue(Kind.HASH);
        assertThat(kind("docs/deploy.md", none)).hasValue(Kind.EXEMPT);
        assertThat(kind("plugins/graph/scaffold/java/maven.config", none)).hasValue(Kind.EXEMPT);
        assertThat(kind("tools/convert.rb", none))
                .as("a kind nobody classified")
                .isEmpty();
        assertThat(kind("bin/data", "\u007fELF".getBytes(StandardCharsets.ISO_8859_1)))
                .as("a binary without a name's kind")
                .isEmpty();
    }

    @Test
    void aFileWithoutTheLineOrWithItTooLateIsNamed() {
        assertThat(problem(Kind.SLASH, "// " + SPDX_LINE + "\npackage a;\n")).isEmpty();
        assertThat(problem(Kind.HASH, "#!/bin/sh\n# " + SPDX_LINE + "\nexit 0\n"))
                .isEmpty();
        assertThat(problem(Kind.XML, "<?xml version=\"1.0\"?>\n<!-- " + SPDX_LINE + " -->\n<a/>\n"))
                .isEmpty();
        assertThat(problem(Kind.SLASH, "package a;\n"))
                .hasValueSatisfying(p -> assertThat(p).contains(Kind.SLASH.comment));
        assertThat(problem(Kind.BLOCK, "// " + SPDX_LINE + "\n"))
                .as("the wrong comment syntax")
                .isPresent();
        assertThat(problem(Kind.HASH, "a\nb\nc\nd\ne\n# " + SPDX_LINE + "\n"))
                .as("below the header")
                .isPresent();
        assertThat(problem(Kind.SLASH, "// SPDX-License-Identifier: MIT\n"))
                .as("another licence")
                .isPresent();
    }

    /** The repository's files, relative, with {@code /}: git's list where git answers, else the tree less build and hidden folders. */
    private static List<String> repositoryFiles() throws IOException, InterruptedException {
        Optional<List<String>> tracked = gitFiles();
        if (tracked.isPresent()) {
            return tracked.get();
        }
        try (Stream<Path> tree = Files.walk(REPO)) {
            return tree.filter(Files::isRegularFile)
                    .map(f -> REPO.relativize(f).toString())
                    .filter(p -> Arrays.stream(p.split("/"))
                            .noneMatch(part -> part.startsWith("target")
                                    || (part.startsWith(".")
                                            && !part.equals(".gitignore")
                                            && !part.equals(".keep")
                                            && !part.equals(".ci"))))
                    .sorted()
                    .collect(Collectors.toList());
        }
    }

    private static Optional<List<String>> gitFiles() throws IOException, InterruptedException {
        if (!Files.exists(REPO.resolve(".git"))) {
            return Optional.empty();
        }
        Process git;
        try {
            // safe.directory: a checkout of another user (the suite run by a user on root's clone) is still this
            // build's own tree.
            git = new ProcessBuilder("git", "-c", "safe.directory=" + REPO, "-C", REPO.toString(), "ls-files", "-z")
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
        } catch (IOException e) {
            return Optional.empty();
        }
        git.getOutputStream().close();
        String out;
        try (InputStream in = git.getInputStream()) {
            out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        if (!git.waitFor(60, TimeUnit.SECONDS) || git.exitValue() != 0) {
            return Optional.empty();
        }
        return Optional.of(Arrays.stream(out.split("\0"))
                .filter(s -> !s.isEmpty())
                .sorted()
                .toList());
    }
}
