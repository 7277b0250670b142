// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll.host;

import dev.urom.plugins.coll.protocol.CollCommand;

/**
 * What TEAM_CREATE says: the team's id, its members (by their domain ids), this worker's rank and
 * the three knobs (0: the plugin's default). Every member must give the same, but for the rank.
 * Immutable; the builders throw {@link IllegalArgumentException} for values no field can hold.
 */
public record TeamSpec(CollCommand.TeamCreate command) {
    /** A team of {@code size} ranks, rank {@code i} being domain id {@code start + i * stride}. */
    public static TeamSpec range(long teamId, long size, long rank, long start, long stride) {
        return new TeamSpec(CollCommand.TeamCreate.range(0, teamId, size, rank, start, stride, 0, 0, 0));
    }

    /** A team of the listed domain ids, in rank order. */
    public static TeamSpec list(long teamId, long rank, long... domainIds) {
        return new TeamSpec(CollCommand.TeamCreate.list(0, teamId, rank, domainIds, 0, 0, 0));
    }

    /** The same team with these knobs (bytes per message, the small-message threshold, the time limit). */
    public TeamSpec withKnobs(long chunkBytes, long smallBytes, long timeoutMs) {
        CollCommand.TeamCreate c = command;
        return new TeamSpec(new CollCommand.TeamCreate(
                0,
                c.teamId(),
                c.size(),
                c.rank(),
                c.members(),
                c.start(),
                c.stride(),
                chunkBytes,
                smallBytes,
                timeoutMs,
                c.memberIds()));
    }

    /** The command with {@code cookie}. */
    CollCommand.TeamCreate withCookie(long cookie) {
        CollCommand.TeamCreate c = command;
        return new CollCommand.TeamCreate(
                cookie,
                c.teamId(),
                c.size(),
                c.rank(),
                c.members(),
                c.start(),
                c.stride(),
                c.chunkBytes(),
                c.smallBytes(),
                c.timeoutMs(),
                c.memberIds());
    }
}
