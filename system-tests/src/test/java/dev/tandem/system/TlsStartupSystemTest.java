package dev.tandem.system;

import dev.tandem.testsupport.FreePort;
import dev.tandem.testsupport.ServiceProcess;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The packaged jars, configured only through the environment as an operator would: with TLS on and
 * a certificate that is not there, each service stops at once and says which setting names which
 * missing file, and how to fix it — no stack trace to dig through, and no port left open.
 */
class TlsStartupSystemTest {

    @ParameterizedTest
    @CsvSource({"rest-service, tandem.rest.jar", "grpc-service, tandem.grpc.jar"})
    void tlsOnWithAMissingCertificateStopsStartUpWithAClearMessage(String service, String jarProperty) throws Exception {
        int port = FreePort.pick();
        Map<String, String> env = Map.of(
                "TANDEM_TLS_ENABLED", "true",
                "TANDEM_TLS_CERTIFICATE", "/nonexistent/tandem-tls/tandem.crt",
                "TANDEM_TLS_PRIVATE_KEY", "/nonexistent/tandem-tls/tandem.key",
                "SERVER_PORT", String.valueOf(port),
                "SPRING_GRPC_SERVER_PORT", String.valueOf(FreePort.pick()));
        String name = service + "-tls-missing";

        assertThatThrownBy(() -> ServiceProcess.start(name, jarProperty, port, env).close())
                .hasMessageContaining(name + " exited with 1 while starting");

        String log = Files.readString(Path.of(System.getProperty("tandem.logs.dir", "target/service-logs"), name + ".log"));
        assertThat(log)
                .contains("APPLICATION FAILED TO START")
                .contains("tandem.tls.certificate (TANDEM_TLS_CERTIFICATE) names /nonexistent/tandem-tls/tandem.crt, which does not exist")
                .contains("tandem.tls.private-key (TANDEM_TLS_PRIVATE_KEY) names /nonexistent/tandem-tls/tandem.key, which does not exist")
                .contains("scripts/tls-cert.sh");
        // it stopped before the database pool or any server: nothing was started to be torn down
        assertThat(log).doesNotContain("HikariPool-1 - Start completed").doesNotContain("Tomcat started");
    }
}
