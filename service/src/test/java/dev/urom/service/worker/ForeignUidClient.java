// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.framework.security.UnixAccounts;
import dev.urom.nativebridge.testkit.NativeFixtures;
import dev.urom.wire.Frame;
import dev.urom.wire.FrameCodec;
import dev.urom.wire.FrameDecoder;
import dev.urom.wire.Message;
import dev.urom.wire.Protocol;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A data-socket client in a process of its own, of another Unix user when the tests run as root: a
 * small C program run as {@link #UID} (as root under {@code setpriv}, uid and gid 65534 with no
 * supplementary groups; as any other user, that user itself, who cannot take another uid), which connects to
 * a Unix socket, sends the bytes it is given and prints the first frame it receives. The kernel's
 * peer credentials of its connection are that user's, whatever it sends.
 *
 * <p>The program and the sockets it connects to must be reachable for that user: {@link #compile}
 * opens its directory to others for search (not for reading), and tests open a socket with {@link
 * #openSocket}. Immutable.
 */
final class ForeignUidClient {
    private static final boolean ROOT = UnixAccounts.effectiveUid() == 0;
    /** The user the client runs as: as root 65534 ({@code nobody} on most systems), else the tests' own user. */
    static final int UID = ROOT ? 65534 : UnixAccounts.effectiveUid();

    private static final String SOURCE = """
            #include <errno.h>
            #include <stdint.h>
            #include <stdio.h>
            #include <string.h>
            #include <sys/socket.h>
            #include <sys/un.h>
            #include <unistd.h>

            /* unix_frame_client SOCKET: sends stdin to SOCKET, prints the first frame that comes back.
               Exit status 0: a frame was printed; 3: the socket closed before a whole frame; 2: a failure. */
            enum { MAX_BYTES = 65536 };
            static unsigned char out[MAX_BYTES];
            static unsigned char in[4 + MAX_BYTES];

            static int failed(const char *what)
            {
            	fprintf(stderr, "unix_frame_client: %s: %s\\n", what, strerror(errno));
            	return 2;
            }

            /* 1 when buf is full, 0 at end of stream, -1 on an error */
            static int read_fully(int fd, unsigned char *buf, size_t len)
            {
            	size_t got = 0;
            	while (got < len) {
            		ssize_t n = read(fd, buf + got, len - got);
            		if (n < 0 && errno == EINTR)
            			continue;
            		if (n < 0)
            			return -1;
            		if (n == 0)
            			return 0;
            		got += (size_t)n;
            	}
            	return 1;
            }

            static int write_fully(int fd, const unsigned char *buf, size_t len)
            {
            	size_t done = 0;
            	while (done < len) {
            		ssize_t n = write(fd, buf + done, len - done);
            		if (n < 0 && errno == EINTR)
            			continue;
            		if (n < 0)
            			return -1;
            		done += (size_t)n;
            	}
            	return 0;
            }

            int main(int argc, char **argv)
            {
            	if (argc != 2) {
            		fprintf(stderr, "usage: unix_frame_client SOCKET < bytes\\n");
            		return 2;
            	}
            	size_t out_len = 0;
            	for (;;) {
            		ssize_t n = read(0, out + out_len, sizeof(out) - out_len);
            		if (n < 0 && errno == EINTR)
            			continue;
            		if (n < 0)
            			return failed("reading stdin");
            		if (n == 0)
            			break;
            		out_len += (size_t)n;
            		if (out_len == sizeof(out)) {
            			fprintf(stderr, "unix_frame_client: more than %d bytes on stdin\\n", MAX_BYTES);
            			return 2;
            		}
            	}
            	struct sockaddr_un addr;
            	memset(&addr, 0, sizeof(addr));
            	addr.sun_family = AF_UNIX;
            	if (strlen(argv[1]) >= sizeof(addr.sun_path)) {
            		fprintf(stderr, "unix_frame_client: socket path %s is too long\\n", argv[1]);
            		return 2;
            	}
            	strcpy(addr.sun_path, argv[1]);
            	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
            	if (fd < 0)
            		return failed("socket");
            	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0)
            		return failed(argv[1]);
            	if (write_fully(fd, out, out_len) != 0)
            		return failed("writing the socket");
            	int r = read_fully(fd, in, 4);
            	if (r < 0)
            		return failed("reading the socket");
            	if (r == 0)
            		return 3;
            	uint32_t len = (uint32_t)in[0] | (uint32_t)in[1] << 8 | (uint32_t)in[2] << 16 | (uint32_t)in[3] << 24;
            	if (len > MAX_BYTES) {
            		fprintf(stderr, "unix_frame_client: a frame of %u bytes\\n", (unsigned)len);
            		return 2;
            	}
            	r = read_fully(fd, in + 4, len);
            	if (r < 0)
            		return failed("reading the socket");
            	if (r == 0)
            		return 3;
            	if (write_fully(1, in, 4 + (size_t)len) != 0)
            		return failed("writing stdout");
            	if (close(fd) != 0)
            		return failed("close");
            	return 0;
            }
            """;

    private final Path program;

    private ForeignUidClient(Path program) {
        this.program = program;
    }

    /** Compiles the client into {@code dir}, which it opens (and the directories above it must be open) for others to search. */
    static ForeignUidClient compile(Path dir) throws IOException {
        Files.createDirectories(dir);
        openForSearch(dir);
        return new ForeignUidClient(NativeFixtures.compileProgram(dir, "unix_frame_client", SOURCE));
    }

    /** Makes {@code socket} one that others may connect to, and checks that the directories above it let them reach it. */
    static void openSocket(Path socket) throws IOException {
        Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-rw-rw-"));
        for (Path dir = socket.toAbsolutePath().getParent(); dir != null; dir = dir.getParent()) {
            assertThat(Files.getPosixFilePermissions(dir))
                    .as("others may search %s", dir)
                    .contains(PosixFilePermission.OTHERS_EXECUTE);
        }
    }

    /** Gives {@code dir} (owned by this test) the mode 0711: others may pass through it. */
    static void openForSearch(Path dir) throws IOException {
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx--x--x"));
    }

    /** Connects to {@code socket} as {@link #UID}, sends {@code first} and returns the first frame the other side answers. */
    Frame exchange(Path socket, Message first) throws Exception {
        List<String> command = ROOT
                ? List.of(
                        "setpriv",
                        "--reuid",
                        Integer.toString(UID),
                        "--regid",
                        Integer.toString(UID),
                        "--clear-groups",
                        program.toString(),
                        socket.toString())
                : List.of(program.toString(), socket.toString());
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            ByteBuffer frame = FrameCodec.encode(0, first);
            byte[] bytes = new byte[frame.remaining()];
            frame.get(bytes);
            try (OutputStream stdin = process.getOutputStream()) {
                stdin.write(bytes);
            }
            byte[] output = process.getInputStream().readAllBytes();
            assertThat(process.waitFor(DataSocketProbes.PATIENCE.toSeconds(), TimeUnit.SECONDS))
                    .as("the client ended")
                    .isTrue();
            assertThat(process.exitValue())
                    .as("the client's exit status; it said: %s", new String(output, StandardCharsets.UTF_8))
                    .isZero();
            List<Frame> frames = new FrameDecoder(Protocol.CONTROL_FRAME_LIMIT).feed(ByteBuffer.wrap(output));
            assertThat(frames).hasSize(1);
            return frames.get(0);
        } finally {
            process.destroyForcibly();
            process.waitFor(DataSocketProbes.PATIENCE.toSeconds(), TimeUnit.SECONDS);
        }
    }
}
