package dev.tandem.tls;

import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.Environment;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Fails start-up when TLS is asked for ({@code tandem.tls.enabled}, or a {@code tandem.tls.extra-port})
 * and the PEM files it names are not there,
 * as the very first step of the context refresh (before any bean, connection pool or port): without this the SSL bundle fails deep inside web-server or gRPC-server
 * creation with a stack of wrapped exceptions, and only after the database and cache are up.
 * {@link TlsFilesMissingFailureAnalyzer} turns the failure into Boot's "APPLICATION FAILED TO
 * START" report. With TLS off (the default) it checks nothing, so the services start as before.
 * It runs at refresh rather than as an environment post-processor so that it sees every property
 * source, including those a test adds to the context.
 */
public class TlsFilesCheck implements ApplicationContextInitializer<ConfigurableApplicationContext> {

    static final String ENABLED = "tandem.tls.enabled";
    static final String CERTIFICATE = "tandem.tls.certificate";
    static final String PRIVATE_KEY = "tandem.tls.private-key";
    static final String EXTRA_PORT = "tandem.tls.extra-port";

    @Override
    public void initialize(ConfigurableApplicationContext context) {
        context.addBeanFactoryPostProcessor(beanFactory -> check(context.getEnvironment()));
    }

    /** Throws {@link TlsFilesMissingException} when TLS is on and a PEM file cannot be read. */
    static void check(Environment environment) {
        if (!environment.getProperty(ENABLED, Boolean.class, false)
                && environment.getProperty(EXTRA_PORT, Integer.class, 0) <= 0) {
            return;
        }
        List<String> problems = new ArrayList<>();
        check(environment, CERTIFICATE, "TANDEM_TLS_CERTIFICATE", problems);
        check(environment, PRIVATE_KEY, "TANDEM_TLS_PRIVATE_KEY", problems);
        if (!problems.isEmpty()) {
            throw new TlsFilesMissingException(problems);
        }
    }

    private static void check(Environment environment, String property, String envVar, List<String> problems) {
        String value = environment.getProperty(property, "").trim();
        if (value.isEmpty()) {
            problems.add(property + " (" + envVar + ") is not set");
            return;
        }
        Path path = Path.of(value.startsWith("file:") ? value.substring("file:".length()) : value);
        if (!Files.isRegularFile(path)) {
            problems.add(property + " (" + envVar + ") names " + path.toAbsolutePath() + ", which does not exist");
        } else if (!Files.isReadable(path)) {
            problems.add(property + " (" + envVar + ") names " + path.toAbsolutePath() + ", which this process cannot read");
        }
    }
}
