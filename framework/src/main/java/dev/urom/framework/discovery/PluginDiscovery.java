// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.discovery;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * Discovery for one service: scans the plugin path with a {@link PluginScanner}, gives ids with a
 * {@link PluginIdRegistry}, and keeps the last result for look-ups. Warnings and rejections are
 * logged at WARN when they are new: a rejection is logged again only when its reason changes (or
 * after a scan without it), a warning only after a scan without it, so scanning on every request
 * does not repeat them. What was logged is remembered for the last scan only, so the memory it
 * takes is bounded by that scan's findings.
 *
 * <p>Thread-safe: scans are serialised; look-ups read the last completed scan.
 */
public final class PluginDiscovery {
    private static final Logger LOG = LogManager.getLogger(PluginDiscovery.class);

    private final PluginScanner scanner;
    private final PluginIdRegistry registry;
    private volatile ScanResult last = ScanResult.empty();
    /** What the last scan logged: the reason by rejected path, and each warning. Guarded by this. */
    private Map<Path, String> loggedRejections = Map.of();

    private Set<String> loggedWarnings = Set.of();

    /**
     * Discovery with the default scanner (native probe time limit 10 s, the secure {@link
     * ScanPolicy}) and a new registry.
     */
    public PluginDiscovery() {
        this(new PluginScanner(), new PluginIdRegistry());
    }

    public PluginDiscovery(PluginScanner scanner, PluginIdRegistry registry) {
        this.scanner = requireNonNull(scanner, "scanner is null");
        this.registry = requireNonNull(registry, "registry is null");
    }

    /**
     * Scans {@code uromPluginPath} and gives the accepted plugins their ids.
     *
     * @throws IllegalArgumentException when the path holds an entry that is not a valid path
     */
    public ScanResult scan(String uromPluginPath) {
        return scan(PluginPath.parse(uromPluginPath));
    }

    /** Scans {@code directories}, in order, and gives the accepted plugins their ids. */
    public synchronized ScanResult scan(List<Path> directories) {
        ScanOutcome outcome = scanner.scan(directories);
        PluginIdRegistry.Assignment assignment = registry.assign(outcome.plugins());
        List<Rejection> rejected = new ArrayList<>(outcome.rejected());
        rejected.addAll(assignment.rejected());
        ScanResult result = new ScanResult(assignment.plugins(), rejected, outcome.warnings());
        logNew(result);
        last = result;
        return result;
    }

    private void logNew(ScanResult result) {
        Set<String> warnings = new HashSet<>();
        for (String warning : result.warnings()) {
            if (warnings.add(warning) && !loggedWarnings.contains(warning)) {
                LOG.warn("{}", warning);
            }
        }
        Map<Path, String> rejections = new HashMap<>();
        for (Rejection rejection : result.rejected()) {
            rejections.put(rejection.path(), rejection.reason());
            if (!rejection.reason().equals(loggedRejections.get(rejection.path()))) {
                LOG.warn("plugin rejected: {}", rejection.reason());
            }
        }
        loggedWarnings = warnings;
        loggedRejections = rejections;
    }

    /** The result of the last scan (empty before the first). */
    public ScanResult lastScan() {
        return last;
    }

    /** The plugin named {@code name} in the last scan. */
    public Optional<DiscoveredPlugin> byName(String name) {
        return last.plugins().stream().filter(p -> p.name().equals(name)).findFirst();
    }

    /** The plugin with id {@code id} in the last scan. */
    public Optional<DiscoveredPlugin> byId(long id) {
        return last.plugins().stream().filter(p -> p.id() == id).findFirst();
    }

    /** The registry, for leases on the ids a worker loads. */
    public PluginIdRegistry registry() {
        return registry;
    }

    public PluginScanner scanner() {
        return scanner;
    }
}
