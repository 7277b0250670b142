// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll.protocol;

import static dev.urom.plugins.coll.protocol.CollLayout.*;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Holds every offset, size, bound and code of the Java codecs to {@code urom_coll.h}: a C program
 * compiled against the header prints them, and the test compares.
 */
class CollHeaderContractTest {
    /** Field name to its Java offset and size, in the order the C program prints them. */
    private static final Map<String, int[]> FIELDS = new LinkedHashMap<>();

    private static final Map<String, Long> CONSTANTS = new LinkedHashMap<>();
    private static final long[][] TAG_INPUTS = {
        {1, 1, 0, 0, 0},
        {2, 4095, 65535, 65535, 65535},
        {3, 4096, 65536, 65537, 65538},
        {15, 0x1234, 0x123456789L, 0xabcdef, 0xfedcba},
        {3, 77, 1L << 40, 3, 4},
        {0, 0, 0, 0, 0},
    };

    private static Map<String, String> printed;

    static {
        field("cmd_hdr.type", CMD_HDR_TYPE, 2);
        field("cmd_hdr.version", CMD_HDR_VERSION, 2);
        field("cmd_hdr.reserved", CMD_HDR_RESERVED, 4);
        field("cmd_hdr.cookie", CMD_HDR_COOKIE, 8);
        size("cmd_hdr", CMD_HDR_SIZE);
        field("cmd_team_create.team_id", TEAM_CREATE_TEAM_ID, 4);
        field("cmd_team_create.size", TEAM_CREATE_SIZE_FIELD, 4);
        field("cmd_team_create.rank", TEAM_CREATE_RANK, 4);
        field("cmd_team_create.members", TEAM_CREATE_MEMBERS, 4);
        field("cmd_team_create.start", TEAM_CREATE_START, 8);
        field("cmd_team_create.stride", TEAM_CREATE_STRIDE, 8);
        field("cmd_team_create.chunk_bytes", TEAM_CREATE_CHUNK_BYTES, 4);
        field("cmd_team_create.small_bytes", TEAM_CREATE_SMALL_BYTES, 4);
        field("cmd_team_create.timeout_ms", TEAM_CREATE_TIMEOUT_MS, 4);
        field("cmd_team_create.reserved", TEAM_CREATE_RESERVED, 4);
        field("cmd_team_create.member_ids[0]", TEAM_CREATE_MEMBER_IDS, 8);
        size("cmd_team_create", TEAM_CREATE_SIZE);
        field("cmd_team_destroy.team_id", TEAM_DESTROY_TEAM_ID, 4);
        field("cmd_team_destroy.reserved", TEAM_DESTROY_RESERVED, 4);
        size("cmd_team_destroy", TEAM_DESTROY_SIZE);
        field("cmd_mem_map.address", MEM_MAP_ADDRESS, 8);
        field("cmd_mem_map.length", MEM_MAP_LENGTH, 8);
        field("cmd_mem_map.access", MEM_MAP_ACCESS, 4);
        field("cmd_mem_map.reserved", MEM_MAP_RESERVED, 4);
        size("cmd_mem_map", MEM_MAP_SIZE);
        field("cmd_mem_unmap.memh", MEM_UNMAP_MEMH, 8);
        size("cmd_mem_unmap", MEM_UNMAP_SIZE);
        field("cmd_post.team_id", POST_TEAM_ID, 4);
        field("cmd_post.coll", POST_COLL, 2);
        field("cmd_post.dtype", POST_DTYPE, 1);
        field("cmd_post.op", POST_OP, 1);
        field("cmd_post.root", POST_ROOT, 4);
        field("cmd_post.flags", POST_FLAGS, 4);
        field("cmd_post.count", POST_COUNT, 8);
        field("cmd_post.src", POST_SRC, 8);
        field("cmd_post.dst", POST_DST, 8);
        field("cmd_post.src_memh", POST_SRC_MEMH, 8);
        field("cmd_post.dst_memh", POST_DST_MEMH, 8);
        size("cmd_post", POST_SIZE);
        field("notif_hdr.type", NOTIF_HDR_TYPE, 2);
        field("notif_hdr.version", NOTIF_HDR_VERSION, 2);
        field("notif_hdr.status", NOTIF_HDR_STATUS, 4);
        field("notif_hdr.cookie", NOTIF_HDR_COOKIE, 8);
        field("notif_hdr.reason", NOTIF_HDR_REASON, 4);
        field("notif_hdr.detail", NOTIF_HDR_DETAIL, 4);
        size("notif_hdr", NOTIF_HDR_SIZE);
        field("notif_team_create.team_id", NOTIF_TEAM_CREATE_TEAM_ID, 4);
        field("notif_team_create.rank", NOTIF_TEAM_CREATE_RANK, 4);
        field("notif_team_create.size", NOTIF_TEAM_CREATE_SIZE_FIELD, 4);
        field("notif_team_create.reserved", NOTIF_TEAM_CREATE_RESERVED, 4);
        size("notif_team_create", NOTIF_TEAM_CREATE_SIZE);
        field("notif_team_destroy.team_id", NOTIF_TEAM_DESTROY_TEAM_ID, 4);
        field("notif_team_destroy.reserved", NOTIF_TEAM_DESTROY_RESERVED, 4);
        size("notif_team_destroy", NOTIF_TEAM_DESTROY_SIZE);
        field("notif_mem_map.memh", NOTIF_MEM_MAP_MEMH, 8);
        size("notif_mem_map", NOTIF_MEM_MAP_SIZE);
        size("notif_mem_unmap", NOTIF_MEM_UNMAP_SIZE);
        field("notif_post.team_id", NOTIF_POST_TEAM_ID, 4);
        field("notif_post.reserved", NOTIF_POST_RESERVED, 4);
        field("notif_post.sequence", NOTIF_POST_SEQUENCE, 8);
        size("notif_post", NOTIF_POST_SIZE);
        field("hello.version", HELLO_VERSION, 2);
        field("hello.reserved", HELLO_RESERVED, 2);
        field("hello.team_id", HELLO_TEAM_ID, 4);
        field("hello.size", HELLO_SIZE_FIELD, 4);
        field("hello.rank", HELLO_RANK, 4);
        field("hello.members_hash", HELLO_MEMBERS_HASH, 8);
        field("hello.chunk_bytes", HELLO_CHUNK_BYTES, 4);
        field("hello.small_bytes", HELLO_SMALL_BYTES, 4);
        field("hello.timeout_ms", HELLO_TIMEOUT_MS, 4);
        field("hello.refused", HELLO_REFUSED, 4);
        size("hello", HELLO_SIZE);
        field("agree.min", AGREE_MIN, 8 * AGREE_FIELDS);
        field("agree.max", AGREE_MAX, 8 * AGREE_FIELDS);
        field("agree.refused", AGREE_REFUSED, 4);
        field("agree.refused_reason", AGREE_REFUSED_REASON, 4);
        size("agree", AGREE_SIZE);

        CONSTANTS.put("UROM_COLL_PLUGIN_VERSION", (long) PLUGIN_VERSION);
        CONSTANTS.put("UROM_COLL_PROTOCOL_VERSION", (long) PROTOCOL_VERSION);
        CONSTANTS.put("UROM_COLL_TEAM_ID_MAX", (long) TEAM_ID_MAX);
        CONSTANTS.put("UROM_COLL_TEAM_SIZE_MAX", (long) TEAM_SIZE_MAX);
        CONSTANTS.put("UROM_COLL_TEAM_LIST_MAX", (long) TEAM_LIST_MAX);
        CONSTANTS.put("UROM_COLL_TEAMS_PER_WORKER", (long) TEAMS_PER_WORKER);
        CONSTANTS.put("UROM_COLL_INFLIGHT_MAX", (long) INFLIGHT_MAX);
        CONSTANTS.put("UROM_COLL_MEMH_MAX", (long) MEMH_MAX);
        CONSTANTS.put("UROM_COLL_CHUNK_DEFAULT", (long) CHUNK_DEFAULT);
        CONSTANTS.put("UROM_COLL_CHUNK_MIN", (long) CHUNK_MIN);
        CONSTANTS.put("UROM_COLL_CHUNK_MAX", (long) CHUNK_MAX);
        CONSTANTS.put("UROM_COLL_SMALL_DEFAULT", (long) SMALL_DEFAULT);
        CONSTANTS.put("UROM_COLL_SMALL_MAX", (long) SMALL_MAX);
        CONSTANTS.put("UROM_COLL_TIMEOUT_MS_DEFAULT", (long) TIMEOUT_MS_DEFAULT);
        CONSTANTS.put("UROM_COLL_TIMEOUT_MS_MAX", (long) TIMEOUT_MS_MAX);
        CONSTANTS.put("UROM_COLL_MEMBERS_RANGE", (long) MEMBERS_RANGE);
        CONSTANTS.put("UROM_COLL_MEMBERS_LIST", (long) MEMBERS_LIST);
        CONSTANTS.put("UROM_COLL_ACCESS_READ", (long) ACCESS_READ);
        CONSTANTS.put("UROM_COLL_ACCESS_WRITE", (long) ACCESS_WRITE);
        CONSTANTS.put("UROM_COLL_IN_PLACE", (long) IN_PLACE);
        CONSTANTS.put("UROM_COLL_TYPE_COUNT", (long) CollType.values().length);
        CONSTANTS.put("UROM_COLL_DTYPE_COUNT", (long) DataType.values().length);
        CONSTANTS.put("UROM_COLL_OP_COUNT", (long) ReduceOp.values().length);
        CONSTANTS.put("UROM_COLL_REASON_COUNT", (long) Reason.values().length);
        for (CollType t : CollType.values()) {
            CONSTANTS.put("UROM_COLL_" + t, (long) t.code());
        }
        for (DataType t : DataType.values()) {
            CONSTANTS.put("UROM_COLL_" + t, (long) t.code());
        }
        for (ReduceOp t : ReduceOp.values()) {
            CONSTANTS.put("UROM_COLL_" + t, (long) t.code());
        }
        for (Reason t : Reason.values()) {
            CONSTANTS.put("UROM_COLL_R_" + t, (long) t.code());
        }
        for (AgreeField t : AgreeField.values()) {
            CONSTANTS.put("UROM_COLL_F_" + t, (long) t.code());
        }
        for (CommandType t : CommandType.values()) {
            CONSTANTS.put("UROM_COLL_CMD_" + t, (long) t.code());
        }
        for (MessageKind t : MessageKind.values()) {
            CONSTANTS.put("UROM_COLL_MSG_" + t, (long) t.code());
        }
    }

    private static void field(String name, int offset, int size) {
        FIELDS.put(name, new int[] {offset, size});
    }

    private static void size(String struct, int size) {
        FIELDS.put(struct, new int[] {0, size});
    }

    @BeforeAll
    static void runTheCProgram() throws IOException, InterruptedException {
        Path include = Path.of(System.getProperty("urom.coll.include", "src/main/c/include"));
        Path build = Files.createDirectories(Path.of(System.getProperty("urom.coll.test.build", "target/c-tests")));
        StringBuilder c = new StringBuilder("#include <stdio.h>\n#include \"urom_coll.h\"\n"
                + "#define F(s, f, n) printf(\"%s %zu %zu\\n\", n, offsetof(struct urom_coll_##s, f), sizeof(((struct urom_coll_##s *)0)->f))\n"
                + "#define S(s) printf(\"%s 0 %zu\\n\", #s, sizeof(struct urom_coll_##s))\n"
                + "#define K(c) printf(\"%s %llu\\n\", #c, (unsigned long long)(c))\n"
                + "int main(void) {\n");
        for (String name : FIELDS.keySet()) {
            int dot = name.indexOf('.');
            if (dot < 0) {
                c.append("S(").append(name).append(");\n");
            } else {
                c.append("F(")
                        .append(name, 0, dot)
                        .append(", ")
                        .append(name.substring(dot + 1))
                        .append(", \"")
                        .append(name)
                        .append("\");\n");
            }
        }
        for (String constant : CONSTANTS.keySet()) {
            c.append("K(").append(constant).append(");\n");
        }
        for (int i = 0; i < TAG_INPUTS.length; i++) {
            long[] t = TAG_INPUTS[i];
            c.append(String.format(
                    "printf(\"tag%d %%llu\\n\", (unsigned long long)urom_coll_tag(%dU, %dU, %dULL, %dU, %dU));%n",
                    i, t[0], t[1], t[2], t[3], t[4]));
        }
        c.append("printf(\"transport %s\\n\", UROM_COLL_TRANSPORT);\nreturn 0;\n}\n");
        Path source = build.resolve("coll_layout.c");
        Path program = build.resolve("coll_layout");
        Files.writeString(source, c.toString());
        String compiled = run(List.of(
                "gcc", "-std=gnu11", "-Wall", "-Werror", "-I" + include, "-o", program.toString(), source.toString()));
        assertThat(Files.isExecutable(program)).as("gcc: %s", compiled).isTrue();
        printed = new LinkedHashMap<>();
        for (String line : run(List.of(program.toString())).split("\n")) {
            int space = line.indexOf(' ');
            printed.put(line.substring(0, space), line.substring(space + 1));
        }
    }

    private static String run(List<String> command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as("%s: %s", command, output).isZero();
        return output;
    }

    @Test
    void everyOffsetAndSizeIsTheHeaders() {
        for (Map.Entry<String, int[]> field : FIELDS.entrySet()) {
            assertThat(printed.get(field.getKey()))
                    .as(field.getKey())
                    .isEqualTo(field.getValue()[0] + " " + field.getValue()[1]);
        }
    }

    @Test
    void everyConstantAndCodeIsTheHeaders() {
        for (Map.Entry<String, Long> constant : CONSTANTS.entrySet()) {
            assertThat(printed.get(constant.getKey()))
                    .as(constant.getKey())
                    .isEqualTo(Long.toUnsignedString(constant.getValue()));
        }
        assertThat(printed.get("transport")).isEqualTo(TRANSPORT);
    }

    @Test
    void tagsAreTheHeaders() {
        for (int i = 0; i < TAG_INPUTS.length; i++) {
            long[] t = TAG_INPUTS[i];
            long tag = CollTag.of((int) t[0], t[1], t[2], t[3], t[4]);
            assertThat(printed.get("tag" + i))
                    .as("tag of %s", java.util.Arrays.toString(t))
                    .isEqualTo(Long.toUnsignedString(tag));
        }
    }

    @Test
    void theCommandSizesOfTheTypesAreTheStructs() {
        assertThat(CommandType.POST.commandSize())
                .isEqualTo(Integer.parseInt(printed.get("cmd_post").split(" ")[1]));
        assertThat(CommandType.POST.answerSize())
                .isEqualTo(Integer.parseInt(printed.get("notif_post").split(" ")[1]));
    }
}
