package dev.tandem.auth;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.crypto.MACVerifier;
import com.nimbusds.jwt.JWT;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.JWTParser;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;
import dev.tandem.error.DomainException;
import dev.tandem.error.ErrorCode;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Date;
import java.util.List;
import java.util.Optional;

/**
 * The one check that both wires make before a write: the request's {@code Authorization} value
 * must be {@code Bearer <JWT>}, the JWT signed with HS256 and {@code tandem.auth.jwt-secret}, issued
 * by {@value DevTokens#ISSUER}, not expired (with {@link #CLOCK_SKEW} of tolerance), and its
 * {@code scope} claim (space-separated, as in OAuth 2) must hold {@value DevTokens#WRITE_SCOPE}.
 *
 * <p>A failure is a {@link DomainException}: UNAUTHENTICATED (401) when there is no usable token,
 * PERMISSION_DENIED (403) when a valid token lacks the scope, so each wire maps it through its usual
 * error table. Messages say which check failed, never what the token or the secret contain.
 *
 * <p>Only HS256 is accepted: the algorithm is checked against a fixed value, never taken from the
 * token, so neither {@code alg: none} nor a public-key algorithm can be slipped in.
 */
public class WriteAccess {

    /** Tolerated difference between the issuer's clock and ours, for {@code exp} and {@code nbf}. */
    public static final Duration CLOCK_SKEW = Duration.ofSeconds(30);

    /** HS256 keys shorter than the hash (RFC 7518 §3.2) are refused. */
    public static final int MIN_SECRET_BYTES = 32;

    private static final Logger log = LoggerFactory.getLogger(WriteAccess.class);
    /** How the committed placeholder secrets (deploy/k8s/secret.yaml) begin: public, like the dev secret. */
    static final String PLACEHOLDER_PREFIX = "REPLACE-ME";
    private static final String BEARER_PREFIX = "bearer ";

    private final boolean enabled;
    private final MACVerifier verifier;
    private final Clock clock;

    public WriteAccess(AuthProperties properties, Clock clock) {
        this.enabled = properties.enabled();
        this.clock = clock;
        byte[] secret = properties.jwtSecret().getBytes(StandardCharsets.UTF_8);
        if (!enabled) {
            log.warn("tandem.auth.enabled is false: every write is accepted without a token. Never run like this "
                    + "where anyone else can reach the service.");
            this.verifier = null;
            return;
        }
        if (secret.length < MIN_SECRET_BYTES) {
            throw new WeakSecretException(secret.length);
        }
        if (properties.jwtSecret().equals(DevTokens.DEV_SECRET)) {
            log.warn("Write tokens are verified with the development secret, which is public (DevTokens.DEV_SECRET): "
                    + "anyone can mint a write token. Set TANDEM_AUTH_JWT_SECRET outside development.");
        } else if (properties.jwtSecret().startsWith(PLACEHOLDER_PREFIX)) {
            log.warn("Write tokens are verified with the placeholder secret of deploy/k8s/secret.yaml, which is "
                    + "public: anyone can mint a write token. Replace TANDEM_AUTH_JWT_SECRET outside a try-out cluster.");
        }
        try {
            this.verifier = new MACVerifier(secret);
        } catch (JOSEException e) {
            throw new IllegalStateException("tandem.auth.jwt-secret cannot be used as an HS256 key", e);
        }
    }

    public boolean enabled() {
        return enabled;
    }

    /**
     * Returns when {@code authorization} (the header or metadata value, null when absent) carries a
     * token that may write; throws UNAUTHENTICATED or PERMISSION_DENIED otherwise.
     */
    public void requireWriter(@Nullable String authorization) {
        if (!enabled) {
            return;
        }
        JWTClaimsSet claims = verifiedClaims(authorization);
        if (!hasWriteScope(claims)) {
            throw new DomainException(ErrorCode.PERMISSION_DENIED,
                    "the bearer token lacks the " + DevTokens.WRITE_SCOPE + " scope that writes need");
        }
    }

    /**
     * As {@link #requireWriter(String)} for every Authorization value the request carries: more
     * than one is UNAUTHENTICATED. HTTP keeps repeated headers and gRPC every metadata value, but the
     * servlet API hands out the first and grpc-java the last, so the wires would check different ones.
     */
    public void requireWriterFrom(List<String> authorizations) {
        if (enabled && authorizations.size() > 1) {
            throw unauthenticated("a request carries one Authorization header, not " + authorizations.size());
        }
        requireWriter(sole(authorizations));
    }

    /** The request's one Authorization value; null when it carries none or several (see {@link #requireWriterFrom(List)}). */
    public static @Nullable String sole(List<String> authorizations) {
        return authorizations.size() == 1 ? authorizations.getFirst() : null;
    }

    /**
     * The subject ({@code sub}) of the token in {@code authorization} when the token verifies
     * (signature, expiry, issuer; whatever its scope), else empty: what the rate limit keys a
     * client by. Always empty when auth is off, since an unverified subject is whatever the client
     * chose to write there.
     */
    public Optional<String> verifiedSubject(@Nullable String authorization) {
        if (!enabled || !isBearer(authorization)) {
            return Optional.empty();
        }
        try {
            return Optional.ofNullable(verifiedClaims(authorization).getSubject()).filter(subject -> !subject.isBlank());
        } catch (DomainException invalid) {
            return Optional.empty();
        }
    }

    /** Whether {@code authorization} is a Bearer credential at all (RFC 6750 error="invalid_token" then applies). */
    public static boolean isBearer(@Nullable String authorization) {
        return authorization != null && authorization.length() > BEARER_PREFIX.length()
                && authorization.regionMatches(true, 0, BEARER_PREFIX, 0, BEARER_PREFIX.length())
                && !authorization.substring(BEARER_PREFIX.length()).isBlank();
    }

    private JWTClaimsSet verifiedClaims(@Nullable String authorization) {
        if (authorization == null || authorization.isBlank()) {
            throw unauthenticated("this write needs a bearer token (authorization: Bearer <token>; "
                    + "make token prints a development one)");
        }
        if (!isBearer(authorization)) {
            // The scheme name is case-insensitive (RFC 9110 §11.1); anything else, e.g. Basic, is refused.
            throw unauthenticated("the Authorization header must be 'Bearer <token>'");
        }
        String token = authorization.substring(BEARER_PREFIX.length()).trim();
        JWT jwt;
        try {
            jwt = JWTParser.parse(token);
        } catch (ParseException e) {
            throw unauthenticated("the bearer token is not a well-formed JWT");
        }
        if (jwt instanceof PlainJWT) {
            throw unauthenticated("the bearer token is unsigned (alg none); only HS256-signed tokens are accepted");
        }
        if (!(jwt instanceof SignedJWT signed) || !JWSAlgorithm.HS256.equals(signed.getHeader().getAlgorithm())) {
            throw unauthenticated("the bearer token is not signed with HS256, the only algorithm accepted");
        }
        try {
            if (!signed.verify(verifier)) {
                throw unauthenticated("the bearer token's signature does not verify with this service's secret");
            }
        } catch (JOSEException e) {
            throw unauthenticated("the bearer token's signature cannot be verified");
        }
        JWTClaimsSet claims;
        try {
            claims = signed.getJWTClaimsSet();
        } catch (ParseException e) {
            throw unauthenticated("the bearer token's claims are not a JSON object");
        }
        Instant now = clock.instant();
        Date expiry = claims.getExpirationTime();
        if (expiry == null) {
            throw unauthenticated("the bearer token has no expiry (exp); tokens without one are refused");
        }
        if (expiry.toInstant().plus(CLOCK_SKEW).isBefore(now)) {
            throw unauthenticated("the bearer token has expired");
        }
        Date notBefore = claims.getNotBeforeTime();
        if (notBefore != null && notBefore.toInstant().minus(CLOCK_SKEW).isAfter(now)) {
            throw unauthenticated("the bearer token is not valid yet (nbf)");
        }
        if (!DevTokens.ISSUER.equals(claims.getIssuer())) {
            throw unauthenticated("the bearer token was not issued by " + DevTokens.ISSUER + " (iss)");
        }
        return claims;
    }

    private static boolean hasWriteScope(JWTClaimsSet claims) {
        try {
            String scope = claims.getStringClaim("scope");
            return scope != null && Arrays.asList(scope.trim().split("\\s+")).contains(DevTokens.WRITE_SCOPE);
        } catch (ParseException e) {
            return false;   // not a string: no scope this service understands
        }
    }

    private static DomainException unauthenticated(String message) {
        log.debug("Write refused: {}", message);
        return new DomainException(ErrorCode.UNAUTHENTICATED, message);
    }
}
