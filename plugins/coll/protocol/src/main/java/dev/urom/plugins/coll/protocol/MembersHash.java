// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll.protocol;

/** The FNV-1a 64 hash of a team's members' domain ids, each as 8 little-endian bytes, in rank order. Stateless. */
public final class MembersHash {
    public static final long OFFSET_BASIS = 0xcbf29ce484222325L;
    public static final long PRIME = 0x100000001b3L;

    private MembersHash() {}

    public static long of(long[] domainIds) {
        long hash = OFFSET_BASIS;
        for (long id : domainIds) {
            for (int i = 0; i < 8; i++) {
                hash ^= (id >>> (8 * i)) & 0xff;
                hash *= PRIME;
            }
        }
        return hash;
    }
}
