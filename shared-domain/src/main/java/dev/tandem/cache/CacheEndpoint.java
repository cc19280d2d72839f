package dev.tandem.cache;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

import java.util.Map;

/**
 * {@code /actuator/cache} on each service's management port (once the service exposes "cache"):
 * <ul>
 *   <li>GET: mode, instance id, per cache and level hits/misses/hitRatio since the last reset, L1
 *       size and trust, L2 dirtiness, breaker state, channel health, flush and error counts;</li>
 *   <li>POST (body {@code {"resetCounters": true}} optional) or DELETE ({@code ?resetCounters=true}
 *       optional): flushes L2 and every instance's L1, optionally resets the counters, and
 *       returns the state after. The bench uses it between cold and warm cells.</li>
 * </ul>
 */
@Endpoint(id = "cache")
public class CacheEndpoint {

    private final TieredCache cache;

    public CacheEndpoint(TieredCache cache) {
        this.cache = cache;
    }

    @ReadOperation
    public Map<String, Object> status() {
        return cache.status();
    }

    @WriteOperation
    public Map<String, Object> flush(@Nullable Boolean resetCounters) {
        return doFlush(resetCounters);
    }

    @DeleteOperation
    public Map<String, Object> delete(@Nullable Boolean resetCounters) {
        return doFlush(resetCounters);
    }

    private Map<String, Object> doFlush(Boolean resetCounters) {
        cache.flushAll("admin");
        if (Boolean.TRUE.equals(resetCounters)) {
            cache.resetCounters();
        }
        return cache.status();
    }
}
