// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.worker;

import com.sun.jna.NativeLibrary;
import dev.urom.spi.PluginIface;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerContext;
import dev.urom.spi.WorkerNotification;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The Java twin of the native wake-up fixture ({@code wakeup_plugin.c}), packed into a jar at test
 * time: its wake-up descriptor is a timerfd (through JNA); commands {@code { u64 op; u64 arg }}:
 * 1 WAIT (arg microseconds, 0 never; answered with the u64 CLOCK_MONOTONIC nanoseconds it was due),
 * 2 COUNT (u64 progress calls, u64 arm calls), 3 LOOKUP (arg a domain id: the address found).
 * Its transport is {@code ucp-tag}, its address {@code java-<pid>}.
 *
 * <p>Not thread-safe, as the SPI allows; the timerfd is closed by {@link #close}.
 */
public final class WakeupJavaPlugin implements PluginIface {
    private static final int CLOCK_MONOTONIC = 1;
    private static final int TFD_NONBLOCK = 0x800;
    private static final int TFD_CLOEXEC = 0x80000;
    private static final int TFD_TIMER_ABSTIME = 1;
    private static final NativeLibrary C = NativeLibrary.getInstance("c");

    private final List<WorkerNotification> done = new ArrayList<>();
    private WorkerContext context;
    private int timer = -1;
    private WorkerCommand waiting;
    private long dueNanos;
    private long progressCalls;
    private long armCalls;

    @Override
    public void open(WorkerContext context) throws UromException {
        this.context = context;
        timer = C.getFunction("timerfd_create").invokeInt(new Object[] {CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC});
        if (timer < 0) {
            throw new UromException(UromStatus.OPERATING_SYSTEM, "timerfd_create failed");
        }
    }

    @Override
    public void close() {
        if (timer >= 0) {
            C.getFunction("close").invokeInt(new Object[] {timer});
        }
    }

    @Override
    public byte[] address() {
        return ("java-" + ProcessHandle.current().pid()).getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public Optional<String> transport() {
        return Optional.of("ucp-tag");
    }

    @Override
    public void workerCommand(WorkerCommand command) throws UromException {
        if (command.payload().length != 16) {
            throw new UromException(UromStatus.INVALID_VALUE, "a command is { u64 op; u64 arg }");
        }
        ByteBuffer in = ByteBuffer.wrap(command.payload()).order(ByteOrder.LITTLE_ENDIAN);
        long op = in.getLong();
        long arg = in.getLong();
        if (op == 1) {
            if (waiting != null) {
                throw new UromException(UromStatus.IN_USE, "one WAIT at a time");
            }
            waiting = command;
            dueNanos = 0;
            if (arg > 0) {
                dueNanos = System.nanoTime() + arg * 1000;
                long[] spec = {0, 0, dueNanos / 1_000_000_000L, dueNanos % 1_000_000_000L};
                if (C.getFunction("timerfd_settime").invokeInt(new Object[] {timer, TFD_TIMER_ABSTIME, spec, null})
                        != 0) {
                    waiting = null;
                    throw new UromException(UromStatus.OPERATING_SYSTEM, "timerfd_settime failed");
                }
            }
        } else if (op == 2) {
            done.add(WorkerNotification.replyTo(
                    command,
                    UromStatus.SUCCESS,
                    ByteBuffer.allocate(16)
                            .order(ByteOrder.LITTLE_ENDIAN)
                            .putLong(progressCalls)
                            .putLong(armCalls)
                            .array()));
        } else if (op == 3) {
            try {
                done.add(WorkerNotification.replyTo(
                        command, UromStatus.SUCCESS, context.domain().address(arg)));
            } catch (UromException e) {
                done.add(WorkerNotification.replyTo(command, e.status(), new byte[0]));
            }
        } else {
            throw new UromException(UromStatus.NOT_SUPPORTED, "unknown op " + op);
        }
    }

    @Override
    public void progress(List<? super WorkerNotification> notifications) {
        progressCalls++;
        if (waiting != null && C.getFunction("read").invokeLong(new Object[] {timer, new long[1], 8L}) == 8) {
            done.add(WorkerNotification.replyTo(
                    waiting,
                    UromStatus.SUCCESS,
                    ByteBuffer.allocate(8)
                            .order(ByteOrder.LITTLE_ENDIAN)
                            .putLong(dueNanos)
                            .array()));
            waiting = null;
        }
        notifications.addAll(done);
        done.clear();
    }

    @Override
    public OptionalInt wakeupFd() {
        return OptionalInt.of(timer);
    }

    @Override
    public boolean armWakeup() {
        armCalls++;
        return done.isEmpty();
    }
}
