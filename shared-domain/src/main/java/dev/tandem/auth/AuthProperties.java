package dev.tandem.auth;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code tandem.auth.*} (tandem-domain.yml): whether writes need a bearer token, and the HS256
 * secret that signs the tokens. Environment: {@code TANDEM_AUTH_ENABLED},
 * {@code TANDEM_AUTH_JWT_SECRET}.
 *
 * @param enabled   false lets every write through without a token (a WARN at start-up says so)
 * @param jwtSecret the HMAC key, at least 32 bytes; unset means {@link DevTokens#DEV_SECRET}
 */
@ConfigurationProperties("tandem.auth")
public record AuthProperties(@DefaultValue("true") boolean enabled, String jwtSecret) {

    public AuthProperties {
        // Only an unset secret falls back to the development one; an explicitly empty or short
        // one fails start-up (WriteAccess), so a missing production secret is noticed.
        if (jwtSecret == null) {
            jwtSecret = DevTokens.DEV_SECRET;
        }
    }

    /** Never prints the secret. */
    @Override
    public String toString() {
        return "AuthProperties[enabled=" + enabled + ", jwtSecret=(" + jwtSecret.length() + " characters)]";
    }
}
