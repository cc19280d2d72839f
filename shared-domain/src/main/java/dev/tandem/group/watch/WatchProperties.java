package dev.tandem.group.watch;

import dev.tandem.config.Settings;
import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;

/**
 * {@code tandem.watch.*}, the group watches (WatchGroup, GET /api/v1/groups/{id}/events),
 * documented with their defaults in tandem-domain.yml.
 *
 * @param heartbeat   how often a watch that has nothing to say sends a heartbeat: it keeps proxies
 *                    from closing an idle connection and moves the client's position on
 * @param maxWatchers how many watches one instance serves at once; one more is refused with
 *                    RESOURCE_EXHAUSTED / 429 and Retry-After
 * @param maxWatchersPerClient how many of them one client may hold (a client as the rate limit names
 *                    it: ClientRateLimiter#clientOf), so that one client cannot take every place;
 *                    one more is refused as above. Unset: 100, or max-watchers when that is lower;
 *                    set above max-watchers, refused at start (it would mean nothing)
 * @param retryAfter  the Retry-After of those refusals, and of a watch refused during shutdown
 * @param stallTimeout how long an event may wait for a client that takes none (gRPC: its call not
 *                    ready, its flow-control window full) before the watch ends and frees its place
 */
@ConfigurationProperties("tandem.watch")
public record WatchProperties(Duration heartbeat, Integer maxWatchers, Integer maxWatchersPerClient, Duration retryAfter,
                              Duration stallTimeout) {

    public WatchProperties {
        heartbeat = heartbeat == null ? Duration.ofSeconds(15) : heartbeat;
        // unset is the default; 0 is refused below (it was taken for the default, where a user meant "none")
        maxWatchers = maxWatchers == null ? 1000 : maxWatchers;
        retryAfter = retryAfter == null ? Duration.ofSeconds(5) : retryAfter;
        stallTimeout = stallTimeout == null ? Duration.ofSeconds(60) : stallTimeout;
        Settings.requirePositive(heartbeat, "tandem.watch.heartbeat");
        Settings.requirePositive(retryAfter, "tandem.watch.retry-after");
        Settings.requirePositive(stallTimeout, "tandem.watch.stall-timeout");
        Settings.requireAtLeastOne(maxWatchers, "tandem.watch.max-watchers");
        // Unset follows a lower max-watchers: lowering that alone (a small instance, a test) must not
        // stop the start over a setting nobody made.
        maxWatchersPerClient = maxWatchersPerClient == null ? Math.min(100, maxWatchers) : maxWatchersPerClient;
        Settings.requireAtLeastOne(maxWatchersPerClient, "tandem.watch.max-watchers-per-client");
        if (maxWatchersPerClient > maxWatchers) {
            throw new IllegalArgumentException(Settings.named("tandem.watch.max-watchers-per-client") + " must not be above "
                    + Settings.named("tandem.watch.max-watchers") + ", " + maxWatchers + ", got " + maxWatchersPerClient);
        }
    }
}
