// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.jna.Pointer;
import dev.urom.plugins.coll.protocol.CollLayout;
import dev.urom.plugins.coll.protocol.CollType;
import dev.urom.plugins.coll.protocol.DataType;
import dev.urom.plugins.coll.protocol.ReduceOp;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class CollArgsTest {
    @Test
    void inPlaceDropsTheSourceAndKeepsTheDestinationAndItsHandle() {
        CollArgs args = CollArgs.allreduce(DataType.FLOAT64, ReduceOp.SUM, 10, 0x1000, 0x2000)
                .withHandles(7, 8)
                .asInPlace();

        assertThat(args.inPlace()).isTrue();
        assertThat(args.src()).isZero();
        assertThat(args.srcMemh()).isZero();
        assertThat(args.dst()).isEqualTo(0x2000);
        assertThat(args.dstMemh()).isEqualTo(8);
        assertThat(args.coll()).isEqualTo(CollType.ALLREDUCE);
    }

    @Test
    void aBroadcastNamesOneBufferAndItsRoot() {
        CollArgs args = CollArgs.bcast(DataType.UINT8, 5, 2, 0x3000);

        assertThat(args.dst()).isEqualTo(0x3000);
        assertThat(args.src()).isZero();
        assertThat(args.root()).isEqualTo(2);
    }

    @Test
    void knobsKeepTheMembersAndTheCookieIsTheClientsOwn() {
        TeamSpec spec = TeamSpec.list(9, 1, 4, 6, 8).withKnobs(8192, 1024, 500);

        var command = spec.withCookie(42);
        assertThat(command.memberIds()).containsExactly(4, 6, 8);
        assertThat(command.members()).isEqualTo(CollLayout.MEMBERS_LIST);
        assertThat(command.cookie()).isEqualTo(42);
        assertThat(command.chunkBytes()).isEqualTo(8192);
        assertThat(command.smallBytes()).isEqualTo(1024);
        assertThat(command.timeoutMs()).isEqualTo(500);
        assertThat(TeamSpec.range(3, 4, 0, 10, 2).command().memberId(3)).isEqualTo(16);
    }

    @Test
    void aTeamIdNoFieldCanHoldIsRefusedHere() {
        assertThatThrownBy(() -> TeamSpec.range(1L << 32, 2, 0, 0, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("team_id");
    }

    @Test
    void aDirectBufferHasTheAddressItsBytesAreAt() {
        ByteBuffer buffer = ByteBuffer.allocateDirect(16);
        long address = CollBuffers.address(buffer);

        new Pointer(address).setByte(3, (byte) 0x5a);
        assertThat(buffer.get(3)).isEqualTo((byte) 0x5a);
        assertThatThrownBy(() -> CollBuffers.address(ByteBuffer.allocate(16)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("direct buffer");
    }
}
