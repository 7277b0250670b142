// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The daemon's {@code /metrics} against what the hosts of a {@link LoadBench} run counted: per
 * graph plugin, the commands the workers received ({@code urom_commands_total{plugin}}) against
 * those the hosts sent, and the SUCCESS notifications the workers wrote ({@code
 * urom_notifications_total{plugin,status="SUCCESS"}}) against the SUCCESS answers the hosts read;
 * then every command and every notification of any plugin or status against the hosts' totals (a
 * stray or doubled command shows there), and the workers started. Every figure must be exactly
 * equal.
 *
 * <p>Immutable; {@link #compare} is a pure function.
 *
 * @param when names the scrape in failure lines ({@code while the workers run}, {@code after they ended})
 */
record LoadMetricsCheck(String when, List<Line> lines) {
    static final String COMMANDS = "urom_commands_total";
    static final String NOTIFICATIONS = "urom_notifications_total";
    static final String WORKER_STARTS = "urom_worker_starts_total";

    LoadMetricsCheck {
        lines = List.copyOf(lines);
    }

    /** One compared figure: the daemon's sample and the hosts' count. */
    record Line(String metric, long daemon, long hosts) {
        boolean matches() {
            return daemon == hosts;
        }
    }

    /**
     * What the hosts counted of one plugin.
     *
     * @param sent commands written
     * @param succeeded answers read with SUCCESS (right bytes or not)
     * @param answers every answer read, any status
     */
    record HostCounts(long sent, long succeeded, long answers) {}

    /** Compares {@code scrape} with {@code byPlugin} (plugin name → what the hosts counted) and the {@code workers} started. */
    static LoadMetricsCheck compare(String when, MetricsScrape scrape, Map<String, HostCounts> byPlugin, long workers) {
        List<Line> lines = new ArrayList<>();
        long sent = 0;
        long answers = 0;
        for (Map.Entry<String, HostCounts> plugin : byPlugin.entrySet()) {
            String name = plugin.getKey();
            lines.add(new Line(COMMANDS + "{plugin=\"" + name + "\"}", count(scrape.value(COMMANDS, "plugin", name)), plugin.getValue().sent()));
            lines.add(new Line(NOTIFICATIONS + "{plugin=\"" + name + "\",status=\"SUCCESS\"}",
                    count(scrape.value(NOTIFICATIONS, "plugin", name, "status", "SUCCESS")), plugin.getValue().succeeded()));
            sent += plugin.getValue().sent();
            answers += plugin.getValue().answers();
        }
        lines.add(new Line(COMMANDS + " (every plugin)", count(scrape.sum(COMMANDS)), sent));
        lines.add(new Line(NOTIFICATIONS + " (every plugin and status)", count(scrape.sum(NOTIFICATIONS)), answers));
        lines.add(new Line(WORKER_STARTS + "{outcome=\"started\",status=\"SUCCESS\"}",
                count(scrape.value(WORKER_STARTS, "outcome", "started", "status", "SUCCESS")), workers));
        return new LoadMetricsCheck(when, lines);
    }

    boolean matches() {
        return lines.stream().allMatch(Line::matches);
    }

    /** One line per figure that differs: {@code metrics (WHEN): NAME = X, hosts counted Y}. */
    List<String> failures() {
        return lines.stream().filter(l -> !l.matches())
                .map(l -> String.format(Locale.ROOT, "metrics (%s): %s = %d, hosts counted %d", when, l.metric(), l.daemon(), l.hosts())).toList();
    }

    private static long count(double value) {
        return Math.round(value);
    }
}
