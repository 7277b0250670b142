// SPDX-License-Identifier: Apache-2.0
package dev.urom.apicheck;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The differences between a committed API listing and the build's, as the lines a reader needs: the
 * first few removed ({@code -}) and added ({@code +}) lines, each with its line number and the type
 * block it belongs to, from a longest-common-subsequence alignment. Stateless.
 */
final class ApiDiff {
    private ApiDiff() {}

    /** Nothing when the two are equal; otherwise at most {@code maxLines} differing lines and their count. */
    static Optional<String> describe(List<String> committed, List<String> built, int maxLines) {
        int n = committed.size();
        int m = built.size();
        int[][] common = new int[n + 1][m + 1];
        for (int i = n - 1; i >= 0; i--) {
            for (int j = m - 1; j >= 0; j--) {
                common[i][j] = committed.get(i).equals(built.get(j))
                        ? common[i + 1][j + 1] + 1
                        : Math.max(common[i + 1][j], common[i][j + 1]);
            }
        }
        List<String> changes = new ArrayList<>();
        int i = 0;
        int j = 0;
        while (i < n || j < m) {
            if (i < n && j < m && committed.get(i).equals(built.get(j))) {
                i++;
                j++;
            } else if (i < n && (j == m || common[i + 1][j] >= common[i][j + 1])) {
                changes.add("  - line " + (i + 1) + ": " + committed.get(i) + context(committed, i));
                i++;
            } else {
                changes.add("  + line " + (j + 1) + ": " + built.get(j) + context(built, j));
                j++;
            }
        }
        if (changes.isEmpty()) {
            return Optional.empty();
        }
        StringBuilder b = new StringBuilder(
                changes.size() + " line(s) differ (- only in the committed file, + only in the build):");
        changes.stream().limit(maxLines).forEach(c -> b.append('\n').append(c));
        if (changes.size() > maxLines) {
            b.append("\n  ... and ").append(changes.size() - maxLines).append(" more");
        }
        return Optional.of(b.toString());
    }

    /** The type line a member line belongs to (the nearest unindented line above it). */
    private static String context(List<String> lines, int index) {
        if (!lines.get(index).startsWith(" ")) {
            return "";
        }
        for (int k = index - 1; k >= 0; k--) {
            String line = lines.get(k);
            if (!line.isEmpty() && !line.startsWith(" ")) {
                return "   (in " + line + ")";
            }
        }
        return "";
    }
}
