// SPDX-License-Identifier: Apache-2.0
package dev.urom.ucx;

/**
 * Facts about the UCX library the binding runs on. Stateless; safe from any thread.
 */
public final class Ucx {
    private Ucx() {}

    /**
     * The version of the loaded libucp as {@code {major, minor, release}} ({@code ucp_get_version}).
     *
     * @throws UcxException when libucp cannot be loaded
     */
    public static int[] version() throws UcxException {
        requireLoaded();
        int[] major = new int[1];
        int[] minor = new int[1];
        int[] release = new int[1];
        Ucp.ucp_get_version(major, minor, release);
        return new int[] {major[0], minor[0], release[0]};
    }

    /** UCX's own description of {@code status} and its number, e.g. {@code "Message truncated (-9)"}. */
    public static String describe(int status) {
        String text = Ucp.loadFailure() == null ? Ucp.ucs_status_string((byte) status) : null;
        return (text == null ? "status" : text) + " (" + status + ")";
    }

    static void requireLoaded() throws UcxException {
        String failure = Ucp.loadFailure();
        if (failure != null) {
            throw new UcxException(0, failure);
        }
    }

    /**
     * Checks that the binding knows the struct layouts of libucp {@code major.minor}.
     *
     * @throws UcxException naming the version found and the one supported
     */
    static void checkVersion(int major, int minor, int release) throws UcxException {
        if (major != UcpLayout.API_MAJOR || minor != UcpLayout.API_MINOR) {
            throw new UcxException(
                    0,
                    "libucp " + major + "." + minor + "." + release
                            + " is not supported: the Java UCP binding knows the struct layouts of UCX "
                            + UcpLayout.API_MAJOR + "." + UcpLayout.API_MINOR + " only");
        }
    }
}
