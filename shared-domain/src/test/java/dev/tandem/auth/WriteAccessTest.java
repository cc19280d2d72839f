package dev.tandem.auth;

import com.nimbusds.jose.JWSAlgorithm;
import dev.tandem.error.DomainException;
import dev.tandem.error.ErrorCode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Date;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** The verifier alone: which token may write, and what the refusal says (never the token itself). */
@ExtendWith(OutputCaptureExtension.class)
class WriteAccessTest {

    private final WriteAccess access = new WriteAccess(new AuthProperties(true, null), Clock.systemUTC());

    @Test
    void aDevWriterTokenMayWriteWhateverTheSchemeCase() {
        assertThatCode(() -> access.requireWriter("Bearer " + DevTokens.devWriter())).doesNotThrowAnyException();
        assertThatCode(() -> access.requireWriter("bearer " + DevTokens.devWriter())).doesNotThrowAnyException();
        assertThatCode(() -> access.requireWriter("Bearer " + DevTokens.mint(DevTokens.DEV_SECRET, Duration.ofMinutes(1),
                "tandem:read", DevTokens.WRITE_SCOPE))).doesNotThrowAnyException();
    }

    @Test
    void missingOrBadTokensAreUnauthenticatedAndSayWhy() {
        assertThat(refusal(null)).isEqualTo(ErrorCode.UNAUTHENTICATED);
        assertThat(refusal("")).isEqualTo(ErrorCode.UNAUTHENTICATED);
        assertThat(refusal("Bearer ")).isEqualTo(ErrorCode.UNAUTHENTICATED);
        Map<String, String> expectedWords = Map.of(
                "not the Bearer scheme", "Bearer",
                "malformed token", "well-formed",
                "wrong signature (other secret)", "signature",
                "expired", "expired",
                "wrong issuer", "issued by",
                "no expiry", "expiry",
                "alg none", "unsigned",
                "alg HS384", "HS256");
        BadTokens.unauthenticated().forEach((name, authorization) -> {
            DomainException e = catchThrowableOfType(DomainException.class, () -> access.requireWriter(authorization));
            assertThat(e).as(name).isNotNull();
            assertThat(e.code()).as(name).isEqualTo(ErrorCode.UNAUTHENTICATED);
            assertThat(e.getMessage()).as(name).contains(expectedWords.get(name))
                    .doesNotContain(authorization.substring(authorization.indexOf(' ') + 1))
                    .doesNotContain(DevTokens.DEV_SECRET);
        });
    }

    /**
     * The placeholder secret the Kubernetes manifests ship is as public as the development one, and
     * the service says so at start as it does for that one. Failed before: it started silently.
     */
    @Test
    void thePublicSecretsAreNamedInAWarningAtStart(CapturedOutput output) throws Exception {
        String placeholder = java.nio.file.Files.readAllLines(dev.tandem.testsupport.LocalProcesses.projectRoot()
                        .resolve("deploy/k8s/secret.yaml")).stream()
                .filter(line -> line.strip().startsWith("TANDEM_AUTH_JWT_SECRET:"))
                .map(line -> line.substring(line.indexOf(':') + 1).strip()).findFirst().orElseThrow();
        new WriteAccess(new AuthProperties(true, placeholder), Clock.systemUTC());
        assertThat(output.getOut()).contains("placeholder secret of deploy/k8s/secret.yaml");
        new WriteAccess(new AuthProperties(true, null), Clock.systemUTC());
        assertThat(output.getOut()).contains("development secret");
    }

    /**
     * Two Authorization values are refused whatever their order: the servlet API hands a REST filter
     * the first and grpc-java an interceptor the last, so accepting either would let the wires differ.
     */
    @Test
    void aRequestWithTwoAuthorizationValuesIsUnauthenticatedWhicheverComesFirst() {
        String writer = "Bearer " + DevTokens.devWriter();
        for (List<String> values : List.of(List.of(writer, "Bearer junk"), List.of("Bearer junk", writer), List.of(writer, writer))) {
            DomainException e = catchThrowableOfType(DomainException.class, () -> access.requireWriterFrom(values));
            assertThat(e).as("%s", values).isNotNull();
            assertThat(e.code()).isEqualTo(ErrorCode.UNAUTHENTICATED);
            assertThat(e.getMessage()).contains("one Authorization header");
        }
        assertThatCode(() -> access.requireWriterFrom(List.of(writer))).doesNotThrowAnyException();
        assertThat(refusalOf(List.of())).isEqualTo(ErrorCode.UNAUTHENTICATED);
    }

    private ErrorCode refusalOf(List<String> values) {
        DomainException e = catchThrowableOfType(DomainException.class, () -> access.requireWriterFrom(values));
        return e == null ? null : e.code();
    }

    @Test
    void aValidTokenWithoutTheWriteScopeIsPermissionDenied() {
        assertThat(refusal(BadTokens.withoutWriteScope())).isEqualTo(ErrorCode.PERMISSION_DENIED);
        assertThat(refusal("Bearer " + DevTokens.mint(DevTokens.DEV_SECRET, Duration.ofHours(1)))).isEqualTo(ErrorCode.PERMISSION_DENIED);
        // "tandem:writer" is not "tandem:write": scopes are whole words.
        assertThat(refusal("Bearer " + DevTokens.mint(DevTokens.DEV_SECRET, Duration.ofHours(1), "tandem:writer")))
                .isEqualTo(ErrorCode.PERMISSION_DENIED);
        assertThat(refusal("Bearer " + BadTokens.signed(JWSAlgorithm.HS256, BadTokens.claims()
                .claim("scope", java.util.List.of(DevTokens.WRITE_SCOPE)).build()))).isEqualTo(ErrorCode.PERMISSION_DENIED);
    }

    @Test
    void expiryAndNotBeforeAllowThirtySecondsOfClockSkew() {
        Instant now = Instant.parse("2030-01-01T00:00:00Z");
        WriteAccess at = new WriteAccess(new AuthProperties(true, null), Clock.fixed(now, ZoneOffset.UTC));
        String justExpired = "Bearer " + BadTokens.signed(JWSAlgorithm.HS256, BadTokens.claims()
                .expirationTime(Date.from(now.minusSeconds(20))).build());
        String longExpired = "Bearer " + BadTokens.signed(JWSAlgorithm.HS256, BadTokens.claims()
                .expirationTime(Date.from(now.minusSeconds(40))).build());
        String soonValid = "Bearer " + BadTokens.signed(JWSAlgorithm.HS256, BadTokens.claims()
                .expirationTime(Date.from(now.plusSeconds(3600))).notBeforeTime(Date.from(now.plusSeconds(20))).build());
        String notYetValid = "Bearer " + BadTokens.signed(JWSAlgorithm.HS256, BadTokens.claims()
                .expirationTime(Date.from(now.plusSeconds(3600))).notBeforeTime(Date.from(now.plusSeconds(40))).build());
        assertThatCode(() -> at.requireWriter(justExpired)).doesNotThrowAnyException();
        assertThatCode(() -> at.requireWriter(soonValid)).doesNotThrowAnyException();
        assertThatThrownBy(() -> at.requireWriter(longExpired)).hasMessageContaining("expired");
        assertThatThrownBy(() -> at.requireWriter(notYetValid)).hasMessageContaining("not valid yet");
    }

    @Test
    void aShortSecretFailsStartUpWithoutShowingIt() {
        assertThatThrownBy(() -> new WriteAccess(new AuthProperties(true, "short-secret"), Clock.systemUTC()))
                .isInstanceOf(WeakSecretException.class)
                .hasMessageContaining("tandem.auth.jwt-secret").hasMessageContaining("at least 32 bytes")
                .hasMessageNotContaining("short-secret");
        assertThatThrownBy(() -> new WriteAccess(new AuthProperties(true, ""), Clock.systemUTC()))
                .isInstanceOf(WeakSecretException.class);
    }

    @Test
    void anotherSecretVerifiesItsOwnTokensOnly() {
        WriteAccess other = new WriteAccess(new AuthProperties(true, BadTokens.OTHER_SECRET), Clock.systemUTC());
        assertThatCode(() -> other.requireWriter("Bearer " + DevTokens.mint(BadTokens.OTHER_SECRET, Duration.ofMinutes(5),
                DevTokens.WRITE_SCOPE))).doesNotThrowAnyException();
        assertThatThrownBy(() -> other.requireWriter("Bearer " + DevTokens.devWriter())).hasMessageContaining("signature");
    }

    @Test
    void disabledLetsEveryWriteThrough() {
        WriteAccess disabled = new WriteAccess(new AuthProperties(false, "short"), Clock.systemUTC());
        assertThat(disabled.enabled()).isFalse();
        assertThatCode(() -> disabled.requireWriter(null)).doesNotThrowAnyException();
    }

    private ErrorCode refusal(String authorization) {
        DomainException e = catchThrowableOfType(DomainException.class, () -> access.requireWriter(authorization));
        assertThat(e).as("refusal of %s", authorization).isNotNull();
        return e.code();
    }
}
