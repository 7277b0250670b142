// SPDX-License-Identifier: Apache-2.0
package dev.urom.deploy;

/** A manifest that cannot be read or is not what it claims to be; the message is one line naming the manifest and the field. */
final class ManifestException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ManifestException(String message) {
        super(message);
    }

    ManifestException(String message, Throwable cause) {
        super(message, cause);
    }
}
