// SPDX-License-Identifier: Apache-2.0
package dev.urom.wire;

import dev.urom.spi.Api;

/** The message types of the wire protocol with their codes. */
@Api(status = Api.Status.INTERNAL, since = "0.1")
public enum MessageType {
    HELLO(1),
    HELLO_OK(2),
    ERROR(3),
    CHALLENGE(4),
    PROOF(5),
    PLUGINS(10),
    PLUGINS_REPLY(11),
    WORKER_START(12),
    WORKER_START_REPLY(13),
    WORKERS_IN_GROUP(14),
    WORKERS_IN_GROUP_REPLY(15),
    WORKERS_INFO(16),
    WORKERS_INFO_REPLY(17),
    SERVICE_INFO(18),
    SERVICE_INFO_REPLY(19),
    COMMAND(20),
    NOTIFY(21),
    STOP(22),
    STOP_OK(23),
    ADDRESS(24),
    ADDRESS_REPLY(25),
    DOMAIN_SET(26),
    DOMAIN_SET_REPLY(27);

    private static final MessageType[] BY_CODE = new MessageType[28];

    static {
        for (MessageType t : values()) {
            BY_CODE[t.code] = t;
        }
    }

    private final int code;

    MessageType(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** The type with this code, or {@code null}. */
    static MessageType fromCode(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
