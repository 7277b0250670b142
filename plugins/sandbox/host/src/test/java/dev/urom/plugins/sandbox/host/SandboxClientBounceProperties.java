// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.sandbox.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.host.Notification;
import dev.urom.plugins.sandbox.host.SandboxClient.BounceRole;
import dev.urom.plugins.sandbox.host.SandboxClient.Bounced;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.CompletionException;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/** The BOUNCE command and notification bytes of docs/sandbox-protocol.md, as SandboxClient writes and reads them. */
class SandboxClientBounceProperties {
    private static final byte[] NO_USER_DATA = new byte[0];

    @Property
    void theCommandIsTypeThenSixLittleEndianFields(
            @ForAll long context,
            @ForAll long dest,
            @ForAll long count,
            @ForAll long tag,
            @ForAll long iterations,
            @ForAll BounceRole role) {
        byte[] bytes = SandboxClient.bounceCommand(context, dest, count, tag, iterations, role);
        assertThat(bytes).hasSize(SandboxClient.BOUNCE_COMMAND_BYTES);
        ByteBuffer in = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        assertThat(new long[] {
                    in.getLong(), in.getLong(), in.getLong(), in.getLong(), in.getLong(), in.getLong(), in.getLong()
                })
                .containsExactly(3, context, dest, count, tag, iterations, role == BounceRole.INITIATOR ? 0 : 1);
    }

    /** The notification's status is the one inside it, whatever the header says (they are equal from a plugin). */
    @Property
    void aBounceNotificationDecodesWhateverItsStatus(
            @ForAll long context, @ForAll long elapsedNs, @ForAll long done, @ForAll UromStatus status) {
        Bounced bounced = SandboxClient.bounced(
                new Notification(status, notification(context, elapsedNs, done, status.code(), 0), NO_USER_DATA));
        assertThat(bounced).isEqualTo(new Bounced(elapsedNs, done, status));
    }

    @Property
    void aRefusalFailsWithItsStatus(@ForAll UromStatus status) {
        if (status.isSuccess()) {
            return;
        }
        assertThatThrownBy(() -> SandboxClient.bounced(new Notification(status, new byte[0], NO_USER_DATA)))
                .isInstanceOf(CompletionException.class)
                .cause()
                .isInstanceOfSatisfying(
                        UromException.class, e -> assertThat(e.status()).isEqualTo(status));
    }

    @Property
    void anyOtherLengthIsUnexpected(@ForAll @IntRange(min = 0, max = 96) int length, @ForAll UromStatus status) {
        if (length == SandboxClient.BOUNCE_NOTIFY_BYTES || (length == 0 && !status.isSuccess())) {
            return;
        }
        byte[] payload = ByteBuffer.allocate(length)
                .order(ByteOrder.LITTLE_ENDIAN)
                .put(notification(1, 2, 3, 0, 0), 0, Math.min(length, SandboxClient.BOUNCE_NOTIFY_BYTES))
                .array();
        assertUnexpected(new Notification(status, payload, NO_USER_DATA));
    }

    @Property
    void anotherTypeIsUnexpected(@ForAll long type) {
        if (type == SandboxClient.BOUNCE) {
            return;
        }
        byte[] payload = notification(1, 2, 3, 0, 0);
        ByteBuffer.wrap(payload).order(ByteOrder.LITTLE_ENDIAN).putLong(0, type);
        assertUnexpected(new Notification(UromStatus.SUCCESS, payload, NO_USER_DATA));
    }

    @Test
    void aStatusCodeThatIsNoStatusIsUnexpected() {
        assertUnexpected(new Notification(UromStatus.SUCCESS, notification(1, 2, 3, -1, 0), NO_USER_DATA));
        assertUnexpected(new Notification(UromStatus.SUCCESS, notification(1, 2, 3, 1000, 0), NO_USER_DATA));
    }

    @Test
    void theMeanRoundTripIsElapsedOverRoundsAndNaNWithoutRounds() {
        assertThat(new Bounced(3_000, 4, UromStatus.SUCCESS).meanRoundTripNs()).isEqualTo(750.0);
        assertThat(new Bounced(3_000, 0, UromStatus.TIME_OUT).meanRoundTripNs()).isNaN();
    }

    @Test
    void rolesAreZeroAndOne() {
        assertThat(BounceRole.INITIATOR.code()).isZero();
        assertThat(BounceRole.RESPONDER.code()).isEqualTo(1);
    }

    private static void assertUnexpected(Notification n) {
        assertThatThrownBy(() -> SandboxClient.bounced(n))
                .isInstanceOf(CompletionException.class)
                .cause()
                .isInstanceOfSatisfying(
                        UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.UNEXPECTED));
    }

    /** A BOUNCE notification written out field by field. */
    private static byte[] notification(long context, long elapsedNs, long done, int status, int reserved) {
        return ByteBuffer.allocate(40)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putLong(3)
                .putLong(context)
                .putLong(elapsedNs)
                .putLong(done)
                .putInt(status)
                .putInt(reserved)
                .array();
    }
}
