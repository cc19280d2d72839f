package dev.tandem.auth;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Turns a {@link WeakSecretException} at start-up into Boot's "APPLICATION FAILED TO START" report. */
class WeakSecretFailureAnalyzer extends AbstractFailureAnalyzer<WeakSecretException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, WeakSecretException cause) {
        return new FailureAnalysis(cause.getMessage(),
                "Set TANDEM_AUTH_JWT_SECRET to a random value of at least " + WriteAccess.MIN_SECRET_BYTES
                        + " bytes (e.g. openssl rand -base64 48), the same for every service instance, or leave it "
                        + "unset in development.", cause);
    }
}
