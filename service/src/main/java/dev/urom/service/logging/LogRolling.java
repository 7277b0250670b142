// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.logging;

/**
 * How a service log file rolls: once the file {@code NAME} has reached {@code maxFileBytes}, it is
 * renamed {@code NAME.1} (an older {@code NAME.1} becomes {@code NAME.2}, and so on) and a new
 * {@code NAME} is started; at most {@code maxFiles} files are kept, the current one included, so
 * the oldest is {@code NAME.<maxFiles - 1>} and older ones are deleted. Disk use per log is thus
 * about {@code maxFiles × maxFileBytes} (a file may pass the size by its last line).
 *
 * <p>Validated in the constructor: a refusal is an {@link IllegalArgumentException} with one line
 * naming the {@code urom daemon} option and the limit. Immutable.
 *
 * @param maxFileBytes the size at which a file rolls ({@code --log-file-size})
 * @param maxFiles how many files are kept, the current one included ({@code --log-file-count})
 */
public record LogRolling(long maxFileBytes, int maxFiles) {
    public static final long DEFAULT_MAX_FILE_BYTES = 10L << 20;
    public static final int DEFAULT_MAX_FILES = 5;
    public static final long MIN_MAX_FILE_BYTES = 4096;
    /** The current file and at least one rolled one. */
    public static final int MIN_MAX_FILES = 2;
    /** Each roll renames every kept file, so the count stays small. */
    public static final int MAX_MAX_FILES = 100;
    /** 10 MiB per file, 5 files. */
    public static final LogRolling DEFAULT = new LogRolling(DEFAULT_MAX_FILE_BYTES, DEFAULT_MAX_FILES);

    public LogRolling {
        if (maxFileBytes < MIN_MAX_FILE_BYTES) {
            throw new IllegalArgumentException(
                    "--log-file-size " + maxFileBytes + " is below the minimum of " + MIN_MAX_FILE_BYTES + " bytes");
        }
        if (maxFiles < MIN_MAX_FILES || maxFiles > MAX_MAX_FILES) {
            throw new IllegalArgumentException("--log-file-count " + maxFiles + " is not between " + MIN_MAX_FILES
                    + " and " + MAX_MAX_FILES + " (the current file and the rolled ones)");
        }
    }

    /** The name of the rolled file {@code index} (1 the newest) of the log file {@code fileName}. */
    public static String rolledName(String fileName, int index) {
        return fileName + "." + index;
    }
}
