// SPDX-License-Identifier: Apache-2.0
package dev.urom.wire;

import dev.urom.spi.Api;

/** Who opens a connection, as HELLO announces it. */
@Api(status = Api.Status.INTERNAL, since = "0.1")
public enum Role {
    HOST(1),
    WORKER(2);

    private final int code;

    Role(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** The role with this wire code, or {@code null} when there is none. */
    static Role fromCode(int code) {
        for (Role role : values()) {
            if (role.code == code) {
                return role;
            }
        }
        return null;
    }
}
