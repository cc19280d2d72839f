package dev.tandem.testsupport;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Service jars started as processes against a {@link LocalServers} pair (its MariaDB and Redis
 * ports), configured as {@code make run} configures them: only through environment variables.
 */
public final class LocalServices {

    private LocalServices() {
    }

    /** A REST instance on {@code port}; {@code extra} adds or overrides variables (seeding, cache mode). */
    public static ServiceProcess rest(String name, LocalServers servers, int port, Map<String, String> extra) {
        Map<String, String> env = new LinkedHashMap<>(servers.serviceEnvironment());
        env.put("SERVER_PORT", String.valueOf(port));
        env.putAll(extra);
        return ServiceProcess.start(name, "tandem.rest.jar", port, env);
    }

    /** A gRPC instance on {@code grpcPort}, its actuator on {@code managementPort}. */
    public static ServiceProcess grpc(String name, LocalServers servers, int grpcPort, int managementPort, Map<String, String> extra) {
        Map<String, String> env = new LinkedHashMap<>(servers.serviceEnvironment());
        env.put("SERVER_PORT", String.valueOf(managementPort));
        env.put("SPRING_GRPC_SERVER_PORT", String.valueOf(grpcPort));
        env.putAll(extra);
        return ServiceProcess.start(name, "tandem.grpc.jar", managementPort, env);
    }

    /** Variables that make a REST instance reset the database to seed scale 1 as it starts. */
    public static Map<String, String> seeding(Map<String, String> extra) {
        Map<String, String> env = new LinkedHashMap<>(extra);
        env.put("TANDEM_SEED_MODE", "reset");
        env.put("TANDEM_SEED_SCALE", "1");
        return env;
    }
}
