// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.logging;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.message.MessageFactory;
import org.apache.logging.log4j.spi.ExtendedLogger;
import org.apache.logging.log4j.spi.LoggerContext;

/**
 * The one logger context of {@link StderrLoggerContextFactory}: its loggers by name (and message
 * factory), and the two levels they take, read at every event. Thread-safe.
 */
final class StderrLoggerContext implements LoggerContext {
    private final ConcurrentMap<String, StderrLogger> loggers = new ConcurrentHashMap<>();
    private volatile Level program = Level.WARN;
    private volatile Level sdk = Level.WARN;

    void levels(Level program, Level sdk) {
        this.program = program;
        this.sdk = sdk;
    }

    /** The level of the SDK's loggers when {@code sdkLogger}, else the program's. */
    Level level(boolean sdkLogger) {
        return sdkLogger ? sdk : program;
    }

    @Override
    public Object getExternalContext() {
        return null;
    }

    @Override
    public ExtendedLogger getLogger(String name) {
        return getLogger(name, null);
    }

    @Override
    public ExtendedLogger getLogger(String name, MessageFactory messageFactory) {
        return loggers.computeIfAbsent(key(name, messageFactory), key -> new StderrLogger(this, name, messageFactory));
    }

    @Override
    public boolean hasLogger(String name) {
        return loggers.containsKey(key(name, null));
    }

    @Override
    public boolean hasLogger(String name, MessageFactory messageFactory) {
        return loggers.containsKey(key(name, messageFactory));
    }

    @Override
    public boolean hasLogger(String name, Class<? extends MessageFactory> messageFactoryClass) {
        return loggers.containsKey(name + "|" + messageFactoryClass.getName());
    }

    private static String key(String name, MessageFactory messageFactory) {
        return messageFactory == null
                ? name
                : name + "|" + messageFactory.getClass().getName();
    }
}
