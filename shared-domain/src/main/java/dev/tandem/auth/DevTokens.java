package dev.tandem.auth;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * Mints the bearer tokens that writes need: a JWS signed with HS256 and the configured secret,
 * whose {@code scope} claim (space-separated, as in OAuth 2) holds {@link #WRITE_SCOPE}. In
 * production an identity provider issues them; here {@code make token} and {@code make run} print
 * one, and the tests and the bench mint their own.
 *
 * <p>Run as a program ({@code make token}), it prints a token signed with
 * {@code TANDEM_AUTH_JWT_SECRET} (the development secret when unset), valid for
 * {@code TANDEM_TOKEN_TTL} (ISO-8601, default 30 days) with scope {@code TANDEM_TOKEN_SCOPE}
 * (default {@link #WRITE_SCOPE}) and subject {@code TANDEM_TOKEN_SUBJECT} (default {@value #DEV_SUBJECT}).
 */
public final class DevTokens {

    /** The scope a token needs for any write, on both wires. */
    public static final String WRITE_SCOPE = "tandem:write";

    /** Who signs Tandem's tokens; the verifier requires it as {@code iss}. */
    public static final String ISSUER = "tandem";

    /**
     * The secret of a development checkout (32 bytes or more, as HS256 requires). A service that
     * starts with it says so in its log; production sets TANDEM_AUTH_JWT_SECRET.
     */
    public static final String DEV_SECRET = "tandem-dev-secret-not-for-production-use-0123456789";

    /** The subject of the tokens {@link #mint} makes (TANDEM_TOKEN_SUBJECT for make token). */
    public static final String DEV_SUBJECT = "dev";

    private DevTokens() {
    }

    /** A token with {@code scopes} (none: a valid token that may not write), valid for {@code ttl}. */
    public static String mint(String secret, Duration ttl, String... scopes) {
        return mintFor(DEV_SUBJECT, secret, ttl, scopes);
    }

    /** A token for {@code subject} (the client the rate limit counts it as), otherwise as {@link #mint}. */
    public static String mintFor(String subject, String secret, Duration ttl, String... scopes) {
        Instant now = Instant.now();
        JWTClaimsSet claims = new JWTClaimsSet.Builder()
                .issuer(ISSUER)
                .subject(subject)
                .jwtID(UUID.randomUUID().toString())
                .issueTime(Date.from(now))
                .expirationTime(Date.from(now.plus(ttl)))
                .claim("scope", String.join(" ", scopes))
                .build();
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
        try {
            jwt.sign(new MACSigner(secret.getBytes(StandardCharsets.UTF_8)));
        } catch (JOSEException e) {
            throw new IllegalArgumentException("cannot sign with this secret (HS256 needs at least 32 bytes): " + e.getMessage(), e);
        }
        return jwt.serialize();
    }

    /** A write token signed with the development secret, valid for an hour: for tests. */
    public static String devWriter() {
        return mint(DEV_SECRET, Duration.ofHours(1), WRITE_SCOPE);
    }

    public static void main(String[] args) {
        System.out.println(fromEnvironment(System.getenv()));
    }

    /**
     * The token {@code make token} prints for these environment variables. An unset variable takes
     * its default; a blank one does too, except TANDEM_TOKEN_SCOPE, whose blank value asks for a
     * token with no scope (one that may read and not write), as scripts/token.sh says.
     */
    static String fromEnvironment(Map<String, String> environment) {
        String secret = setOr(environment.get("TANDEM_AUTH_JWT_SECRET"), DEV_SECRET);
        Duration ttl = Duration.parse(setOr(environment.get("TANDEM_TOKEN_TTL"), "P30D"));
        String scope = Objects.requireNonNullElse(environment.get("TANDEM_TOKEN_SCOPE"), WRITE_SCOPE);
        String subject = setOr(environment.get("TANDEM_TOKEN_SUBJECT"), DEV_SUBJECT);
        return mintFor(subject, secret, ttl, scope.isBlank() ? new String[0] : scope.trim().split("\\s+"));
    }

    private static String setOr(String value, String fallback) {
        return value == null || value.isBlank() ? fallback : value;
    }
}
