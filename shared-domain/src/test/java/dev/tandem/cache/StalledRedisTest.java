package dev.tandem.cache;

import dev.tandem.testsupport.Await;
import dev.tandem.testsupport.StallingProxy;
import dev.tandem.user.NewUser;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Redis that stops answering without refusing (a path that stopped delivering, a paused server):
 * a write's relay waits for it up to the command timeout, after the commit. It used to wait in the
 * transaction's afterCompletion, before the transaction manager hands the connection back, so every
 * such write kept a pool connection; once as many writes as the pool has connections waited there,
 * every other request of the instance waited for a connection too, and failed after the pool's
 * connection timeout (3 s). At the defaults the wait is short (a relay waits at most the 100 ms
 * command timeout, and the breaker refuses calls once five have failed), so the test lengthens both
 * timeouts that bound it, tandem.cache.redis.command-timeout and spring.data.redis.timeout.
 */
class StalledRedisTest {

    private static final int POOL_SIZE = 4; // Instance's tandem.db.pool-size

    @Test
    void writesWhoseRelayWaitsOnASilentRedisLeaveTheDatabaseConnectionsToOtherRequests() throws Exception {
        int redisPort = Instance.reference().context.getEnvironment().getRequiredProperty("spring.data.redis.port", Integer.class);
        try (StallingProxy proxy = new StallingProxy(redisPort)) {
            // Both timeouts longer than the pool's connection timeout: what a relay waits for then
            // outlasts what a request waits for a connection.
            Instance instance = Instance.named("hybrid-stalled-redis-" + System.nanoTime(), CacheMode.HYBRID,
                    List.of("--spring.data.redis.port=" + proxy.port(), "--tandem.cache.redis.command-timeout=10s",
                            "--spring.data.redis.timeout=10s"));
            List<Thread> writers = new ArrayList<>();
            try {
                proxy.stall();
                for (int i = 0; i < POOL_SIZE; i++) {
                    String email = "relay.waiter." + i + "." + System.nanoTime() + "@example.test";
                    writers.add(Thread.ofPlatform().start(() -> instance.users.create(new NewUser("Relay Waiter", email))));
                }
                Await.until("every writer to wait in its relay to Redis", Duration.ofSeconds(30),
                        () -> writers.stream().allMatch(StalledRedisTest::relaying));

                long users = instance.jdbc.sql("SELECT COUNT(*) FROM users").query(Long.class).single();
                assertThat(users).as("a request that needs a connection while %d writes' relays wait", POOL_SIZE).isPositive();
            } finally {
                proxy.resume();
                for (Thread writer : writers) {
                    writer.join();
                }
                instance.close();
            }
        }
    }

    private static boolean relaying(Thread writer) {
        return Arrays.stream(writer.getStackTrace())
                .anyMatch(f -> f.getClassName().equals(L2Tier.class.getName()) && f.getMethodName().equals("relay"));
    }
}
