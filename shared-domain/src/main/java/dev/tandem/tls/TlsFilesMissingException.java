package dev.tandem.tls;

import java.util.List;

/** TLS is asked for (tandem.tls.enabled, or tandem.tls.extra-port) but the certificate or private key cannot be read. */
public class TlsFilesMissingException extends IllegalStateException {

    private final List<String> problems;

    public TlsFilesMissingException(List<String> problems) {
        super("TLS is asked for (tandem.tls.enabled=true or a tandem.tls.extra-port) but " + String.join("; ", problems));
        this.problems = List.copyOf(problems);
    }

    public List<String> problems() {
        return problems;
    }
}
