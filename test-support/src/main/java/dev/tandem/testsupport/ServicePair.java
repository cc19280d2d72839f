package dev.tandem.testsupport;

import java.util.List;
import java.util.Map;

/**
 * A REST and a gRPC instance of Tandem on a MariaDB/Redis pair of their own ({@link LocalServers}),
 * for system tests that drive both wires at once and may stop a server: each test class gets a run
 * directory and ports of its own, new on every run, so nothing it does reaches the shared pair or
 * another run's. The REST instance resets the database to seed scale 1 as it starts; both get
 * {@code environment} on top of the servers' own. Closing stops the instances, then the servers.
 */
public final class ServicePair implements AutoCloseable {

    public final LocalServers servers;
    public final int restPort = FreePort.pick();
    public final int grpcPort = FreePort.pick();
    /** The gRPC instance's actuator (the REST instance serves its own on {@link #restPort}). */
    public final int grpcManagementPort = FreePort.pick();
    private ServiceProcess rest;
    private ServiceProcess grpc;

    private ServicePair(LocalServers servers) {
        this.servers = servers;
    }

    /**
     * {@code name} names the run directory ({@code .run/<name>-<MariaDB port>}, see
     * {@link LocalServers#onFreePorts}) and the instances' logs.
     */
    public static ServicePair start(String name, Map<String, String> environment) {
        ServicePair pair = new ServicePair(LocalServers.onFreePorts(name));
        try {
            pair.servers.start();
            pair.rest = LocalServices.rest(name + "-rest", pair.servers, pair.restPort, LocalServices.seeding(environment));
            pair.grpc = LocalServices.grpc(name + "-grpc", pair.servers, pair.grpcPort, pair.grpcManagementPort, environment);
            return pair;
        } catch (RuntimeException | Error e) {
            pair.close();
            throw e;
        }
    }

    /** Each instance's {@code /actuator/<endpoint>}, REST first. */
    public List<String> actuator(String endpoint) {
        return List.of("http://127.0.0.1:" + restPort + "/actuator/" + endpoint,
                "http://127.0.0.1:" + grpcManagementPort + "/actuator/" + endpoint);
    }

    /** Whether both instances still run (the same processes: none was restarted). */
    public boolean alive() {
        return rest.isAlive() && grpc.isAlive();
    }

    @Override
    public void close() {
        try {
            if (grpc != null) {
                grpc.close();
            }
            if (rest != null) {
                rest.close();
            }
        } finally {
            servers.close();
        }
    }
}
