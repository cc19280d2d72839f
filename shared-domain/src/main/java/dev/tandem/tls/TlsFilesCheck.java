package dev.tandem.tls;

import org.springframework.boot.context.properties.bind.Binder;
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

    private static final String PREFIX = "tandem.tls";
    static final String CERTIFICATE = PREFIX + ".certificate";
    static final String PRIVATE_KEY = PREFIX + ".private-key";

    @Override
    public void initialize(ConfigurableApplicationContext context) {
        context.addBeanFactoryPostProcessor(beanFactory -> check(context.getEnvironment()));
    }

    /** Throws {@link TlsFilesMissingException} when TLS is on and a PEM file cannot be read. */
    static void check(Environment environment) {
        // Bound here, before any bean exists, the same way the TlsProperties bean is bound later.
        TlsProperties tls = Binder.get(environment).bindOrCreate(PREFIX, TlsProperties.class);
        if (!tls.anyPortUsesTls()) {
            return;
        }
        List<String> problems = new ArrayList<>();
        check(tls.certificate(), CERTIFICATE, "TANDEM_TLS_CERTIFICATE", problems);
        check(tls.privateKey(), PRIVATE_KEY, "TANDEM_TLS_PRIVATE_KEY", problems);
        if (!problems.isEmpty()) {
            throw new TlsFilesMissingException(problems);
        }
    }

    private static void check(String file, String property, String envVar, List<String> problems) {
        String value = file == null ? "" : file.trim();
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
