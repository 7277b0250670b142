// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll.protocol;

/** The kinds of worker-to-worker message ({@code enum urom_coll_msg_kind}), the tag's top four bits. Immutable. */
public enum MessageKind {
    HELLO(1),
    AGREE(2),
    DATA(3);

    private final int code;

    MessageKind(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** The kind with this code, or null when there is none. */
    public static MessageKind ofCode(long code) {
        for (MessageKind kind : values()) {
            if (kind.code == code) {
                return kind;
            }
        }
        return null;
    }
}
