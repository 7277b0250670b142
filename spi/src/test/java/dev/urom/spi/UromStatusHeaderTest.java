// SPDX-License-Identifier: Apache-2.0
package dev.urom.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The C ABI's {@code urom_status.h} and the Java SPI's {@link UromStatus} name the same statuses
 * with the same numbers, and the header's {@code urom_status_name} spells each as Java does.
 */
class UromStatusHeaderTest {
    private static final Path HEADER = Path.of("src/main/c/include/urom_status.h");
    private static final Pattern ENUM_ENTRY = Pattern.compile("\\bUROM_(?:ERR_)?([A-Z_]+) = (\\d+),");
    private static final Pattern NAME = Pattern.compile("\"([A-Z_]+)\",");

    @Test
    void theHeadersEnumIsTheJavaEnum() throws IOException {
        Map<String, Integer> header = new LinkedHashMap<>();
        Matcher entry = ENUM_ENTRY.matcher(Files.readString(HEADER));
        while (entry.find()) {
            header.put(entry.group(1), Integer.parseInt(entry.group(2)));
        }

        Map<String, Integer> java = new LinkedHashMap<>();
        for (UromStatus status : UromStatus.values()) {
            java.put(status.name(), status.code());
        }
        assertThat(header).containsExactlyEntriesOf(java);
    }

    @Test
    void theHeadersNamesAreTheJavaNamesInCodeOrder() throws IOException {
        String text = Files.readString(HEADER);
        String table = text.substring(text.indexOf("names[] = {"), text.indexOf("};", text.indexOf("names[] = {")));
        List<String> names = NAME.matcher(table).results().map(m -> m.group(1)).toList();

        assertThat(names)
                .containsExactlyElementsOf(Arrays.stream(UromStatus.values())
                        .sorted(Comparator.comparingInt(UromStatus::code))
                        .map(UromStatus::name)
                        .toList());
    }
}
