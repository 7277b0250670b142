// SPDX-License-Identifier: Apache-2.0
package dev.urom.ucx;

import com.sun.jna.Memory;

/**
 * A UCP context ({@code ucp_context_h}) with the tag-matching and wake-up features, configured by
 * UCX's own environment variables ({@code UCX_TLS}, {@code UCX_NET_DEVICES}, ...).
 *
 * <p>Owns the context: {@link #close} cleans it up (after every {@link UcpWorker} made from it is
 * closed); a second call does nothing. Not thread-safe: one owner.
 */
public final class UcpContext implements AutoCloseable {
    private long handle;

    private UcpContext(long handle) {
        this.handle = handle;
    }

    /**
     * Loads libucp, checks its version and creates a context with {@code UCP_FEATURE_TAG |
     * UCP_FEATURE_WAKEUP}.
     *
     * @throws UcxException when libucp cannot be loaded, is not version {@value UcpLayout#API_MAJOR}.{@value
     *     UcpLayout#API_MINOR}, or refuses its configuration or the context
     */
    public static UcpContext open() throws UcxException {
        int[] version = Ucx.version();
        Ucx.checkVersion(version[0], version[1], version[2]);
        long[] config = new long[1];
        int status = Ucp.ucp_config_read(null, null, config);
        if (status != UcpLayout.UCS_OK) {
            throw UcxException.failed("ucp_config_read (the UCX_* environment)", status);
        }
        try (Memory params = new Memory(UcpLayout.PARAMS_SIZE)) {
            params.clear();
            params.setLong(UcpLayout.PARAMS_FIELD_MASK, UcpLayout.PARAM_FIELD_FEATURES);
            params.setLong(UcpLayout.PARAMS_FEATURES, UcpLayout.FEATURE_TAG | UcpLayout.FEATURE_WAKEUP);
            long[] context = new long[1];
            status = Ucp.ucp_init_version(UcpLayout.API_MAJOR, UcpLayout.API_MINOR, params, config[0], context);
            if (status != UcpLayout.UCS_OK) {
                throw UcxException.failed("ucp_init (features TAG and WAKEUP)", status);
            }
            return new UcpContext(context[0]);
        } finally {
            Ucp.ucp_config_release(config[0]);
        }
    }

    long handle() {
        if (handle == 0) {
            throw new IllegalStateException("the UCP context is closed");
        }
        return handle;
    }

    @Override
    public void close() {
        if (handle != 0) {
            Ucp.ucp_cleanup(handle);
            handle = 0;
        }
    }
}
