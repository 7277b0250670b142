// SPDX-License-Identifier: Apache-2.0
package dev.urom.ucx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.nativebridge.testkit.NativeFixtures;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link UcpLayout} against the installed UCX headers: a C program compiled here prints every size,
 * offset, flag and status the binding uses, and each must equal the Java constant.
 */
class UcpLayoutTest {
    @TempDir
    Path dir;

    @Test
    void everyLayoutFactMatchesTheInstalledHeaders() throws IOException, InterruptedException {
        Map<String, Long> expected = new LinkedHashMap<>();
        expected.put("UCP_API_MAJOR", (long) UcpLayout.API_MAJOR);
        expected.put("UCP_API_MINOR", (long) UcpLayout.API_MINOR);
        expected.put("sizeof(ucp_params_t)", (long) UcpLayout.PARAMS_SIZE);
        expected.put("offsetof(ucp_params_t, field_mask)", (long) UcpLayout.PARAMS_FIELD_MASK);
        expected.put("offsetof(ucp_params_t, features)", (long) UcpLayout.PARAMS_FEATURES);
        expected.put("sizeof(ucp_worker_params_t)", (long) UcpLayout.WORKER_PARAMS_SIZE);
        expected.put("offsetof(ucp_worker_params_t, field_mask)", (long) UcpLayout.WORKER_PARAMS_FIELD_MASK);
        expected.put("offsetof(ucp_worker_params_t, thread_mode)", (long) UcpLayout.WORKER_PARAMS_THREAD_MODE);
        expected.put("sizeof(((ucp_worker_params_t *)0)->thread_mode)", 4L);
        expected.put("sizeof(ucp_ep_params_t)", (long) UcpLayout.EP_PARAMS_SIZE);
        expected.put("offsetof(ucp_ep_params_t, field_mask)", (long) UcpLayout.EP_PARAMS_FIELD_MASK);
        expected.put("offsetof(ucp_ep_params_t, address)", (long) UcpLayout.EP_PARAMS_ADDRESS);
        expected.put("offsetof(ucp_ep_params_t, err_mode)", (long) UcpLayout.EP_PARAMS_ERR_MODE);
        expected.put("sizeof(((ucp_ep_params_t *)0)->err_mode)", 4L);
        expected.put("offsetof(ucp_ep_params_t, err_handler.cb)", (long) UcpLayout.EP_PARAMS_ERR_HANDLER_CB);
        expected.put("offsetof(ucp_ep_params_t, err_handler.arg)", (long) UcpLayout.EP_PARAMS_ERR_HANDLER_ARG);
        expected.put("sizeof(ucp_request_param_t)", (long) UcpLayout.REQUEST_PARAM_SIZE);
        expected.put("offsetof(ucp_request_param_t, op_attr_mask)", (long) UcpLayout.REQUEST_PARAM_OP_ATTR_MASK);
        expected.put("offsetof(ucp_request_param_t, flags)", (long) UcpLayout.REQUEST_PARAM_FLAGS);
        expected.put("offsetof(ucp_request_param_t, memory_type)", (long) UcpLayout.REQUEST_PARAM_MEMORY_TYPE);
        expected.put("sizeof(((ucp_request_param_t *)0)->memory_type)", 4L);
        expected.put("sizeof(ucp_tag_recv_info_t)", (long) UcpLayout.TAG_RECV_INFO_SIZE);
        expected.put("offsetof(ucp_tag_recv_info_t, sender_tag)", (long) UcpLayout.TAG_RECV_INFO_SENDER_TAG);
        expected.put("offsetof(ucp_tag_recv_info_t, length)", (long) UcpLayout.TAG_RECV_INFO_LENGTH);
        expected.put("sizeof(ucs_status_t)", (long) UcpLayout.STATUS_SIZE);
        expected.put("sizeof(ucs_status_ptr_t)", 8L);
        expected.put("sizeof(size_t)", 8L);
        expected.put("UCP_PARAM_FIELD_FEATURES", UcpLayout.PARAM_FIELD_FEATURES);
        expected.put("UCP_FEATURE_TAG", UcpLayout.FEATURE_TAG);
        expected.put("UCP_FEATURE_WAKEUP", UcpLayout.FEATURE_WAKEUP);
        expected.put("UCP_WORKER_PARAM_FIELD_THREAD_MODE", UcpLayout.WORKER_PARAM_FIELD_THREAD_MODE);
        expected.put("UCS_THREAD_MODE_SINGLE", (long) UcpLayout.THREAD_MODE_SINGLE);
        expected.put("UCP_EP_PARAM_FIELD_REMOTE_ADDRESS", UcpLayout.EP_PARAM_FIELD_REMOTE_ADDRESS);
        expected.put("UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE", UcpLayout.EP_PARAM_FIELD_ERR_HANDLING_MODE);
        expected.put("UCP_EP_PARAM_FIELD_ERR_HANDLER", UcpLayout.EP_PARAM_FIELD_ERR_HANDLER);
        expected.put("UCP_ERR_HANDLING_MODE_PEER", (long) UcpLayout.ERR_HANDLING_MODE_PEER);
        expected.put("UCP_OP_ATTR_FIELD_FLAGS", (long) UcpLayout.OP_ATTR_FIELD_FLAGS);
        expected.put("UCP_OP_ATTR_FIELD_MEMORY_TYPE", (long) UcpLayout.OP_ATTR_FIELD_MEMORY_TYPE);
        expected.put("UCP_OP_ATTR_FLAG_NO_IMM_CMPL", (long) UcpLayout.OP_ATTR_FLAG_NO_IMM_CMPL);
        expected.put("UCS_MEMORY_TYPE_HOST", (long) UcpLayout.MEMORY_TYPE_HOST);
        expected.put("UCP_EP_CLOSE_FLAG_FORCE", (long) UcpLayout.EP_CLOSE_FLAG_FORCE);
        expected.put("UCS_OK", (long) UcpLayout.UCS_OK);
        expected.put("UCS_INPROGRESS", (long) UcpLayout.UCS_INPROGRESS);
        expected.put("UCS_ERR_NO_MESSAGE", (long) UcpLayout.UCS_ERR_NO_MESSAGE);
        expected.put("UCS_ERR_UNREACHABLE", (long) UcpLayout.UCS_ERR_UNREACHABLE);
        expected.put("UCS_ERR_MESSAGE_TRUNCATED", (long) UcpLayout.UCS_ERR_MESSAGE_TRUNCATED);
        expected.put("UCS_ERR_BUSY", (long) UcpLayout.UCS_ERR_BUSY);
        expected.put("UCS_ERR_CANCELED", (long) UcpLayout.UCS_ERR_CANCELED);
        expected.put("UCS_ERR_CONNECTION_RESET", (long) UcpLayout.UCS_ERR_CONNECTION_RESET);
        expected.put("UCS_ERR_ENDPOINT_TIMEOUT", (long) UcpLayout.UCS_ERR_ENDPOINT_TIMEOUT);
        expected.put("UCS_ERR_LAST", (long) UcpLayout.UCS_ERR_LAST);

        StringBuilder source = new StringBuilder(
                "#include <stdio.h>\n#include <stddef.h>\n#include <ucp/api/ucp.h>\nint main(void)\n{\n");
        for (String fact : expected.keySet()) {
            source.append("\tprintf(\"%s=%lld\\n\", \"")
                    .append(fact)
                    .append("\", (long long)(")
                    .append(fact)
                    .append("));\n");
        }
        source.append("\treturn 0;\n}\n");
        Path program = NativeFixtures.compileProgram(dir, "ucp_layout", source.toString());

        Process process =
                new ProcessBuilder(program.toString()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(30, TimeUnit.SECONDS))
                .as("the layout program ended")
                .isTrue();
        assertThat(process.exitValue())
                .as("its exit status; output:\n%s", output)
                .isZero();
        Map<String, Long> actual = new LinkedHashMap<>();
        for (String line : output.strip().split("\n")) {
            int equals = line.lastIndexOf('=');
            actual.put(line.substring(0, equals), Long.parseLong(line.substring(equals + 1)));
        }
        assertThat(actual).isEqualTo(expected);
    }

    @Test
    void theLoadedLibraryIsTheVersionWhoseLayoutsAreKnown() throws UcxException {
        int[] version = Ucx.version();

        assertThat(new int[] {version[0], version[1]}).containsExactly(UcpLayout.API_MAJOR, UcpLayout.API_MINOR);
        Ucx.checkVersion(version[0], version[1], version[2]);
    }

    @Test
    void anotherMajorOrMinorVersionIsRefusedInOneLine() {
        assertThatThrownBy(() -> Ucx.checkVersion(1, 14, 0))
                .isInstanceOf(UcxException.class)
                .hasMessage(
                        "libucp 1.14.0 is not supported: the Java UCP binding knows the struct layouts of UCX 1.13 only");
        assertThatThrownBy(() -> Ucx.checkVersion(2, 13, 1))
                .isInstanceOf(UcxException.class)
                .hasMessageStartingWith("libucp 2.13.1 is not supported");
    }

    @Test
    void statusesAreDescribedByUcx() {
        assertThat(Ucx.describe(UcpLayout.UCS_ERR_MESSAGE_TRUNCATED)).isEqualTo("Message truncated (-9)");
        assertThat(Ucx.describe(UcpLayout.UCS_OK)).isEqualTo("Success (0)");
    }
}
