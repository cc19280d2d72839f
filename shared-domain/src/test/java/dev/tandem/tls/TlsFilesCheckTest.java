package dev.tandem.tls;

import dev.tandem.testsupport.TestCertificate;
import org.junit.jupiter.api.Test;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TlsFilesCheckTest {

    @Test
    void tlsOffChecksNothing() {
        MockEnvironment environment = new MockEnvironment()
                .withProperty("tandem.tls.enabled", "false")
                .withProperty("tandem.tls.certificate", "/nowhere/tandem.crt");
        assertThatCode(() -> TlsFilesCheck.check(environment)).doesNotThrowAnyException();
        assertThatCode(() -> TlsFilesCheck.check(new MockEnvironment()))
                .doesNotThrowAnyException();
    }

    @Test
    void tlsOnWithReadableFilesPasses() {
        TestCertificate pair = TestCertificate.generate();
        MockEnvironment environment = new MockEnvironment()
                .withProperty("tandem.tls.enabled", "true")
                .withProperty("tandem.tls.certificate", pair.certificate().toString())
                .withProperty("tandem.tls.private-key", "file:" + pair.privateKey());
        assertThatCode(() -> TlsFilesCheck.check(environment)).doesNotThrowAnyException();
    }

    @Test
    void tlsOnWithAMissingFileOrNoPathFailsNamingWhatIsMissingAndHowToFixIt() {
        MockEnvironment environment = new MockEnvironment()
                .withProperty("tandem.tls.enabled", "true")
                .withProperty("tandem.tls.certificate", "/nowhere/tandem.crt");

        assertThatThrownBy(() -> TlsFilesCheck.check(environment))
                .isInstanceOfSatisfying(TlsFilesMissingException.class, e -> {
                    assertThat(e.problems()).containsExactly(
                            "tandem.tls.certificate (TANDEM_TLS_CERTIFICATE) names /nowhere/tandem.crt, which does not exist",
                            "tandem.tls.private-key (TANDEM_TLS_PRIVATE_KEY) is not set");
                    FailureAnalysis analysis = new TlsFilesMissingFailureAnalyzer().analyze(new IllegalStateException("start-up", e));
                    assertThat(analysis.getDescription()).contains("/nowhere/tandem.crt").contains("TANDEM_TLS_PRIVATE_KEY");
                    assertThat(analysis.getAction()).contains("scripts/tls-cert.sh").contains("TANDEM_TLS_ENABLED=false");
                });
    }

    @Test
    void anExtraTlsPortNeedsTheFilesEvenWithTheMainPortPlain() {
        MockEnvironment environment = new MockEnvironment()
                .withProperty("tandem.tls.enabled", "false")
                .withProperty("tandem.tls.extra-port", "19443");

        assertThatThrownBy(() -> TlsFilesCheck.check(environment))
                .isInstanceOfSatisfying(TlsFilesMissingException.class, e -> assertThat(e.problems()).containsExactly(
                        "tandem.tls.certificate (TANDEM_TLS_CERTIFICATE) is not set",
                        "tandem.tls.private-key (TANDEM_TLS_PRIVATE_KEY) is not set"));
        assertThatCode(() -> TlsFilesCheck.check(environment.withProperty("tandem.tls.extra-port", "0")))
                .doesNotThrowAnyException();
    }

    /** A negative extra port was read as "none", where a typo was meant: the start now fails naming it. */
    @Test
    void aNegativeExtraPortStopsTheStartNamingItsVariable() {
        MockEnvironment environment = new MockEnvironment()
                .withProperty("tandem.tls.enabled", "false")
                .withProperty("tandem.tls.extra-port", "-8443");
        assertThatThrownBy(() -> TlsFilesCheck.check(environment)).hasStackTraceContaining("TANDEM_TLS_EXTRA_PORT");
    }
}
