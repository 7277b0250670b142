// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.os;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.channels.SelectableChannel;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The file descriptor behind a JDK socket channel, which the JDK does not expose: its {@code
 * sun.nio.ch.SelChImpl#getFDVal()}, reachable only when the JVM exports {@code sun.nio.ch} to the
 * class path ({@link #JVM_OPTION}, which the daemon gives every worker). Where it is not reachable,
 * {@link #of} answers empty and {@link #unavailable()} says why.
 *
 * <p>Stateless and thread-safe. The descriptor stays the channel's: the caller must not close it,
 * and it is valid only while the channel is open.
 */
public final class ChannelDescriptors {
    /** The JVM option that lets {@link #of} reach a channel's descriptor. */
    public static final String JVM_OPTION = "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED";

    private static final String SELECTABLE_CHANNEL_IMPL = "sun.nio.ch.SelChImpl";
    private static final MethodHandle GET_FD_VAL;
    private static final String UNAVAILABLE;

    static {
        MethodHandle getter = null;
        String why = null;
        try {
            Class<?> impl = Class.forName(SELECTABLE_CHANNEL_IMPL);
            getter = MethodHandles.lookup().findVirtual(impl, "getFDVal", MethodType.methodType(int.class));
        } catch (IllegalAccessException e) {
            why = "the JVM does not export sun.nio.ch to the class path (" + JVM_OPTION + " is missing)";
        } catch (ReflectiveOperationException | RuntimeException e) {
            why = "this JDK has no " + SELECTABLE_CHANNEL_IMPL + ".getFDVal(): " + e;
        }
        GET_FD_VAL = getter;
        UNAVAILABLE = why;
    }

    private ChannelDescriptors() {}

    /** The descriptor of {@code channel}; empty when this JVM cannot reach it or the channel is no JDK channel of its own. */
    public static OptionalInt of(SelectableChannel channel) {
        if (GET_FD_VAL == null) {
            return OptionalInt.empty();
        }
        try {
            return OptionalInt.of((int) GET_FD_VAL.invoke(channel));
        } catch (Error e) {
            throw e;
        } catch (Throwable notOne) {
            // a ClassCastException: another implementation of SelectableChannel
            return OptionalInt.empty();
        }
    }

    /** Why {@link #of} cannot reach any descriptor in this JVM; empty when it can. */
    public static Optional<String> unavailable() {
        return Optional.ofNullable(UNAVAILABLE);
    }
}
