package dev.tandem.testsupport;

import org.springframework.test.context.DynamicPropertyRegistry;

import java.net.URI;
import java.net.http.HttpClient;

/**
 * A free port for {@code tandem.tls.extra-port} (the second, TLS-only port a service opens beside its
 * plain one) and the certificate it serves, for the tests of that port on either wire.
 */
public record TlsExtraPort(int port, TestCertificate certificate) {

    public static TlsExtraPort pick() {
        return new TlsExtraPort(FreePort.pick(), TestCertificate.generate());
    }

    /** The port and the certificate as the service's properties ({@code @DynamicPropertySource}). */
    public void register(DynamicPropertyRegistry registry) {
        registry.add("tandem.tls.extra-port", () -> port);
        certificate.registerAsTandemTls(registry);
    }

    /** {@code path} on this port, over HTTPS. */
    public URI https(String path) {
        return URI.create("https://127.0.0.1:" + port + path);
    }

    /** A JDK HTTP client that trusts this certificate only. */
    public HttpClient.Builder trustingClient() {
        return HttpClient.newBuilder().sslContext(certificate.clientContext());
    }
}
