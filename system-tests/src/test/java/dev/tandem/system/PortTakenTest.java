package dev.tandem.system;

import com.sun.net.httpserver.HttpServer;
import dev.tandem.testsupport.FreePort;
import dev.tandem.testsupport.LocalServers;
import dev.tandem.testsupport.LocalServices;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A test that starts a service on a port someone else took meanwhile (ports come from FreePort,
 * and module builds run side by side) must not go on with the other process's service: here a
 * stand-in answers the health check UP on the port, the jar cannot bind it and exits, and the
 * start fails saying so instead of returning a service that is not the one started.
 */
class PortTakenTest {

    @Test
    void aServiceWhosePortIsTakenFailsToStartEvenWhenTheOtherProcessAnswersHealthUp() throws Exception {
        int port = FreePort.pick();
        HttpServer impostor = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
        impostor.createContext("/actuator/health", exchange -> {
            byte[] up = "{\"status\":\"UP\"}".getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, up.length);
            exchange.getResponseBody().write(up);
            exchange.close();
        });
        impostor.start();
        try {
            assertThatThrownBy(() -> LocalServices.rest("port-taken-rest", LocalServers.shared(), port, Map.of()).close())
                    .hasMessageContaining("port-taken-rest exited with")
                    .hasMessageContaining("another process answered health on port " + port);
        } finally {
            impostor.stop(0);
        }
    }
}
