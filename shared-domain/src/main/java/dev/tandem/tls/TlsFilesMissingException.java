package dev.tandem.tls;

import java.util.List;

/** {@code tandem.tls.enabled} is true but the certificate or private key cannot be read. */
public class TlsFilesMissingException extends IllegalStateException {

    private final List<String> problems;

    public TlsFilesMissingException(List<String> problems) {
        super("TLS is enabled (tandem.tls.enabled=true) but " + String.join("; ", problems));
        this.problems = List.copyOf(problems);
    }

    public List<String> problems() {
        return problems;
    }
}
