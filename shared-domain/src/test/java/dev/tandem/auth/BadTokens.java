package dev.tandem.auth;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Authorization values that must not let anyone write, for the auth tests of every wire (the
 * services' tests get this class from shared-domain's test-jar). Each is "Bearer ..." unless the
 * point is the scheme itself; all but {@link #OTHER_SECRET}'s are signed with the development secret.
 */
public final class BadTokens {

    public static final String OTHER_SECRET = "another-secret-that-is-long-enough-for-hs256-0123456789";

    private BadTokens() {
    }

    /** Refused with 401 / UNAUTHENTICATED: name -> Authorization value. */
    public static Map<String, String> unauthenticated() {
        Map<String, String> cases = new LinkedHashMap<>();
        cases.put("not the Bearer scheme", "Basic dGFuZGVtOnRhbmRlbQ==");
        cases.put("malformed token", "Bearer not.a-jwt");
        cases.put("wrong signature (other secret)",
                "Bearer " + DevTokens.mint(OTHER_SECRET, Duration.ofHours(1), DevTokens.WRITE_SCOPE));
        cases.put("expired", "Bearer " + DevTokens.mint(DevTokens.DEV_SECRET, Duration.ofMinutes(-5), DevTokens.WRITE_SCOPE));
        cases.put("wrong issuer", "Bearer " + signed(JWSAlgorithm.HS256, claims().issuer("someone-else").build()));
        cases.put("no expiry", "Bearer " + signed(JWSAlgorithm.HS256, claims().expirationTime(null).build()));
        cases.put("alg none", "Bearer " + new PlainJWT(claims().build()).serialize());
        cases.put("alg HS384", "Bearer " + signed(JWSAlgorithm.HS384, claims().build()));
        return cases;
    }

    /** A valid token without the write scope: 403 / PERMISSION_DENIED. */
    public static String withoutWriteScope() {
        return "Bearer " + DevTokens.mint(DevTokens.DEV_SECRET, Duration.ofHours(1), "tandem:read");
    }

    /** What DevTokens puts in a write token, to be changed one claim at a time. */
    static JWTClaimsSet.Builder claims() {
        Instant now = Instant.now();
        return new JWTClaimsSet.Builder()
                .issuer(DevTokens.ISSUER)
                .subject("test")
                .issueTime(Date.from(now))
                .expirationTime(Date.from(now.plus(Duration.ofHours(1))))
                .claim("scope", DevTokens.WRITE_SCOPE);
    }

    static String signed(JWSAlgorithm algorithm, JWTClaimsSet claims) {
        SignedJWT jwt = new SignedJWT(new JWSHeader(algorithm), claims);
        try {
            jwt.sign(new MACSigner(DevTokens.DEV_SECRET.getBytes(StandardCharsets.UTF_8)));
        } catch (JOSEException e) {
            throw new IllegalStateException(e);
        }
        return jwt.serialize();
    }
}
