package dev.tandem.system;

import dev.tandem.testsupport.FreePort;
import dev.tandem.testsupport.LocalServers;
import dev.tandem.testsupport.ServiceProcess;
import dev.tandem.testsupport.TestDatabase;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Both service jars as processes over one freshly seeded database (cache off, so every answer is
 * what MariaDB holds; or {@link FollowingTheLog}, for watches), with a client for each wire and
 * the test's own view of the database. Each pair is started once per test run for every class
 * that asks for it ({@link Extension} resolves a parameter of this type), and stopped when the run
 * ends: each JVM start costs half a minute.
 */
final class BothServices implements AutoCloseable {

    final ServiceProcess restService;
    final ServiceProcess grpcService;
    final int restPort;
    final int grpcPort;
    final RestWire rest;
    final RestWire restProtobuf;
    final GrpcWire grpc;
    final TestDatabase database;

    private BothServices(String databaseName, Map<String, String> environment) {
        restPort = FreePort.pick();
        grpcPort = FreePort.pick();
        int grpcManagementPort = FreePort.pick();
        Map<String, String> restEnvironment = new LinkedHashMap<>(environment);
        restEnvironment.putAll(Map.of("SERVER_PORT", String.valueOf(restPort), "TANDEM_DB_NAME", databaseName,
                "TANDEM_SEED_MODE", "reset", "TANDEM_SEED_SCALE", "1"));
        Map<String, String> grpcEnvironment = new LinkedHashMap<>(environment);
        grpcEnvironment.putAll(Map.of("SERVER_PORT", String.valueOf(grpcManagementPort),
                "SPRING_GRPC_SERVER_PORT", String.valueOf(grpcPort), "TANDEM_DB_NAME", databaseName));
        // The REST process seeds the database and migrates it first, so the gRPC process starts on a ready schema.
        restService = ServiceProcess.start(name("rest-service", databaseName), "tandem.rest.jar", restPort, restEnvironment);
        ServiceProcess started = null;
        try {
            started = ServiceProcess.start(name("grpc-service", databaseName), "tandem.grpc.jar", grpcManagementPort,
                    grpcEnvironment);
        } finally {
            if (started == null) {
                restService.close();
            }
        }
        grpcService = started;
        rest = new RestWire(restPort);
        restProtobuf = new RestWire(restPort, RestWire.Encoding.PROTOBUF);
        grpc = new GrpcWire(grpcPort);
        // The services inherit this environment, so they use the shared MariaDB it names.
        database = new TestDatabase(LocalServers.shared().mariadbPort, databaseName);
    }

    /** The pair without a cache: every answer is what MariaDB holds. */
    private static BothServices uncached() {
        return new BothServices(DATABASE, Map.of("TANDEM_CACHE_MODE", "none"));
    }

    /**
     * The pair that follows the invalidation log, which watches need (Caffeine only: each instance
     * learns of the other's writes from the log, as watches do), with a heartbeat a test can wait
     * for, and a hole timeout a test can wait for: a new instance waits that long for the numbers
     * below the first row it reads, and its positions stay below them meanwhile (at 0 for the
     * default 30 s once this pair had started). On a database of its own: its REST process resets
     * the database it starts on.
     */
    private static BothServices followingTheLog() {
        return new BothServices(DATABASE + "_watch", Map.of("TANDEM_CACHE_MODE", "local",
                "TANDEM_WATCH_HEARTBEAT", WATCH_HEARTBEAT.toMillis() + "ms", "TANDEM_CACHE_LOG_HOLE_TIMEOUT", "2s"));
    }

    /** The heartbeat of the pair that follows the log. */
    static final Duration WATCH_HEARTBEAT = Duration.ofMillis(500);

    private static final String DATABASE = System.getProperty("tandem.test.db-name", "tandem_test_system");

    /** The uncached pair's processes keep their names (their logs are named after them). */
    private static String name(String service, String databaseName) {
        return databaseName.equals(DATABASE) ? service : service + "-following-the-log";
    }

    /** The other wire's instance than {@code wire}'s: gRPC for either REST representation, REST JSON for gRPC. */
    Wire otherThan(Wire wire) {
        return wire == grpc ? rest : grpc;
    }

    /** gRPC first: the reference the REST representations are compared with. */
    List<Wire> wires() {
        return List.of(grpc, rest, restProtobuf);
    }

    @Override
    public void close() throws InterruptedException {
        try {
            grpc.close();
        } finally {
            try {
                grpcService.close();
            } finally {
                restService.close();
            }
        }
    }

    /** On a {@link BothServices} parameter: the pair that follows the invalidation log (see followingTheLog). */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.PARAMETER)
    @interface FollowingTheLog {
    }

    /**
     * Resolves a {@link BothServices} parameter with the run's one instance of that pair (uncached,
     * or {@link FollowingTheLog}), started on first use.
     */
    static final class Extension implements ParameterResolver {

        @Override
        public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
            return parameter.getParameter().getType() == BothServices.class;
        }

        @Override
        public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
            boolean followingTheLog = parameter.isAnnotated(FollowingTheLog.class);
            return context.getRoot().getStore(ExtensionContext.Namespace.create(BothServices.class))
                    .computeIfAbsent(followingTheLog ? FollowingTheLog.class : BothServices.class,
                            pair -> followingTheLog ? followingTheLog() : uncached(), BothServices.class);
        }
    }
}
