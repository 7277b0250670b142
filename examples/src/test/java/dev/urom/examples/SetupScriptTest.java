// SPDX-License-Identifier: Apache-2.0
package dev.urom.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/setup} tells what a machine lacks and installs it only where it can: each case runs the
 * real script with a PATH of stand-in commands (gcc, javac, mvn, apt-get, sudo, id, ...), a made-up
 * os-release ({@code UROM_SETUP_OS_RELEASE}) and a made-up include folder ({@code UROM_SETUP_ROOT}),
 * and asserts its output, its exit status and what it asked apt-get to do.
 */
class SetupScriptTest {
    private static final Path REPO = Path.of(System.getProperty("urom.repo", ".."));
    private static final List<String> PRESENT_COMMANDS = List.of(
            "gcc",
            "make",
            "setpriv",
            "unshare",
            "nsenter",
            "taskset",
            "ip",
            "nm",
            "ucx_perftest",
            "valgrind",
            "mpicc",
            "mpirun",
            "systemd-analyze",
            "pkg-config");
    private static final List<String> PRESENT_HEADERS =
            List.of("ucp/api/ucp.h", "valgrind/callgrind.h", "openssl/hmac.h", "cmocka.h");

    @TempDir
    Path dir;

    private Path fakeBin;
    private Path sysRoot;
    private Path aptLog;
    private final String bash = onPath("bash");

    @BeforeEach
    void aMachineWithEverything() throws IOException {
        fakeBin = Files.createDirectories(dir.resolve("bin"));
        sysRoot = Files.createDirectories(dir.resolve("root"));
        aptLog = dir.resolve("apt-get.log");
        for (String command : PRESENT_COMMANDS) {
            script(command, command.equals("pkg-config") ? "exit 1" : "exit 0");
        }
        script("javac", "echo 'javac 17.0.9' >&2");
        script("mvn", "echo 'Apache Maven 3.8.7 (b89d5959fcde851dcb1c8946a785a163f14e1e29)'");
        script("clang-format", "echo 'Debian clang-format version 14.0.6'");
        script("fc-list", "echo '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf: DejaVu Sans:style=Book'");
        script("id", "echo 1000");
        // apt-get records what it was asked, and installing pkg-config brings the command.
        script(
                "apt-get",
                "echo \"$*\" >> '" + aptLog + "'\n"
                        + "for word; do if [ \"$word\" = pkg-config ]; then printf '#!%s\\nexit 1\\n' '" + bash
                        + "' > '" + fakeBin.resolve("pkg-config")
                        + "'; chmod +x '" + fakeBin.resolve("pkg-config") + "'; fi; done");
        for (String tool : List.of("sed", "head", "env", "cat", "chmod", "true")) {
            Path real = Path.of(onPath(tool));
            Files.createSymbolicLink(fakeBin.resolve(tool), real);
        }
        for (String header : PRESENT_HEADERS) {
            Path file = sysRoot.resolve("usr/include").resolve(header);
            Files.createDirectories(file.getParent());
            Files.writeString(file, "/* stand-in */\n");
        }
        ucxVersion(13);
        osRelease("ID=debian\nVERSION_ID=\"12\"\n");
    }

    @Test
    void aDebianMachineWithEverythingInstallsNothingAndSaysSo() throws Exception {
        Result result = run("");

        assertThat(result.exit).as(result.toString()).isZero();
        assertThat(result.out)
                .contains("setup: nothing to install: all 17 prerequisites of the build and the tests are here");
        assertThat(aptLog).doesNotExist();
    }

    @Test
    void aDebianUserWithoutRootOrSudoGetsTheAptGetLineAndExitOne() throws Exception {
        Files.delete(fakeBin.resolve("pkg-config"));

        Result result = run("");

        assertThat(result.exit).as(result.toString()).isEqualTo(1);
        assertThat(result.out)
                .contains(
                        "missing: pkg-config",
                        "  apt-get update && apt-get install -y pkg-config\n",
                        "  dnf install -y pkgconf-pkg-config\n");
        assertThat(result.lastErrLine())
                .startsWith("setup: 1 of 17 prerequisites missing (pkg-config); run the apt-get line above as root");
        assertThat(aptLog).doesNotExist();
    }

    @Test
    void asRootOnDebianItInstallsOnlyWhatIsMissing() throws Exception {
        Files.delete(fakeBin.resolve("pkg-config"));
        script("id", "echo 0");

        Result result = run("");

        assertThat(result.exit).as(result.toString()).isZero();
        assertThat(Files.readAllLines(aptLog)).containsExactly("update -qq", "install -y -qq pkg-config");
        assertThat(result.out).contains("setup: installed; all 17 prerequisites of the build and the tests are here");
    }

    @Test
    void onUbuntuAUserWithPasswordlessSudoInstallsThroughIt() throws Exception {
        osRelease("ID=ubuntu\nID_LIKE=debian\n");
        Files.delete(sysRoot.resolve("usr/include/cmocka.h"));
        Path sudoLog = dir.resolve("sudo.log");
        script("sudo", "echo \"$*\" >> '" + sudoLog + "'\n[ \"$1\" = -n ] && shift\nexec \"$@\"");

        Result result = run("");

        assertThat(result.exit).as(result.toString()).isEqualTo(1); // the stand-in apt-get does not write cmocka.h
        assertThat(Files.readAllLines(aptLog)).containsExactly("update -qq", "install -y -qq libcmocka-dev");
        assertThat(Files.readString(sudoLog))
                .contains("-n true", "-n env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libcmocka-dev");
        assertThat(result.out).contains("still missing: cmocka (cmocka.h)");
    }

    @Test
    void checkReportsAndInstallsNothingEvenAsRoot() throws Exception {
        script("id", "echo 0");
        Files.delete(fakeBin.resolve("valgrind"));

        Result result = run("--check");

        assertThat(result.exit).as(result.toString()).isEqualTo(1);
        assertThat(result.out).contains("missing: valgrind and valgrind/callgrind.h", "apt-get install -y valgrind\n");
        assertThat(result.lastErrLine())
                .isEqualTo("setup: 1 of 17 prerequisites missing (valgrind); nothing installed (--check)");
        assertThat(aptLog).doesNotExist();
    }

    @Test
    void onFedoraItPrintsTheDnfLineWithTheRepositoryAndOpenMpiNotes() throws Exception {
        osRelease("NAME=\"Fedora Linux\"\nID=fedora\nVERSION_ID=40\n");
        script("id", "echo 0");
        Files.delete(fakeBin.resolve("mpicc"));
        Files.delete(sysRoot.resolve("usr/include/ucp/api/ucp.h"));
        script("javac", "echo 'javac 11.0.2' >&2");

        Result result = run("");

        assertThat(result.exit).as(result.toString()).isEqualTo(1);
        assertThat(result.out)
                .contains(
                        "missing: a JDK 17 or newer (javac is 11)",
                        "  dnf install -y java-21-openjdk-devel ucx-devel openmpi-devel\n",
                        "dnf config-manager --set-enabled crb",
                        "module load mpi/openmpi-$(uname -m)",
                        "  apt-get update && apt-get install -y openjdk-17-jdk-headless libucx-dev openmpi-bin libopenmpi-dev\n");
        assertThat(result.lastErrLine())
                .startsWith("setup: 3 of 17 prerequisites missing (")
                .contains("fedora: bin/setup installs only on Debian and Ubuntu");
        assertThat(aptLog).doesNotExist();
    }

    @Test
    void aClangFormatOtherThanFourteenIsAProblemThatNoPackageFixes() throws Exception {
        script("clang-format", "echo 'Ubuntu clang-format version 18.1.3 (1ubuntu1)'");

        Result result = run("--check");

        assertThat(result.exit).as(result.toString()).isEqualTo(1);
        assertThat(result.out)
                .contains("problem: clang-format is 18, and the build checks C formatting with clang-format 14");
        assertThat(result.lastErrLine())
                .isEqualTo("setup: nothing to install, but 1 problem(s) above that no package fixes");
    }

    @Test
    void aMissingClangFormatIsInstalledFromItsPackage() throws Exception {
        Files.delete(fakeBin.resolve("clang-format"));

        Result result = run("--check");

        assertThat(result.out)
                .contains(
                        "missing: clang-format 14",
                        "apt-get install -y clang-format\n",
                        "dnf install -y clang-tools-extra\n");
        assertThat(result.exit).isEqualTo(1);
    }

    @Test
    void aMavenOlderThanThreeEightCounts() throws Exception {
        script("mvn", "printf '\\033[1mApache Maven 3.6.3\\033[m\\n'");

        Result result = run("--check");

        assertThat(result.out).contains("missing: Maven 3.8 or newer (mvn is 3.6)");
        assertThat(result.exit).isEqualTo(1);
    }

    @Test
    void aHeaderUnderCpathCountsAsInstalled() throws Exception {
        Path elsewhere = Files.createDirectories(dir.resolve("opt/openssl/include/openssl"));
        Files.writeString(elsewhere.resolve("hmac.h"), "/* stand-in */\n");
        Files.delete(sysRoot.resolve("usr/include/openssl/hmac.h"));

        Result result = run(
                "--check", Map.of("CPATH", dir.resolve("opt/openssl/include").toString()));

        assertThat(result.exit).as(result.toString()).isZero();
    }

    @Test
    void aUcxOtherThanOneThirteenIsAProblemThatNoPackageFixes() throws Exception {
        osRelease("ID=ubuntu\nID_LIKE=debian\nVERSION_ID=\"24.04\"\n");
        script("id", "echo 0");
        ucxVersion(16);

        Result result = run("");

        assertThat(result.exit).as(result.toString()).isEqualTo(1);
        assertThat(result.out)
                .contains("problem: UCX is 1.16, and the Java sandbox plugin's binding knows UCX 1.13 only");
        assertThat(result.lastErrLine())
                .isEqualTo("setup: nothing to install, but 1 problem(s) above that no package fixes");
        assertThat(aptLog).doesNotExist();
    }

    @Test
    void anUnknownArgumentIsAUsageError() throws Exception {
        Result result = run("--install-everything");

        assertThat(result.exit).isEqualTo(2);
        assertThat(result.err).isEqualTo("setup: unknown argument '--install-everything' (see: bin/setup --help)\n");
    }

    private Result run(String argument) throws Exception {
        return run(argument, Map.of());
    }

    private Result run(String argument, Map<String, String> extraEnvironment) throws Exception {
        List<String> command =
                new ArrayList<>(List.of(bash, REPO.resolve("bin/setup").toString()));
        if (!argument.isEmpty()) {
            command.add(argument);
        }
        ProcessBuilder builder = new ProcessBuilder(command);
        Map<String, String> environment = builder.environment();
        environment.clear();
        environment.put("PATH", fakeBin.toString());
        environment.put("HOME", dir.toString());
        environment.put("UROM_SETUP_OS_RELEASE", dir.resolve("os-release").toString());
        environment.put("UROM_SETUP_ROOT", sysRoot.toString());
        environment.putAll(extraEnvironment);
        Process process = builder.start();
        process.getOutputStream().close();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("bin/setup ended").isTrue();
        return new Result(process.exitValue(), out, err);
    }

    private void script(String name, String body) throws IOException {
        Path file = fakeBin.resolve(name);
        Files.deleteIfExists(file);
        Files.writeString(file, "#!" + bash + "\n" + body + "\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    private void ucxVersion(int minor) throws IOException {
        Path file =
                Files.createDirectories(sysRoot.resolve("usr/include/ucp/api")).resolve("ucp_version.h");
        Files.writeString(file, "#define UCP_API_MAJOR    1\n#define UCP_API_MINOR    " + minor + "\n");
    }

    private void osRelease(String text) throws IOException {
        Files.writeString(dir.resolve("os-release"), text);
    }

    private static String onPath(String command) {
        for (String folder : System.getenv("PATH").split(File.pathSeparator)) {
            Path candidate = Path.of(folder, command);
            if (Files.isExecutable(candidate)) {
                return candidate.toString();
            }
        }
        throw new IllegalStateException(command + " is not on PATH");
    }

    private record Result(int exit, String out, String err) {
        String lastErrLine() {
            String[] lines = err.strip().split("\n");
            return lines[lines.length - 1];
        }
    }
}
