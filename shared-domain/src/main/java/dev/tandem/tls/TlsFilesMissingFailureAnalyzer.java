package dev.tandem.tls;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Says what is missing and how to fix it, instead of a stack trace. */
class TlsFilesMissingFailureAnalyzer extends AbstractFailureAnalyzer<TlsFilesMissingException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, TlsFilesMissingException cause) {
        return new FailureAnalysis(
                "TLS is asked for (tandem.tls.enabled=true, or a tandem.tls.extra-port) but its PEM files cannot be read:\n  - "
                        + String.join("\n  - ", cause.problems()),
                "Point TANDEM_TLS_CERTIFICATE and TANDEM_TLS_PRIVATE_KEY at a PEM certificate and its "
                        + "private key (scripts/tls-cert.sh makes a self-signed pair under .run/tls/), "
                        + "or turn TLS off with TANDEM_TLS_ENABLED=false and no TANDEM_TLS_EXTRA_PORT.",
                cause);
    }
}
