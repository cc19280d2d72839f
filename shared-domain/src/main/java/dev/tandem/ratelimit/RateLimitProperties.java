package dev.tandem.ratelimit;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import java.util.List;

/**
 * {@code tandem.rate-limit.*} (tandem-domain.yml): the per-client token bucket both wires apply to
 * the API ({@link ClientRateLimiter}). Environment: {@code TANDEM_RATE_LIMIT_ENABLED},
 * {@code TANDEM_RATE_LIMIT_REQUESTS_PER_SECOND}, {@code TANDEM_RATE_LIMIT_BURST},
 * {@code TANDEM_RATE_LIMIT_EXEMPT_SUBJECTS}, {@code TANDEM_RATE_LIMIT_EXEMPT_ADDRESSES} (both
 * comma-separated) and {@code TANDEM_RATE_LIMIT_MAX_CLIENTS}.
 *
 * @param enabled           false: no request is counted or refused
 * @param requestsPerSecond the rate at which a client's bucket refills (may be below 1: 0.5 is one
 *                          request every two seconds)
 * @param burst             the bucket's size: how many requests a client that was idle may send at once
 * @param exemptSubjects    token subjects ({@code sub}) never limited; only a token that verifies counts
 * @param exemptAddresses   peer addresses never limited: exact IPs ({@code 10.0.0.7}, {@code ::1}) or
 *                          CIDR ranges ({@code 10.0.0.0/8}, {@code fd00::/8})
 * @param maxClients        the most clients whose buckets are kept; beyond it the least useful bucket is
 *                          dropped (its client starts again with a full bucket), so memory stays bounded
 *                          however many addresses a flood comes from
 */
@ConfigurationProperties("tandem.rate-limit")
public record RateLimitProperties(@DefaultValue("false") boolean enabled,
                                  @DefaultValue("100") double requestsPerSecond,
                                  @DefaultValue("200") int burst,
                                  @DefaultValue List<String> exemptSubjects,
                                  @DefaultValue List<String> exemptAddresses,
                                  @DefaultValue("100000") int maxClients) {

    public RateLimitProperties {
        exemptSubjects = exemptSubjects == null ? List.of() : List.copyOf(exemptSubjects);
        exemptAddresses = exemptAddresses == null ? List.of() : List.copyOf(exemptAddresses);
        if (!(requestsPerSecond > 0) || Double.isInfinite(requestsPerSecond)) {
            throw new IllegalArgumentException("tandem.rate-limit.requests-per-second must be a positive number, got "
                    + requestsPerSecond);
        }
        if (burst < 1) {
            throw new IllegalArgumentException("tandem.rate-limit.burst must be at least 1, got " + burst);
        }
        if (maxClients < 1) {
            throw new IllegalArgumentException("tandem.rate-limit.max-clients must be at least 1, got " + maxClients);
        }
    }
}
