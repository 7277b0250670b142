// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.discovery;

import static java.util.Objects.requireNonNull;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.urom.framework.security.PathTrust;
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
 * Scans a plugin path: its directories in order, each directory's files in name order.
 *
 * <ul>
 *   <li>{@code .so} files are native candidates, {@code .jar} and {@code .zip} files Java candidates;
 *       other files, and directories, are ignored (a dangling link with a candidate's name is
 *       rejected).
 *   <li>At most {@value #MAX_CANDIDATES_PER_DIRECTORY} candidates of one directory are examined, the
 *       first by name; the rest are one rejection and one warning for the directory.
 *   <li>Each candidate's name (file name less extension) is checked against the 47-byte limit, then
 *       its trust (below), then the candidate is probed through the {@link CandidateProber}.
 *   <li>A name already taken by an accepted plugin earlier in the path shadows the later one;
 *       rejected candidates claim no name.
 * </ul>
 *
 * <p>Trust, before anything is probed ({@link ScanPolicy}): a directory that fails {@link
 * PathTrust#untrusted} (an owner other than root and the trusted owners, writable by group or
 * others, the same for a directory above it) has every candidate rejected, unprobed, with the
 * directory's problem; so has each candidate file that fails the check itself. With {@code
 * allowInsecure}, both are a warning instead. With a reader, a candidate that the reader could not
 * read ({@link PathTrust#unreadable}) is rejected.
 *
 * <p>Verdicts are cached by {@link FileIdentity}, so a re-scan probes only new or changed files;
 * before each scan the cache grows to hold at least twice that scan's candidates (it never
 * shrinks). A directory that is
 * missing or unreadable gives a warning; nothing about one file or directory fails the scan.
 * Paths in the results are absolute.
 *
 * <p>Thread-safe: scans may run concurrently and share the cache; concurrent probes of the same
 * file identity run once.
 */
public final class PluginScanner {
    /** How many candidates of one directory are examined at most. */
    public static final int MAX_CANDIDATES_PER_DIRECTORY = 1024;

    private static final long MIN_CACHE_SIZE = 4096;
    private static final String ALLOWED = " (insecure plugin directories are allowed)";

    private final CandidateProber prober;
    private final ScanPolicy policy;
    private final Cache<FileIdentity, ProbeVerdict> verdicts =
            Caffeine.newBuilder().maximumSize(MIN_CACHE_SIZE).build();
    private final AtomicLong probes = new AtomicLong();
    private final AtomicLong probeRejections = new AtomicLong();

    /** The candidates of one directory that will be examined, and what was left out or went wrong. */
    private record Listing(Path directory, List<Path> candidates, int leftOut, String warning) {}

    /** A scanner with the default prober and native probe time limit (10 s), and the secure policy. */
    public PluginScanner() {
        this(new DefaultCandidateProber());
    }

    /** A scanner with the default prober, the given native probe time limit, and the secure policy. */
    public PluginScanner(Duration nativeProbeTimeout) {
        this(new DefaultCandidateProber(nativeProbeTimeout));
    }

    /** A scanner with this prober and the secure policy ({@link ScanPolicy#secure()}). */
    public PluginScanner(CandidateProber prober) {
        this(prober, ScanPolicy.secure());
    }

    public PluginScanner(CandidateProber prober, ScanPolicy policy) {
        this.prober = requireNonNull(prober, "prober is null");
        this.policy = requireNonNull(policy, "policy is null");
    }

    public ScanPolicy policy() {
        return policy;
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
        List<Listing> listings = new ArrayList<>();
        long candidateCount = 0;
        for (Path directory : directories) {
            Listing listing = list(directory.toAbsolutePath().normalize());
            listings.add(listing);
            candidateCount += listing.candidates().size();
        }
        growCache(candidateCount);
        List<ScannedPlugin> accepted = new ArrayList<>();
        List<Rejection> rejected = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        Map<String, ScannedPlugin> byName = new HashMap<>();
        for (Listing listing : listings) {
            if (listing.warning() != null) {
                warnings.add(listing.warning());
            }
            Optional<String> untrustedDirectory = listing.candidates().isEmpty()
                    ? Optional.empty()
                    : PathTrust.untrusted(listing.directory(), policy.trustedOwners());
            if (untrustedDirectory.isPresent() && !policy.allowInsecure()) {
                for (Path file : listing.candidates()) {
                    rejected.add(new Rejection(file, file + ": not probed: " + untrustedDirectory.get()));
                }
            } else {
                untrustedDirectory.ifPresent(problem -> warnings.add(problem + "; scanned all the same" + ALLOWED));
                Optional<Path> checkedDirectory = realPath(listing.directory());
                for (Path file : listing.candidates()) {
                    Optional<ScannedPlugin> plugin = examine(file, checkedDirectory, rejected, warnings);
                    if (plugin.isEmpty()) {
                        continue;
                    }
                    ScannedPlugin first = byName.putIfAbsent(plugin.get().name(), plugin.get());
                    if (first == null) {
                        accepted.add(plugin.get());
                    } else {
                        rejected.add(new Rejection(
                                file,
                                file + ": shadowed by " + first.path() + " (same plugin name '" + first.name() + "')"));
                    }
                }
            }
            if (listing.leftOut() > 0) {
                String tooMany = listing.directory() + ": " + listing.leftOut()
                        + " more entries with a plugin file name were not examined" + " (at most "
                        + MAX_CANDIDATES_PER_DIRECTORY + " per directory, the first by name)";
                rejected.add(new Rejection(listing.directory(), tooMany));
                warnings.add(PluginPath.ENVIRONMENT_VARIABLE + " directory " + tooMany);
            }
        }
        return new ScanOutcome(accepted, rejected, warnings);
    }

    /** Lets the verdict cache hold at least twice {@code candidates}; it never shrinks. */
    private void growCache(long candidates) {
        long wanted = Math.max(MIN_CACHE_SIZE, 2 * candidates);
        synchronized (verdicts) {
            verdicts.policy().eviction().ifPresent(eviction -> {
                if (eviction.getMaximum() < wanted) {
                    eviction.setMaximum(wanted);
                }
            });
        }
    }

    /** For a missing directory whose name holds ':', the reminder that the path separator is ';'. */
    private static String separatorHint(Path directory) {
        return directory.toString().contains(":")
                ? " (" + PluginPath.ENVIRONMENT_VARIABLE + " separates directories with ';', not ':')"
                : "";
    }

    /**
     * The candidate files of {@code directory}, the first {@value #MAX_CANDIDATES_PER_DIRECTORY} in
     * name order; a warning when it cannot be listed.
     */
    private static Listing list(Path directory) {
        if (!Files.isDirectory(directory)) {
            return new Listing(
                    directory,
                    List.of(),
                    0,
                    Files.exists(directory)
                            ? PluginPath.ENVIRONMENT_VARIABLE + " entry " + directory + " is not a directory; skipped"
                            : PluginPath.ENVIRONMENT_VARIABLE + " directory " + directory + " does not exist; skipped"
                                    + separatorHint(directory));
        }
        List<String> names = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(directory)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                if (PluginKind.ofFileName(name).isPresent()) {
                    names.add(name);
                }
            }
        } catch (IOException | RuntimeException e) {
            return new Listing(
                    directory,
                    List.of(),
                    0,
                    PluginPath.ENVIRONMENT_VARIABLE + " directory " + directory + " cannot be read (" + describe(e)
                            + "); skipped");
        }
        names.sort(Comparator.naturalOrder());
        List<Path> files = new ArrayList<>();
        int next = 0;
        for (; next < names.size() && files.size() < MAX_CANDIDATES_PER_DIRECTORY; next++) {
            Path file = directory.resolve(names.get(next));
            if (!Files.isDirectory(file)) {
                files.add(file);
            }
        }
        return new Listing(directory, files, names.size() - next, null);
    }

    /**
     * Checks one candidate and probes it (or takes its cached verdict).
     *
     * @param checkedDirectory the real path of the directory whose trust was checked (and found
     *     good, or allowed with a warning): a file whose real path lies in it needs only itself
     *     checked; any other file is checked with the directories above its real path
     */
    private Optional<ScannedPlugin> examine(
            Path file, Optional<Path> checkedDirectory, List<Rejection> rejected, List<String> warnings) {
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
        Optional<Path> realFile = realPath(file);
        Optional<String> untrusted =
                realFile.isPresent() && realFile.get().getParent().equals(checkedDirectory.orElse(null))
                        ? PathTrust.untrustedEntry(file, policy.trustedOwners())
                        : PathTrust.untrusted(file, policy.trustedOwners());
        if (untrusted.isPresent()) {
            if (!policy.allowInsecure()) {
                rejected.add(new Rejection(file, untrusted.get() + "; not probed"));
                return Optional.empty();
            }
            warnings.add(untrusted.get() + "; probed all the same" + ALLOWED);
        }
        if (policy.reader().isPresent()) {
            Optional<String> unreadable =
                    PathTrust.unreadable(file, policy.reader().get());
            if (unreadable.isPresent()) {
                rejected.add(new Rejection(file, unreadable.get()));
                return Optional.empty();
            }
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

    private static Optional<Path> realPath(Path path) {
        try {
            return Optional.of(path.toRealPath());
        } catch (IOException e) {
            return Optional.empty();
        }
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
