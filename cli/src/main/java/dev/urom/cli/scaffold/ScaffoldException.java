// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli.scaffold;

/** A project that cannot be written; the message is one line naming the file or folder and the reason. */
public final class ScaffoldException extends Exception {
    private static final long serialVersionUID = 1L;

    public ScaffoldException(String message) {
        super(message, null, false, false);
    }
}
