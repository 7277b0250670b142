// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli;

import dev.urom.cli.scaffold.PluginScaffold;
import dev.urom.cli.scaffold.ScaffoldException;
import dev.urom.cli.scaffold.ScaffoldNames;
import java.io.PrintWriter;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code urom new-plugin NAME --lang c|java [--dir DIR] [--package PKG]}: writes {@code DIR/NAME},
 * a plugin project that builds outside this repository against the distribution this command runs
 * from, made from the graph sample's templates ({@code share/urom/templates/graph} of the
 * distribution; see {@link PluginScaffold}).
 *
 * <p>The distribution is the one whose {@code lib/} holds this class's jar, or the folder the
 * system property {@value #HOME_PROPERTY} names.
 */
@Command(
        name = "new-plugin",
        description = "Write a new plugin project (C or Java) that builds against this distribution and tests itself.")
final class NewPluginCommand implements Callable<Integer> {
    static final String HOME_PROPERTY = "urom.home";
    static final String SAMPLE = "graph";

    @Spec
    CommandSpec spec;

    @Parameters(
            paramLabel = "NAME",
            description = "The plugin's name: lower-case letters, digits and '_'; the plugin file is worker_NAME.")
    String name;

    @Option(
            names = "--lang",
            required = true,
            paramLabel = "c|java",
            description = "The language of the plugin: c or java.")
    String language;

    @Option(
            names = "--dir",
            defaultValue = ".",
            paramLabel = "DIR",
            description = "The folder to write the project folder NAME into (default: the current one).")
    Path dir;

    @Option(
            names = "--package",
            paramLabel = "PKG",
            description = "The Java package of a Java plugin (default: com.example.NAME).")
    String javaPackage;

    @Override
    public Integer call() {
        PluginScaffold.Language lang = switch (language) {
            case "c" -> PluginScaffold.Language.C;
            case "java" -> PluginScaffold.Language.JAVA;
            default ->
                throw new ParameterException(
                        spec.commandLine(), "--lang '" + language + "' is not a plugin language; use c or java");
        };
        if (javaPackage != null && lang != PluginScaffold.Language.JAVA) {
            throw new ParameterException(spec.commandLine(), "--package is for --lang java only");
        }
        ScaffoldNames names;
        try {
            names = javaPackage == null ? ScaffoldNames.of(name) : new ScaffoldNames(name, javaPackage);
            if (lang == PluginScaffold.Language.JAVA) {
                names.checkJavaPackage();
            }
        } catch (IllegalArgumentException e) {
            throw CliFailure.usage(e.getMessage());
        }
        if (!Files.isDirectory(dir)) {
            throw CliFailure.usage("--dir " + dir + " is not a folder");
        }
        PluginScaffold.Sdk sdk = distribution();
        Path project = dir.toAbsolutePath().normalize().resolve(name);
        List<Path> written;
        try {
            written = PluginScaffold.load(
                            sdk.home().resolve("share/urom/templates").resolve(SAMPLE))
                    .write(names, lang, project, sdk);
        } catch (ScaffoldException e) {
            throw new CliFailure(e.getMessage());
        }
        PrintWriter out = spec.commandLine().getOut();
        out.println("wrote " + project + ", plugin " + names.pluginName() + " in " + lang.key() + " (from the " + SAMPLE
                + " sample):");
        written.forEach(file -> out.println("  " + file));
        String build = lang == PluginScaffold.Language.C ? "make test" : "mvn package";
        out.println("build and test it: cd " + project + " && " + build);
        out.println(
                "(it finds this SDK from its own folder; after moving either, export UROM_HOME=" + sdk.home() + ")");
        return 0;
    }

    /** The distribution this command runs from. */
    private static PluginScaffold.Sdk distribution() {
        String version = NewPluginCommand.class.getPackage().getImplementationVersion();
        String named = System.getProperty(HOME_PROPERTY);
        Path home;
        if (named != null) {
            home = Path.of(named).toAbsolutePath().normalize();
        } else {
            CodeSource source = NewPluginCommand.class.getProtectionDomain().getCodeSource();
            Path jar;
            try {
                jar = source == null ? null : Path.of(source.getLocation().toURI());
            } catch (URISyntaxException | IllegalArgumentException e) {
                jar = null;
            }
            if (jar == null
                    || !Files.isRegularFile(jar)
                    || jar.getParent() == null
                    || jar.getParent().getParent() == null) {
                throw new CliFailure("not run from a distribution but from " + (jar == null ? "an unknown place" : jar)
                        + "; use the bin/urom of one");
            }
            home = jar.getParent().getParent();
        }
        if (version == null) {
            throw new CliFailure(
                    "the distribution at " + home + " has no version in its jar manifest; rebuild it (mvn package)");
        }
        return new PluginScaffold.Sdk(home, version);
    }
}
