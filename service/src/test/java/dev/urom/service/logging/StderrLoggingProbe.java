// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.logging;

import org.apache.logging.log4j.LogManager;
import org.slf4j.LoggerFactory;

/** The JVM of {@code StderrLoggerContextFactoryTest}: selects the back end as a worker does, then logs once through each bridge a plugin may use. */
public final class StderrLoggingProbe {
    private StderrLoggingProbe() {}

    public static void main(String[] args) {
        StderrLoggerContextFactory.select();
        StderrLoggerContextFactory.configure(50, 40);
        LogManager.getLogger("probe.log4j").info("through the Log4j2 API");
        LoggerFactory.getLogger("probe.slf4j").info("through SLF4J");
        System.getLogger("probe.jpl").log(System.Logger.Level.INFO, "through System.Logger");
    }
}
