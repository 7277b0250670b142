package dev.urom.deploy;

import dev.urom.framework.wire.ServiceAddress;
import dev.urom.service.daemon.DaemonConfig;
import dev.urom.service.logging.LogLevels;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.OptionalInt;

/**
 * The daemon options a manifest's {@code SERVICE_ARGS} gives, read the way {@code urom daemon}
 * reads them (words split by {@link DaemonConfig#withServiceArgs}, then each option applied to a
 * {@link DaemonConfig}, whose constructor validates it), plus the health endpoint's {@code
 * --http-port PORT} and {@code --http-host HOST}.
 *
 * <p>Immutable. {@link #parse} throws {@link IllegalArgumentException} with one line naming the
 * option and the reason.
 *
 * @param config the daemon configuration these options produce
 * @param httpPort the {@code --http-port} value, empty when not given
 */
record ServiceArgs(DaemonConfig config, OptionalInt httpPort) {

    static final String HTTP_PORT_OPTION = "--http-port";

    /**
     * @param serviceArgs the {@code SERVICE_ARGS} value
     * @param pluginPath the {@code UROM_PLUGIN_PATH} value of the same container
     */
    static ServiceArgs parse(String serviceArgs, String pluginPath) {
        List<String> words = DaemonConfig.withServiceArgs(serviceArgs, List.of());
        DaemonConfig config = DaemonConfig.defaults().withPluginPath(pluginPath);
        OptionalInt httpPort = OptionalInt.empty();
        Iterator<String> rest = words.iterator();
        while (rest.hasNext()) {
            String word = rest.next();
            String option = word;
            String value = null;
            int equals = word.indexOf('=');
            if (word.startsWith("--") && equals > 0) {
                option = word.substring(0, equals);
                value = word.substring(equals + 1);
            }
            if (value == null) {
                if (!rest.hasNext()) {
                    throw new IllegalArgumentException("SERVICE_ARGS: option " + option + " has no value");
                }
                value = rest.next();
            }
            switch (option) {
                case "-l", "--log-level" -> config = config.withLogLevel(LogLevels.parse(value));
                case "--sdk-log-level" -> config = config.withSdkLogLevel(LogLevels.parse(value));
                case "-m", "--max-msg-size" -> config = config.withMaxMessageSize(number(option, value));
                case "--max-workers" -> config = config.withMaxWorkers(number(option, value));
                case "--listen" -> config = config.withListen(ServiceAddress.parse(value));
                case "--log-dir" -> config = config.withLogDir(Path.of(value));
                case HTTP_PORT_OPTION -> httpPort = OptionalInt.of(port(option, value));
                case "--http-host" -> {
                    if (value.isBlank()) {
                        throw new IllegalArgumentException("SERVICE_ARGS: --http-host is empty");
                    }
                }
                default -> throw new IllegalArgumentException("SERVICE_ARGS: '" + option + "' is not an option of urom daemon");
            }
        }
        return new ServiceArgs(config, httpPort);
    }

    private static int number(String option, String value) {
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("SERVICE_ARGS: " + option + " '" + value + "' is not a whole number");
        }
    }

    private static int port(String option, String value) {
        int port = number(option, value);
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("SERVICE_ARGS: " + option + " " + port + " is not a TCP port (1-65535)");
        }
        return port;
    }
}
