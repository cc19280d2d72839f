package dev.tandem.system;

import dev.tandem.testsupport.FreePort;
import dev.tandem.testsupport.LocalServers;
import dev.tandem.testsupport.ServiceProcess;
import dev.tandem.testsupport.TestDatabase;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

import java.util.List;
import java.util.Map;

/**
 * Both service jars as processes over one freshly seeded database (cache off, so every answer is
 * what MariaDB holds), with a client for each wire and the test's own view of the database.
 * Started once per test run for every class that asks for it ({@link Extension} resolves a
 * parameter of this type), and stopped when the run ends: each JVM start costs half a minute.
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

    private BothServices() {
        restPort = FreePort.pick();
        grpcPort = FreePort.pick();
        int grpcManagementPort = FreePort.pick();
        // The REST process seeds the database and migrates it first, so the gRPC process starts on a ready schema.
        restService = ServiceProcess.start("rest-service", "tandem.rest.jar", restPort, Map.of(
                "SERVER_PORT", String.valueOf(restPort),
                "TANDEM_SEED_MODE", "reset",
                "TANDEM_SEED_SCALE", "1",
                "TANDEM_CACHE_MODE", "none"));
        ServiceProcess started = null;
        try {
            started = ServiceProcess.start("grpc-service", "tandem.grpc.jar", grpcManagementPort, Map.of(
                    "SERVER_PORT", String.valueOf(grpcManagementPort),
                    "SPRING_GRPC_SERVER_PORT", String.valueOf(grpcPort),
                    "TANDEM_CACHE_MODE", "none"));
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
        database = new TestDatabase(LocalServers.shared().mariadbPort,
                System.getProperty("tandem.test.db-name", "tandem_test_system"));
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

    /** Resolves a {@link BothServices} parameter with the run's one instance, started on first use. */
    static final class Extension implements ParameterResolver {

        @Override
        public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
            return parameter.getParameter().getType() == BothServices.class;
        }

        @Override
        public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
            return context.getRoot().getStore(ExtensionContext.Namespace.create(BothServices.class))
                    .computeIfAbsent(BothServices.class, type -> new BothServices(), BothServices.class);
        }
    }
}
