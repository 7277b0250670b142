// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.logging;

import java.net.URI;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.spi.LoggerContext;
import org.apache.logging.log4j.spi.LoggerContextFactory;

/**
 * A worker's Log4j2 back end: every logger of the process (Log4j2's API, SLF4J and {@code
 * System.Logger} through their Log4j2 bridges) writes one line per event to stderr, in the layout
 * of the daemon's log files ({@link ServiceLogging#PATTERN}), the stack trace of a throwable after
 * it; the daemon copies a worker's stderr into the worker's log file. A worker needs nothing else
 * of a logging framework, and log4j-core's start (its plugin registry, configuration and
 * appenders, some 600 classes) was a third of a worker's start CPU (FootprintBench).
 *
 * <p>A worker selects it ({@link #select}) before its first logger; Log4j2's {@code LogManager}
 * then makes the one instance. Loggers
 * start at WARN; {@link #configure} sets the program's level and the SDK's ({@link
 * LogLevels#SDK_LOGGERS} and the loggers under them), for loggers made before and after.
 * Thread-safe: one event is one write to stderr.
 */
public final class StderrLoggerContextFactory implements LoggerContextFactory {
    /** The Log4j2 property that names a logger context factory. */
    public static final String PROPERTY = "log4j2.loggerContextFactory";

    private static final StderrLoggerContext CONTEXT = new StderrLoggerContext();

    /** Made by Log4j2's {@code LogManager}; every instance serves the one context. */
    public StderrLoggerContextFactory() {}

    /**
     * Makes this the process's back end, unless {@value #PROPERTY} names another: to be called
     * before anything asks Log4j2's {@code LogManager} for a logger (a worker's first statement).
     */
    public static void select() {
        if (System.getProperty(PROPERTY) == null) {
            System.setProperty(PROPERTY, StderrLoggerContextFactory.class.getName());
        }
    }

    /**
     * Sets the levels of every logger of the process, on the DOCA scale ({@link LogLevels}).
     *
     * @throws IllegalArgumentException one line when a level is not a valid numeric level
     */
    public static void configure(int programLevel, int sdkLevel) {
        Level program = LogLevels.fromNumeric(programLevel);
        Level sdk = LogLevels.fromNumeric(sdkLevel);
        CONTEXT.levels(program, sdk);
    }

    @Override
    public LoggerContext getContext(String fqcn, ClassLoader loader, Object externalContext, boolean currentContext) {
        return CONTEXT;
    }

    @Override
    public LoggerContext getContext(
            String fqcn,
            ClassLoader loader,
            Object externalContext,
            boolean currentContext,
            URI configLocation,
            String name) {
        return CONTEXT;
    }

    @Override
    public void removeContext(LoggerContext context) {
        // the one context lives as long as the process
    }

    @Override
    public boolean isClassLoaderDependent() {
        return false;
    }
}
