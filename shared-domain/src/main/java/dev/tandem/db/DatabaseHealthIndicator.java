package dev.tandem.db;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.stereotype.Component;

import javax.sql.DataSource;
import java.sql.Connection;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code db} health check, in place of Boot's (which calls {@code isValid(0)}, no time limit):
 * a connection from the pool (bounded by Hikari's connection-timeout) that must answer a ping
 * within {@code tandem.db.health-timeout}. With MariaDB down it is DOWN after at most those two
 * times, so /actuator/health answers 503 and the gRPC health NOT_SERVING instead of hanging; it is
 * UP again by itself once the pool reconnects.
 * <p>
 * With a read replica ({@link ReplicaRoutingDataSource}) the status is the primary's, and the
 * replica is checked the same way and reported under {@code replica}: a replica that is down leaves
 * the service UP (reads fall back to the primary, see the router) but shows as
 * {@code replica.status=DOWN} with its error, next to the state of the router's breaker around the
 * replica ({@code replica.breaker}: CLOSED, OPEN while reads skip it, HALF_OPEN while one may try it)
 * and how many reads each source has served.
 */
@Component("dbHealthIndicator")
public class DatabaseHealthIndicator extends AbstractHealthIndicator {

    private final DataSource dataSource;
    private final int validSeconds;

    public DatabaseHealthIndicator(DataSource dataSource, DatabaseProperties db) {
        super("Database health check failed");
        this.dataSource = dataSource;
        this.validSeconds = (int) Math.max(1, (db.healthTimeout().toMillis() + 999) / 1000);
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) throws Exception {
        if (!(dataSource instanceof ReplicaRoutingDataSource routing)) {
            check(dataSource, builder);
            return;
        }
        check(routing.primary(), builder);
        Map<String, Object> replica = new LinkedHashMap<>();
        try (Connection connection = routing.replica().getConnection()) {
            replica.put("status", connection.isValid(validSeconds) ? Status.UP.getCode() : Status.DOWN.getCode());
        } catch (Exception e) {
            replica.put("status", Status.DOWN.getCode());
            replica.put("error", e.getClass().getName() + ": " + e.getMessage());
        }
        replica.put("breaker", routing.breaker().getState().name());
        replica.put("reads", routing.reads());
        builder.withDetail("replica", replica);
    }

    private void check(DataSource dataSource, Health.Builder builder) throws Exception {
        try (Connection connection = dataSource.getConnection()) {
            boolean valid = connection.isValid(validSeconds);
            builder.status(valid ? Status.UP : Status.DOWN)
                    .withDetail("database", connection.getMetaData().getDatabaseProductName())
                    .withDetail("validationQuery", "isValid()");
        }
    }
}
