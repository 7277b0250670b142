// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.javaplugin;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;

/**
 * A jar or zip that is not a usable Java plugin. The message is one line that starts with the
 * file's path and gives the reason, ready to show to a user.
 */
public class InvalidJavaPluginException extends Exception {
    private static final long serialVersionUID = 1L;

    private final transient Path path;

    InvalidJavaPluginException(Path path, String reason) {
        super(requireNonNull(path, "path is null") + ": " + requireNonNull(reason, "reason is null"));
        this.path = path;
    }

    InvalidJavaPluginException(Path path, String reason, Throwable cause) {
        this(path, reason);
        initCause(cause);
    }

    /** The rejected file. */
    public Path path() {
        return path;
    }
}
