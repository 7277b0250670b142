// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli.e2e;

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
 * One scrape of a daemon's {@code /metrics}, read as the Prometheus text format: each sample line
 * {@code name{label="value",...} number}. Enough of the format for our own metrics (no escapes in
 * label values, no timestamps). Immutable.
 */
record PrometheusScrape(String contentType, List<Sample> samples) {
    private static final Pattern SAMPLE = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})? (\\S+)");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"([^\"]*)\",?");

    record Sample(String name, Map<String, String> labels, double value) {}

    static PrometheusScrape of(String url) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(url))
                                .timeout(Duration.ofSeconds(30))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new AssertionError(url + " answered " + response.statusCode() + ": " + response.body());
        }
        return parse(response.headers().firstValue("Content-Type").orElse(""), response.body());
    }

    static PrometheusScrape parse(String contentType, String text) {
        List<Sample> samples = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            Matcher sample = SAMPLE.matcher(line);
            if (!sample.matches()) {
                throw new AssertionError("not a sample line: " + line);
            }
            Map<String, String> labels = new LinkedHashMap<>();
            if (sample.group(2) != null) {
                Matcher label = LABEL.matcher(sample.group(2));
                int end = 0;
                while (label.find() && label.start() == end) {
                    labels.put(label.group(1), label.group(2));
                    end = label.end();
                }
                if (end != sample.group(2).length()) {
                    throw new AssertionError("labels not understood: " + line);
                }
            }
            samples.add(new Sample(sample.group(1), labels, Double.parseDouble(sample.group(3))));
        }
        return new PrometheusScrape(contentType, List.copyOf(samples));
    }

    /** The value of the one sample with this name and exactly these labels; 0 when there is none (a counter not yet touched). */
    double value(String name, String... labelPairs) {
        Map<String, String> wanted = new LinkedHashMap<>();
        for (int i = 0; i < labelPairs.length; i += 2) {
            wanted.put(labelPairs[i], labelPairs[i + 1]);
        }
        List<Sample> matching = samples.stream()
                .filter(s -> s.name().equals(name) && s.labels().equals(wanted))
                .toList();
        if (matching.size() > 1) {
            throw new AssertionError(matching.size() + " samples of " + name + wanted);
        }
        return matching.isEmpty() ? 0 : matching.get(0).value();
    }

    /** Every sample of this name, whatever its labels. */
    List<Sample> all(String name) {
        return samples.stream().filter(s -> s.name().equals(name)).toList();
    }
}
