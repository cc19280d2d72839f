package dev.tandem.tls;

import dev.tandem.config.Settings;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code tandem.tls.*}, optional TLS on each service's API port (defaults in tandem-service.yml;
 * scripts/tls-cert.sh makes a self-signed pair). {@link TlsFilesCheck} refuses to start when TLS
 * is asked for and a file is missing.
 *
 * @param enabled     TLS on the main API port
 * @param certificate the PEM certificate file
 * @param privateKey  the PEM private key file
 * @param extraPort   a second port serving the API over TLS with the same certificate while the
 *                    main one stays as it is; 0 for none (the bench measures TLS and plain in one process)
 */
@ConfigurationProperties("tandem.tls")
public record TlsProperties(boolean enabled, String certificate, String privateKey, int extraPort) {

    public TlsProperties {
        // a negative port was read as "none" where a typo was meant
        if (extraPort < 0 || extraPort > 65535) {
            throw new IllegalArgumentException(Settings.named("tandem.tls.extra-port") + " must be 0 (none) or a port, got "
                    + extraPort);
        }
    }

    /** Whether any port serves TLS, so that the certificate and key must be there. */
    public boolean anyPortUsesTls() {
        return enabled || extraPort > 0;
    }
}
