// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One scrape of a daemon's {@code /metrics} in the Prometheus text format, as far as the daemon
 * writes it: sample lines {@code name{label="value",...} number}, no escapes in label values, no
 * timestamps; comment lines are skipped.
 *
 * <p>Immutable. {@link #parse} throws {@link IllegalArgumentException} naming the first line it
 * cannot read; {@link #fetch} throws {@link IOException} when the endpoint does not answer 200.
 */
record MetricsScrape(List<Sample> samples) {
    private static final Pattern SAMPLE = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})? (\\S+)");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"([^\"\\\\]*)\",?");

    MetricsScrape {
        samples = List.copyOf(samples);
    }

    record Sample(String name, Map<String, String> labels, double value) {
        Sample {
            labels = Map.copyOf(labels);
        }
    }

    static MetricsScrape fetch(URI url, Duration timeout) throws IOException, InterruptedException {
        HttpResponse<String> response = HttpClient.newBuilder().connectTimeout(timeout).build()
                .send(HttpRequest.newBuilder(url).timeout(timeout).build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException(url + " answered " + response.statusCode() + ": " + response.body().strip());
        }
        return parse(response.body());
    }

    static MetricsScrape parse(String text) {
        List<Sample> samples = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            Matcher sample = SAMPLE.matcher(line);
            if (!sample.matches()) {
                throw new IllegalArgumentException("metrics line '" + line + "' is not a sample");
            }
            Map<String, String> labels = new LinkedHashMap<>();
            String labelText = sample.group(2) == null ? "" : sample.group(2);
            Matcher label = LABEL.matcher(labelText);
            int end = 0;
            while (end < labelText.length() && label.find(end) && label.start() == end) {
                labels.put(label.group(1), label.group(2));
                end = label.end();
            }
            if (end != labelText.length()) {
                throw new IllegalArgumentException("metrics line '" + line + "' has labels that are not name=\"value\" pairs");
            }
            try {
                samples.add(new Sample(sample.group(1), labels, Double.parseDouble(sample.group(3))));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("metrics line '" + line + "' does not end with a number");
            }
        }
        return new MetricsScrape(samples);
    }

    /** The value of the sample {@code name} with exactly the labels {@code labelPairs} (name, value, ...); 0 when there is none. */
    double value(String name, String... labelPairs) {
        Map<String, String> wanted = new LinkedHashMap<>();
        for (int i = 0; i + 1 < labelPairs.length; i += 2) {
            wanted.put(labelPairs[i], labelPairs[i + 1]);
        }
        List<Sample> matching = samples.stream().filter(s -> s.name().equals(name) && s.labels().equals(wanted)).toList();
        if (matching.size() > 1) {
            throw new IllegalArgumentException(matching.size() + " samples of " + name + wanted);
        }
        return matching.isEmpty() ? 0 : matching.get(0).value();
    }

    /** The sum of every sample called {@code name}, whatever its labels. */
    double sum(String name) {
        return samples.stream().filter(s -> s.name().equals(name)).mapToDouble(Sample::value).sum();
    }
}
