// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.spi.UromStatus;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The worker environment's allow-list, its never-passable set, its checks and how it builds an environment from nothing. */
class WorkerEnvironmentTest {
    private static final WorkerEnvironment DEFAULTS = new WorkerEnvironment(DaemonSecurity.DEFAULT_WORKER_ENV_ALLOW);
    private static final WorkerEnvironment EVERYTHING = new WorkerEnvironment(List.of("*"));

    @Test
    void aPatternsStarMatchesAnyRunOfCharactersAndNamesMatchWithoutRegardToCase() {
        assertThat(DEFAULTS.passable("UCX_TLS")).isTrue();
        assertThat(DEFAULTS.passable("ucx_tls")).isTrue();
        assertThat(DEFAULTS.passable("Ucc_Cls")).isTrue();
        assertThat(DEFAULTS.passable("OMP_NUM_THREADS")).isTrue();
        assertThat(DEFAULTS.passable("UCX_")).isTrue();
        assertThat(DEFAULTS.passable("UCX")).isFalse();
        assertThat(DEFAULTS.passable("XUCX_TLS")).isFalse();
        assertThat(DEFAULTS.passable("NCCL_DEBUG")).isFalse();

        WorkerEnvironment exact = new WorkerEnvironment(List.of("GREETING", "A*B", "*_THREADS"));
        assertThat(exact.passable("greeting")).isTrue();
        assertThat(exact.passable("GREETINGS")).isFalse();
        assertThat(exact.passable("GREET")).isFalse();
        assertThat(exact.passable("AB")).isTrue();
        assertThat(exact.passable("AXYZB")).isTrue();
        assertThat(exact.passable("ABC")).isFalse();
        assertThat(exact.passable("MKL_NUM_THREADS")).isTrue();
        assertThat(new WorkerEnvironment(List.of()).passable("UCX_TLS"))
                .as("no patterns: nothing passes")
                .isFalse();
    }

    @Test
    void theNeverPassableSetWinsOverEveryPatternEvenOneThatNamesItExactly() {
        List<String> never = List.of(
                "LD_PRELOAD",
                "ld_preload",
                "LD_LIBRARY_PATH",
                "GCONV_PATH",
                "LOCPATH",
                "LC_ALL",
                "LANG",
                "LANGUAGE",
                "GLIBC_TUNABLES",
                "MALLOC_CHECK_",
                "TMPDIR",
                "TMP",
                "TEMP",
                "XDG_RUNTIME_DIR",
                "JAVA_TOOL_OPTIONS",
                "JDK_JAVA_OPTIONS",
                "_JAVA_OPTIONS",
                "CLASSPATH",
                "JNA_LIBRARY_PATH",
                "LOG4J_DEBUG",
                "LOG4J2_CONFIGURATION_FILE",
                "UROM_OWNER_UID",
                "PATH",
                "HOME",
                "TZ",
                "UCX_MODULE_DIR",
                "UCX_GDB_COMMAND",
                "UCX_HANDLE_ERRORS",
                "UCX_DEBUG_SIGNO",
                "OMP_TOOL_LIBRARIES",
                "OMP_TOOL",
                "UCC_TL_UCP_PLUGIN",
                "UCX_LOG_FILE",
                "UCX_PROFILE_FILE_NAME",
                "SOME_DLOPEN_NAME",
                "UCX_ERROR_SIGNALS",
                "ucx_error_signals");
        WorkerEnvironment namesThemAll = new WorkerEnvironment(never);
        for (String name : never) {
            assertThat(WorkerEnvironment.neverPassable(name)).as(name).isTrue();
            assertThat(EVERYTHING.passable(name)).as("%s under *", name).isFalse();
            assertThat(namesThemAll.passable(name))
                    .as("%s named by a pattern", name)
                    .isFalse();
            assertThat(DEFAULTS.check(List.of(name + "=x"))).as(name).hasValueSatisfying(refusal -> {
                assertThat(refusal.status()).isEqualTo(UromStatus.NOT_PERMITTED);
                assertThat(refusal.message()).startsWith("env " + name + " is never passed to a worker: ");
            });
        }
        assertThat(EVERYTHING.passable("FOO")).isTrue();
        assertThat(EVERYTHING.passable("UCX_TLS")).isTrue();
    }

    @Test
    void checksTheFormAndSizeOfEveryItemBeforeAnyName() {
        assertThat(DEFAULTS.check(List.of("LD_PRELOAD=/x.so", "BAD")))
                .contains(new Refusal(UromStatus.INVALID_VALUE, "env item 'BAD' is not NAME=value"));
        assertThat(DEFAULTS.check(List.of("UCX_TLS=" + "v".repeat(WorkerEnvironment.MAX_VALUE_BYTES))))
                .isEmpty();
        assertThat(DEFAULTS.check(List.of("UCX_TLS=" + "v".repeat(WorkerEnvironment.MAX_VALUE_BYTES + 1))))
                .contains(new Refusal(
                        UromStatus.INVALID_VALUE, "env UCX_TLS has a value of 4097 bytes; the limit is 4096"));
        assertThat(DEFAULTS.check(List.of("UCX_TLS=" + "é".repeat(WorkerEnvironment.MAX_VALUE_BYTES / 2 + 1))))
                .as("bytes, not characters")
                .contains(new Refusal(
                        UromStatus.INVALID_VALUE, "env UCX_TLS has a value of 4098 bytes; the limit is 4096"));
        String longestName = "OMP_" + "N".repeat(WorkerEnvironment.MAX_NAME_CHARS - 4);
        assertThat(DEFAULTS.check(List.of(longestName + "=1"))).isEmpty();
        assertThat(DEFAULTS.check(List.of(longestName + "N=1")))
                .hasValueSatisfying(r -> assertThat(r.status()).isEqualTo(UromStatus.INVALID_VALUE));
        assertThat(DEFAULTS.check(List.of("UCX_TLS=rc\u0000x")))
                .hasValueSatisfying(r ->
                        assertThat(r.message()).isEqualTo("env item 'UCX_TLS=rc\\x00x' holds white space or a NUL"));
        assertThat(DEFAULTS.check(List.of("1UCX=1")))
                .hasValueSatisfying(r -> assertThat(r.status()).isEqualTo(UromStatus.INVALID_VALUE));
        assertThat(DEFAULTS.check(List.of("UCX_TLS="))).as("an empty value").isEmpty();
    }

    @Test
    void takesAtMostItsNumberOfItems() {
        List<String> items = new ArrayList<>();
        for (int i = 0; i < WorkerEnvironment.MAX_ITEMS; i++) {
            items.add("OMP_ITEM_" + i + "=1");
        }
        assertThat(DEFAULTS.check(items)).isEmpty();
        items.add("OMP_ONE_MORE=1");
        assertThat(DEFAULTS.check(items))
                .contains(new Refusal(UromStatus.INVALID_VALUE, "129 env items: at most 128 are taken"));
    }

    /** A host may name the UCX transports, but never bring back what undumpable workers cannot use. */
    @Test
    void aHostsUcxItemsCannotReopenCrossMemoryTransports() {
        List<String> items = List.of("UCX_TLS=sm,cma,self", "UCX_POSIX_USE_PROC_LINK=y");
        assertThat(DEFAULTS.check(items))
                .as("both are reviewed names with allowed values")
                .isEqualTo(Optional.empty());

        Map<String, String> built = DEFAULTS.build(Map.of(), Map.of("UCX_TLS", "all"), items);

        assertThat(built).containsEntry("UCX_TLS", "posix,sysv,self").containsEntry("UCX_POSIX_USE_PROC_LINK", "n");
    }

    @Test
    void buildsFromNothingTheFixedValuesThenTheDaemonsPassableVariablesThenTheHostsItems() {
        Map<String, String> fixed =
                new LinkedHashMap<>(Map.of("HOME", "/w", "TMPDIR", "/w", WorkerSupervisor.OWNER_UID_VARIABLE, "1000"));
        Map<String, String> daemon = new LinkedHashMap<>();
        daemon.put("PATH", "/daemon/bin");
        daemon.put("HOME", "/root");
        daemon.put("LD_PRELOAD", "/x.so");
        daemon.put("JAVA_TOOL_OPTIONS", "-Dx=1");
        daemon.put("UCX_MODULE_DIR", "/m");
        daemon.put("SECRET_TOKEN", "s");
        daemon.put("A-B", "odd name");
        daemon.put("UCX_TLS", "rc");
        daemon.put("UCX_RNDV_THRESH", "daemon");
        daemon.put("UCX_ERROR_SIGNALS", "SEGV");

        Map<String, String> built = DEFAULTS.build(fixed, daemon, List.of("UCX_RNDV_THRESH=host", "OMP_NUM_THREADS=2"));

        assertThat(built)
                .containsExactlyInAnyOrderEntriesOf(Map.of(
                        WorkerEnvironment.UCX_ERROR_SIGNALS,
                        "",
                        "PATH",
                        WorkerEnvironment.FIXED_PATH,
                        "LANG",
                        WorkerEnvironment.FIXED_LANG,
                        "HOME",
                        "/w",
                        "TMPDIR",
                        "/w",
                        WorkerSupervisor.OWNER_UID_VARIABLE,
                        "1000",
                        "UCX_TLS",
                        "rc",
                        "UCX_RNDV_THRESH",
                        "host",
                        "OMP_NUM_THREADS",
                        "2",
                        "UCX_POSIX_USE_PROC_LINK",
                        "n"));
        assertThat(EVERYTHING.build(fixed, Map.of(), List.of("HOME=/host")))
                .as("the fixed values win over anything")
                .containsEntry("HOME", "/w");
        assertThat(DEFAULTS.check(List.of("UCX_TLS=rc", "OMP_NUM_THREADS=2"))).isEqualTo(Optional.empty());
    }

    @Test
    void aHostMayPassOnlyTheReviewedUcxVariables() {
        assertThat(WorkerEnvironment.REVIEWED_UCX.keySet())
                .containsExactly(
                        "UCX_TLS",
                        "UCX_NET_DEVICES",
                        "UCX_RNDV_THRESH",
                        "UCX_ZCOPY_THRESH",
                        "UCX_MAX_RNDV_RAILS",
                        "UCX_LOG_LEVEL",
                        "UCX_MEMTYPE_CACHE",
                        "UCX_SOCKADDR_TLS_PRIORITY",
                        "UCX_TCP_CM_REUSEADDR",
                        "UCX_POSIX_USE_PROC_LINK",
                        "UCX_WARN_UNUSED_ENV_VARS",
                        "UCX_SYSV_ERROR_HANDLING",
                        "UCX_POSIX_ERROR_HANDLING",
                        "UCX_KEEPALIVE_INTERVAL");
        for (String name : List.of(
                "UCX_IB_GID_INDEX",
                "UCX_ERROR_MAIL_TO",
                "UCX_IB_SL",
                "UCX_RC_TIMEOUT",
                "UCX_TCP_KEEPINTVL",
                "UCX_MEM_MODULE_UNLOAD_PREVENT_MODE",
                "UCX_",
                "ucx_ib_gid_index")) {
            assertThat(DEFAULTS.check(List.of(name + "=1"))).as(name).hasValueSatisfying(r -> {
                assertThat(r.status()).isEqualTo(UromStatus.NOT_PERMITTED);
                assertThat(r.message())
                        .startsWith("env " + name + " is not one of the UCX variables a host may pass (UCX_TLS, ");
            });
        }
        assertThat(EVERYTHING.check(List.of("UCX_IB_GID_INDEX=3")))
                .as("whatever the patterns say")
                .map(Refusal::status)
                .contains(UromStatus.NOT_PERMITTED);
        assertThat(new WorkerEnvironment(List.of("OMP_*")).check(List.of("UCX_TLS=rc")))
                .as("the patterns must admit a reviewed name too")
                .hasValueSatisfying(
                        r -> assertThat(r.message()).startsWith("env UCX_TLS is not one the operator allows"));
    }

    @Test
    void theReviewedUcxVariablesTakeTheValuesUcxTakesAndNothingElse() {
        List<String> good = List.of(
                "UCX_TLS=rc,sm,self",
                "UCX_TLS=^ib",
                "UCX_TLS=tcp",
                "UCX_TLS=rc_x,dc:aux",
                "UCX_TLS=",
                "ucx_tls=shm",
                "UCX_NET_DEVICES=mlx5_0:1,eth0",
                "UCX_NET_DEVICES=all",
                "UCX_NET_DEVICES=enp1s0f0.100",
                "UCX_RNDV_THRESH=auto",
                "UCX_RNDV_THRESH=8k",
                "UCX_RNDV_THRESH=16KB",
                "UCX_RNDV_THRESH=inf",
                "UCX_ZCOPY_THRESH=4096",
                "UCX_MAX_RNDV_RAILS=2",
                "UCX_LOG_LEVEL=warn",
                "UCX_LOG_LEVEL=DEBUG",
                "UCX_MEMTYPE_CACHE=try",
                "UCX_MEMTYPE_CACHE=n",
                "UCX_SOCKADDR_TLS_PRIORITY=rdmacm,tcp",
                "UCX_TCP_CM_REUSEADDR=y",
                "UCX_POSIX_USE_PROC_LINK=no",
                "UCX_WARN_UNUSED_ENV_VARS=off",
                "UCX_SYSV_ERROR_HANDLING=y",
                "UCX_POSIX_ERROR_HANDLING=no",
                "UCX_KEEPALIVE_INTERVAL=20000000.00us",
                "UCX_KEEPALIVE_INTERVAL=1s",
                "UCX_KEEPALIVE_INTERVAL=inf");
        for (String item : good) {
            assertThat(DEFAULTS.check(List.of(item))).as(item).isEmpty();
        }
        List<String> bad = List.of(
                "UCX_TLS=/tmp/x.so",
                "UCX_TLS=rc;sm",
                "UCX_TLS=rc,",
                "UCX_NET_DEVICES=../eth0/",
                "UCX_RNDV_THRESH=8q",
                "UCX_RNDV_THRESH=-1",
                "UCX_ZCOPY_THRESH=12345678901234567890",
                "UCX_MAX_RNDV_RAILS=100",
                "UCX_LOG_LEVEL=trace",
                "UCX_LOG_LEVEL=data",
                "UCX_MEMTYPE_CACHE=maybe",
                "UCX_SOCKADDR_TLS_PRIORITY=tcp,/x",
                "UCX_TCP_CM_REUSEADDR=2",
                "UCX_POSIX_USE_PROC_LINK=true",
                "UCX_WARN_UNUSED_ENV_VARS=yes,no",
                "UCX_SYSV_ERROR_HANDLING=maybe",
                "UCX_KEEPALIVE_INTERVAL=1sec",
                "UCX_KEEPALIVE_INTERVAL=-5ms");
        for (String item : bad) {
            String name = item.substring(0, item.indexOf('='));
            String value = item.substring(item.indexOf('=') + 1);
            assertThat(DEFAULTS.check(List.of(item))).as(item).hasValueSatisfying(r -> {
                assertThat(r.status()).isEqualTo(UromStatus.INVALID_VALUE);
                assertThat(r.message())
                        .startsWith("env " + name + " has a value that is not one UCX takes for it (")
                        .doesNotContain(value);
            });
        }
    }

    @Test
    void everyReviewedUcxVariableIsOneTheInstalledUcxKnows() throws Exception {
        Process info;
        try {
            info = new ProcessBuilder("ucx_info", "-c")
                    .redirectErrorStream(true)
                    .start();
        } catch (IOException e) {
            throw new AssertionError(
                    "ucx_info (Debian's ucx-utils, which bin/setup installs) cannot be run: " + e.getMessage(), e);
        }
        info.getOutputStream().close();
        String config = new String(info.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(info.waitFor()).isZero();
        for (String name : WorkerEnvironment.REVIEWED_UCX.keySet()) {
            assertThat(config.lines()).as("ucx_info -c names %s", name).anyMatch(line -> line.startsWith(name + "="));
        }
    }
}
