// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli.scaffold;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Writes a new plugin project from the templates kept with a sample plugin: the sample's own
 * sources with its names replaced, and the project files of the sample's {@code scaffold/} folder.
 *
 * <p>The templates folder holds the sample's files at the paths they have in the sample's folder
 * of the repository, and {@code scaffold/scaffold.json}: {@code replace} maps each name in the
 * sample's sources to what it becomes (placeholders such as {@code @name@}), and {@code languages}
 * maps each language to its files, project path to template path (both relative; a project path
 * may hold placeholders). Sample files get both the replacements and the placeholders; files under
 * {@code scaffold/} only the placeholders. Placeholders: {@code @name@}, {@code @Name@}, {@code
 * @NAME@}, {@code @package@}, {@code @packagePath@} (see {@link ScaffoldNames}), the SDK's
 * {@code @uromVersion@}, and {@code @uromHomeFromProject@}, the SDK's folder relative to the
 * project's ({@code ../../opt/urom}). No placeholder gives an absolute path: a project finds its SDK
 * through {@code UROM_HOME} when that is set, else through that relative path.
 *
 * <p>The project is its author's to license: the line {@code SPDX-License-Identifier: Apache-2.0}
 * that this repository's files carry is left out of every file written (the first comment line of
 * a template that holds it alone, as a line, hash, block or XML comment).
 *
 * <p>Immutable once loaded; {@link #write} may be called from any thread. Failures are {@link
 * ScaffoldException}s with one line naming the file and the reason.
 */
public final class PluginScaffold {
    /** The languages a project can be written in; {@link #key()} is its key in the manifest. */
    public enum Language {
        C,
        JAVA;

        public String key() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Where the SDK that the project builds against lies, and its version. */
    public record Sdk(Path home, String version) {
        public Sdk {
            requireNonNull(home, "home is null");
            requireNonNull(version, "version is null");
        }
    }

    static final String MANIFEST = "scaffold/scaffold.json";
    private static final Pattern LEFT_OVER = Pattern.compile("@[A-Za-z]+@");
    /** This repository's licence line, a comment line of its own in any of the templates' syntaxes. */
    private static final Pattern OUR_LICENCE_LINE = Pattern.compile(
            "^[ \\t]*(?://|#|/\\*|<!--)[ \\t]*SPDX-License-Identifier: Apache-2\\.0[ \\t]*(?:\\*/|-->)?[ \\t]*\\r?\\n",
            Pattern.MULTILINE);

    private static final long MAX_TEMPLATE_BYTES = 1 << 20;
    /** What a Makefile word, an XML text and a file: URL all keep as it is. */
    private static final Pattern UNSAFE_IN_PATH = Pattern.compile("[^A-Za-z0-9._+/-]");

    /** The manifest's form. */
    record Manifest(String sample, Map<String, String> replace, Map<String, Map<String, String>> languages) {}

    private final Path templates;
    private final Manifest manifest;

    private PluginScaffold(Path templates, Manifest manifest) {
        this.templates = templates;
        this.manifest = manifest;
    }

    /**
     * Reads the manifest of the templates in {@code templates}.
     *
     * @throws ScaffoldException when it is missing or not a manifest
     */
    public static PluginScaffold load(Path templates) throws ScaffoldException {
        requireNonNull(templates, "templates is null");
        Path file = templates.resolve(MANIFEST);
        Manifest manifest;
        try {
            manifest = new ObjectMapper()
                    .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                    .readValue(Files.readString(file), Manifest.class);
        } catch (NoSuchFileException e) {
            throw new ScaffoldException("no project templates at " + templates + " (" + MANIFEST + " is missing)");
        } catch (JsonProcessingException e) {
            throw new ScaffoldException("template manifest " + file + " is not valid: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new ScaffoldException("cannot read template manifest " + file + ": " + e.getMessage());
        }
        if (manifest.sample() == null || manifest.replace() == null || manifest.languages() == null) {
            throw new ScaffoldException("template manifest " + file + " lacks one of sample, replace, languages");
        }
        return new PluginScaffold(templates, manifest);
    }

    /** The sample the templates come from. */
    public String sample() {
        return manifest.sample();
    }

    /** The languages these templates can write. */
    public List<Language> languages() {
        return List.of(Language.values()).stream()
                .filter(l -> manifest.languages().containsKey(l.key()))
                .toList();
    }

    /**
     * Writes the project of {@code language} into {@code project}, a folder this call creates: it
     * must not exist yet, and its parent must. Returns the files written, relative to {@code
     * project}, in manifest order.
     *
     * @throws ScaffoldException when the folder exists, a template is missing, or a file cannot be
     *     written; what was written before stays
     */
    public List<Path> write(ScaffoldNames names, Language language, Path project, Sdk sdk) throws ScaffoldException {
        requireNonNull(names, "names is null");
        requireNonNull(language, "language is null");
        requireNonNull(project, "project is null");
        requireNonNull(sdk, "sdk is null");
        Map<String, String> files = manifest.languages().get(language.key());
        if (files == null) {
            throw new ScaffoldException("the " + sample() + " templates have no " + language.key() + " project");
        }
        Map<String, String> placeholders = placeholders(names, sdk, project);
        Map<String, String> sampleNames = new LinkedHashMap<>(placeholders);
        manifest.replace().forEach((from, to) -> sampleNames.put(from, render(to, placeholders, null)));
        Pattern sampleWords = alternatives(sampleNames.keySet());
        Pattern placeholderWords = alternatives(placeholders.keySet());
        Map<Path, String> rendered = new LinkedHashMap<>();
        for (Map.Entry<String, String> file : files.entrySet()) {
            Path target =
                    relative(render(file.getKey(), placeholders, placeholderWords), "project path " + file.getKey());
            Path source = templates.resolve(relative(file.getValue(), "template path " + file.getValue()));
            boolean projectFile = file.getValue().startsWith("scaffold/");
            String template = OUR_LICENCE_LINE.matcher(read(source)).replaceFirst("");
            String text = render(
                    template, projectFile ? placeholders : sampleNames, projectFile ? placeholderWords : sampleWords);
            Matcher leftOver = LEFT_OVER.matcher(text);
            if (leftOver.find()) {
                throw new ScaffoldException("template " + source + " has the unknown placeholder " + leftOver.group());
            }
            rendered.put(target, text);
        }
        try {
            Files.createDirectory(project);
        } catch (FileAlreadyExistsException e) {
            throw new ScaffoldException(project + " already exists; name a new folder (another plugin name or --dir)");
        } catch (NoSuchFileException e) {
            throw new ScaffoldException("cannot create " + project + ": its parent folder does not exist");
        } catch (IOException e) {
            throw new ScaffoldException("cannot create " + project + ": " + e.getMessage());
        }
        List<Path> written = new ArrayList<>();
        for (Map.Entry<Path, String> file : rendered.entrySet()) {
            Path target = project.resolve(file.getKey());
            try {
                createParents(project, file.getKey());
                Files.writeString(
                        target,
                        file.getValue(),
                        StandardCharsets.UTF_8,
                        StandardOpenOption.CREATE_NEW,
                        StandardOpenOption.WRITE,
                        LinkOption.NOFOLLOW_LINKS);
            } catch (IOException e) {
                throw new ScaffoldException("cannot write " + target + ": " + e.getMessage());
            }
            written.add(file.getKey());
        }
        return written;
    }

    private static Map<String, String> placeholders(ScaffoldNames names, Sdk sdk, Path project)
            throws ScaffoldException {
        Map<String, String> values = new LinkedHashMap<>();
        values.put("@name@", names.name());
        values.put("@Name@", names.javaPrefix());
        values.put("@NAME@", names.macroPrefix());
        values.put("@package@", names.javaPackage());
        values.put("@packagePath@", names.packagePath());
        values.put("@uromVersion@", sdk.version());
        String fromProject = project.toAbsolutePath()
                .normalize()
                .relativize(sdk.home().toAbsolutePath().normalize())
                .toString();
        Matcher unsafe = UNSAFE_IN_PATH.matcher(fromProject);
        if (unsafe.find()) {
            throw new ScaffoldException("the SDK's folder seen from the project, " + printable(fromProject) + ", holds "
                    + describe(unsafe.group().charAt(0))
                    + ", which its Makefile or pom.xml cannot carry; write the project"
                    + " (--dir) or unpack the SDK where the path between them has only letters, digits and . _ - + /");
        }
        values.put("@uromHomeFromProject@", fromProject.isEmpty() ? "." : fromProject);
        return values;
    }

    private static String describe(char c) {
        return c == ' '
                ? "a space"
                : c < 0x20 || c == 0x7f ? String.format("the control character U+%04X", (int) c) : "'" + c + "'";
    }

    /** The path with control characters shown as '?', for a one-line message. */
    private static String printable(String path) {
        return path.codePoints()
                .map(c -> c < 0x20 || c == 0x7f ? '?' : c)
                .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append)
                .toString();
    }

    /** One pass over {@code text}: each word of {@code values} found is replaced by its value, longest words first. */
    private static String render(String text, Map<String, String> values, Pattern words) {
        Pattern pattern = words != null ? words : alternatives(values.keySet());
        return pattern.matcher(text).replaceAll(match -> Matcher.quoteReplacement(values.get(match.group())));
    }

    private static Pattern alternatives(java.util.Collection<String> words) {
        return Pattern.compile(words.stream()
                .sorted(Comparator.comparingInt(String::length).reversed())
                .map(Pattern::quote)
                .collect(Collectors.joining("|")));
    }

    /** A relative path that stays inside its folder. */
    private static Path relative(String path, String what) throws ScaffoldException {
        Path relative = Path.of(path).normalize();
        if (relative.isAbsolute() || relative.startsWith("..") || path.isEmpty()) {
            throw new ScaffoldException("template manifest: " + what + " is not a relative path inside its folder");
        }
        return relative;
    }

    private static String read(Path source) throws ScaffoldException {
        try {
            if (Files.size(source) > MAX_TEMPLATE_BYTES) {
                throw new ScaffoldException("template " + source + " is larger than " + MAX_TEMPLATE_BYTES + " bytes");
            }
            return Files.readString(source, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new ScaffoldException("template " + source + " is missing");
        } catch (IOException e) {
            throw new ScaffoldException("cannot read template " + source + ": " + e.getMessage());
        }
    }

    /** Creates the folders of {@code relative} below {@code project}, one by one, never through a link. */
    private static void createParents(Path project, Path relative) throws IOException {
        Path folder = project;
        Path parent = relative.getParent();
        if (parent == null) {
            return;
        }
        for (Path part : parent) {
            folder = folder.resolve(part);
            if (!Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS)) {
                Files.createDirectory(folder);
            }
        }
    }
}
