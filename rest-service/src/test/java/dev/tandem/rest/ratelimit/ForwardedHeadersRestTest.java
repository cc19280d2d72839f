package dev.tandem.rest.ratelimit;

import dev.tandem.ratelimit.RateLimitScenarios;
import dev.tandem.rest.RestIntegrationTest;
import org.junit.jupiter.api.Test;
import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * On Kubernetes (as Boot detects it from KUBERNETES_SERVICE_HOST) a client is still its peer
 * address, whatever it writes in X-Forwarded-For. Boot trusts forwarded headers by default on every
 * cloud platform it detects: it installed Tomcat's RemoteIpValve, which trusts every private
 * address as a proxy and made the header's value the client's address, so each request naming
 * another address had a bucket of its own (never refused) and one naming an exempt address was
 * exempt. The README says nothing here reads X-Forwarded-For on its own: the strategy is now none
 * unless an operator sets it (found by a read-only review; this failed before).
 */
@TestPropertySource(properties = {RateLimitScenarios.PROPERTIES, "spring.main.cloud-platform=kubernetes"})
class ForwardedHeadersRestTest extends RestIntegrationTest {

    @Test
    void aClientNamingOtherAddressesInXForwardedForIsStillLimitedAsItsPeer() {
        for (int i = 0; i < RateLimitScenarios.BURST; i++) {
            assertThat(readAs("10.1.2." + i)).as("request %d within the burst", i + 1).isEqualTo(200);
        }
        assertThat(readAs("10.9.9.9")).as("another address named, the same peer").isEqualTo(429);
        assertThat(readAs("192.0.2.1")).as("an exempt address named, the same peer").isEqualTo(429);
    }

    private int readAs(String forwardedFor) {
        return anonymous.get().uri("/api/v1/groups/1").header("X-Forwarded-For", forwardedFor)
                .exchange().returnResult().getStatus().value();
    }
}
