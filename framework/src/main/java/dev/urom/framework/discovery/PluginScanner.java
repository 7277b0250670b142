package dev.urom.framework.discovery;

import static java.util.Objects.requireNonNull;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.urom.spi.PluginInfo;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Scans a plugin path: its directories in order, each directory's files in name order; {@code
 * .so} files are native candidates, {@code .jar} and {@code .zip} files Java candidates; other
 * files, and directories, are ignored (a dangling link with a candidate's name is rejected). Each
 * candidate's name (file name less extension) is checked against the 47-byte limit, then the
 * candidate is probed through the {@link CandidateProber}. A name already taken by an accepted
 * plugin earlier in the path shadows the later one; rejected candidates claim no name.
 *
 * <p>Verdicts are cached by {@link FileIdentity}, so a re-scan probes only new or changed files. A
 * directory that is missing or unreadable gives a warning; nothing about one file or directory
 * fails the scan. Paths in the results are absolute.
 *
 * <p>Thread-safe: scans may run concurrently and share the cache; concurrent probes of the same
 * file identity run once.
 */
public final class PluginScanner {
    private static final int CACHE_SIZE = 4096;

    private final CandidateProber prober;
    private final Cache<FileIdentity, ProbeVerdict> verdicts =
            Caffeine.newBuilder().maximumSize(CACHE_SIZE).build();
    private final AtomicLong probes = new AtomicLong();
    private final AtomicLong probeRejections = new AtomicLong();

    /** A scanner with the default prober and native probe time limit (10 s). */
    public PluginScanner() {
        this(new DefaultCandidateProber());
    }

    /** A scanner with the default prober and the given native probe time limit. */
    public PluginScanner(Duration nativeProbeTimeout) {
        this(new DefaultCandidateProber(nativeProbeTimeout));
    }

    public PluginScanner(CandidateProber prober) {
        this.prober = requireNonNull(prober, "prober is null");
    }

    /** How many probes this scanner has run (cache misses). */
    public long probeCount() {
        return probes.get();
    }

    /** How many of those probes rejected their file or could not run. */
    public long probeRejectionCount() {
        return probeRejections.get();
    }

    /**
     * Scans {@code uromPluginPath} ({@code ;}-separated directories, see {@link PluginPath}).
     *
     * @throws IllegalArgumentException when the path holds an entry that is not a valid path
     */
    public ScanOutcome scan(String uromPluginPath) {
        return scan(PluginPath.parse(uromPluginPath));
    }

    /** Scans {@code directories} in order. */
    public ScanOutcome scan(List<Path> directories) {
        List<ScannedPlugin> accepted = new ArrayList<>();
        List<Rejection> rejected = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        Map<String, ScannedPlugin> byName = new HashMap<>();
        for (Path directory : directories) {
            for (Path file : candidates(directory.toAbsolutePath().normalize(), warnings)) {
                Optional<ScannedPlugin> plugin = examine(file, rejected);
                if (plugin.isEmpty()) {
                    continue;
                }
                ScannedPlugin first = byName.putIfAbsent(plugin.get().name(), plugin.get());
                if (first == null) {
                    accepted.add(plugin.get());
                } else {
                    rejected.add(new Rejection(file, file + ": shadowed by " + first.path()
                            + " (same plugin name '" + first.name() + "')"));
                }
            }
        }
        return new ScanOutcome(accepted, rejected, warnings);
    }

    /** The candidate files of {@code directory} in name order; a warning when it cannot be listed. */
    private static List<Path> candidates(Path directory, List<String> warnings) {
        if (!Files.isDirectory(directory)) {
            warnings.add(Files.exists(directory)
                    ? PluginPath.ENVIRONMENT_VARIABLE + " entry " + directory + " is not a directory; skipped"
                    : PluginPath.ENVIRONMENT_VARIABLE + " directory " + directory + " does not exist; skipped");
            return List.of();
        }
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(directory)) {
            for (Path entry : entries) {
                if (PluginKind.ofFileName(entry.getFileName().toString()).isPresent() && !Files.isDirectory(entry)) {
                    files.add(entry);
                }
            }
        } catch (IOException | RuntimeException e) {
            warnings.add(PluginPath.ENVIRONMENT_VARIABLE + " directory " + directory + " cannot be read ("
                    + describe(e) + "); skipped");
            return List.of();
        }
        files.sort(Comparator.comparing(file -> file.getFileName().toString()));
        return files;
    }

    private Optional<ScannedPlugin> examine(Path file, List<Rejection> rejected) {
        String fileName = file.getFileName().toString();
        PluginKind kind = PluginKind.ofFileName(fileName).orElseThrow();
        String name = PluginKind.pluginName(fileName);
        try {
            PluginInfo.checkName(name);
        } catch (IllegalArgumentException e) {
            rejected.add(new Rejection(file, file + ": " + e.getMessage()));
            return Optional.empty();
        }
        FileIdentity identity;
        try {
            identity = FileIdentity.of(file);
        } catch (IOException | RuntimeException e) {
            rejected.add(new Rejection(file, file + ": cannot read its attributes (" + describe(e) + ")"));
            return Optional.empty();
        }
        ProbeVerdict verdict;
        try {
            verdict = verdicts.get(identity, key -> {
                probes.incrementAndGet();
                ProbeVerdict fresh = prober.probe(file, kind);
                if (!fresh.accepted()) {
                    probeRejections.incrementAndGet();
                }
                return fresh;
            });
        } catch (RuntimeException e) {
            probeRejections.incrementAndGet();
            rejected.add(new Rejection(file, file + ": cannot be probed (" + describe(e) + ")"));
            return Optional.empty();
        }
        if (!verdict.accepted()) {
            rejected.add(new Rejection(file, verdict.reason()));
            return Optional.empty();
        }
        return Optional.of(new ScannedPlugin(name, verdict.version(), kind, file, identity));
    }

    private static String describe(Exception e) {
        if (e instanceof NoSuchFileException) {
            return "no such file";
        }
        String message = e.getMessage();
        String text = message == null || message.isBlank() ? e.getClass().getSimpleName() : message;
        return text.replaceAll("\\s*\\R\\s*", " ");
    }
}
