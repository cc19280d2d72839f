package dev.tandem.ratelimit;

import dev.tandem.config.Settings;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.ConstructorBinding;
import org.springframework.boot.context.properties.bind.DefaultValue;

import java.util.List;

/**
 * {@code tandem.rate-limit.*} (tandem-domain.yml): the per-client token bucket both wires apply to
 * the API ({@link ClientRateLimiter}). Environment: {@code TANDEM_RATE_LIMIT_ENABLED},
 * {@code TANDEM_RATE_LIMIT_REQUESTS_PER_SECOND}, {@code TANDEM_RATE_LIMIT_BURST},
 * {@code TANDEM_RATE_LIMIT_EXEMPT_SUBJECTS}, {@code TANDEM_RATE_LIMIT_EXEMPT_ADDRESSES} (both
 * comma-separated), {@code TANDEM_RATE_LIMIT_MAX_CLIENTS} and {@code TANDEM_RATE_LIMIT_IPV6_PREFIX_LENGTH}.
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
 * @param ipv6PrefixLength  how many leading bits of a global unicast IPv6 address name its client: a
 *                          host is usually handed a whole /64, and keyed by its full address each of
 *                          those 2^64 addresses would start with a full bucket
 */
@ConfigurationProperties("tandem.rate-limit")
public record RateLimitProperties(@DefaultValue("false") boolean enabled,
                                  @DefaultValue("100") double requestsPerSecond,
                                  @DefaultValue("200") int burst,
                                  @DefaultValue List<String> exemptSubjects,
                                  @DefaultValue List<String> exemptAddresses,
                                  @DefaultValue("100000") int maxClients,
                                  @DefaultValue("64") int ipv6PrefixLength) {

    /** With IPv6 clients keyed by their /64. */
    public RateLimitProperties(boolean enabled, double requestsPerSecond, int burst, List<String> exemptSubjects,
                               List<String> exemptAddresses, int maxClients) {
        this(enabled, requestsPerSecond, burst, exemptSubjects, exemptAddresses, maxClients, 64);
    }

    @ConstructorBinding
    public RateLimitProperties {
        exemptSubjects = exemptSubjects == null ? List.of() : List.copyOf(exemptSubjects);
        exemptAddresses = exemptAddresses == null ? List.of() : List.copyOf(exemptAddresses);
        if (!(requestsPerSecond > 0) || Double.isInfinite(requestsPerSecond)) {
            throw new IllegalArgumentException("tandem.rate-limit.requests-per-second must be a positive number, got "
                    + requestsPerSecond);
        }
        Settings.requireAtLeastOne(burst, "tandem.rate-limit.burst");
        if (ipv6PrefixLength < 1 || ipv6PrefixLength > 128) {
            throw new IllegalArgumentException("tandem.rate-limit.ipv6-prefix-length must be between 1 and 128, got "
                    + ipv6PrefixLength);
        }
        Settings.requireAtLeastOne(maxClients, "tandem.rate-limit.max-clients");
    }
}
