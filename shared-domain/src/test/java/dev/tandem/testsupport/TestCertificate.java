package dev.tandem.testsupport;

import org.springframework.test.context.DynamicPropertyRegistry;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.concurrent.TimeUnit;

/**
 * A self-signed certificate for 127.0.0.1/localhost made by {@code scripts/tls-cert.sh} into a
 * fresh temporary directory — the same script the bench and users run, so no key is committed and
 * the script itself is exercised — and a client {@link SSLContext} that trusts exactly that
 * certificate (and nothing else, so a passing handshake proves the server presented it).
 */
public record TestCertificate(Path certificate, Path privateKey) {

    /** This pair as the services' tandem.tls.certificate and tandem.tls.private-key. */
    public void registerAsTandemTls(DynamicPropertyRegistry registry) {
        registry.add("tandem.tls.certificate", () -> certificate.toString());
        registry.add("tandem.tls.private-key", () -> privateKey.toString());
    }

    public static TestCertificate generate() {
        try {
            Path dir = Files.createTempDirectory("tandem-tls-");
            Path script = repositoryRoot().resolve("scripts/tls-cert.sh");
            Process process = new ProcessBuilder("bash", script.toString(), dir.toString())
                    .redirectErrorStream(true).start();
            process.getOutputStream().close();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            // a bound so a hung openssl fails the test instead of the build, not a timing assertion
            if (!process.waitFor(120, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new IllegalStateException("scripts/tls-cert.sh failed:\n" + output);
            }
            TestCertificate made = new TestCertificate(dir.resolve("tandem.crt"), dir.resolve("tandem.key"));
            dir.toFile().deleteOnExit();
            made.certificate.toFile().deleteOnExit();
            made.privateKey.toFile().deleteOnExit();
            return made;
        } catch (IOException e) {
            throw new IllegalStateException("could not run scripts/tls-cert.sh", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The checkout's root: the nearest directory up from the working directory with scripts/tls-cert.sh. */
    static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("scripts/tls-cert.sh"))) {
                return dir;
            }
        }
        throw new IllegalStateException("no scripts/tls-cert.sh above " + Path.of("").toAbsolutePath());
    }

    public TrustManagerFactory trustManagerFactory() {
        try (InputStream in = Files.newInputStream(certificate)) {
            KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
            trusted.load(null, null);
            trusted.setCertificateEntry("tandem", CertificateFactory.getInstance("X.509").generateCertificate(in));
            TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            factory.init(trusted);
            return factory;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot read " + certificate, e);
        }
    }

    /** A TLS client context that trusts this certificate only. */
    public SSLContext clientContext() {
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trustManagerFactory().getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
