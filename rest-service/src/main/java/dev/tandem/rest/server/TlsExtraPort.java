package dev.tandem.rest.server;

import dev.tandem.tls.TlsProperties;
import org.apache.catalina.connector.Connector;
import org.apache.coyote.AbstractProtocol;
import org.apache.coyote.ProtocolHandler;
import org.apache.coyote.http2.Http2Protocol;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.boot.tomcat.CompressionConnectorCustomizer;
import org.springframework.boot.tomcat.SslConnectorCustomizer;
import org.springframework.boot.tomcat.TomcatProtocolHandlerCustomizer;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.util.LambdaSafe;
import org.springframework.boot.web.server.Ssl;
import org.springframework.boot.web.server.autoconfigure.ServerProperties;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.core.Ordered;
import org.springframework.stereotype.Component;

import java.util.Map;

/**
 * A second connector on {@code tandem.tls.extra-port} that serves the same API and actuator over
 * TLS while {@code server.port} stays as configured (plain unless {@code tandem.tls.enabled}). It
 * exists so that a TLS request and a plain one can be measured against the same process: the
 * bench's TLS ÷ plain ratios paired cells of two different starts before, and the spread between
 * starts was larger than the cost of TLS.
 *
 * <p>The connector is the main connector's twin, so that TLS is the only difference: Boot builds the
 * main one in {@code TomcatWebServerFactory.customizeConnector}, which is protected, so this repeats
 * its steps with the factory's public settings: the address, the protocol handler customizers
 * (virtual-thread handlers), HTTP/2 when {@code server.http2.enabled} (then negotiated by ALPN),
 * compression, and the connector customizers ({@code server.tomcat.*} limits, header size). It runs
 * last among the factory's customizers, when all of those are registered.
 */
@Component
@ConditionalOnExpression("${tandem.tls.extra-port:0} > 0")
class TlsExtraPort implements WebServerFactoryCustomizer<TomcatServletWebServerFactory>, Ordered {

    private static final Log log = LogFactory.getLog(TlsExtraPort.class);

    private final int port;
    private final SslBundles bundles;
    private final String bundle;

    TlsExtraPort(TlsProperties tls, ServerProperties server, SslBundles bundles) {
        this.port = tls.extraPort();
        this.bundle = server.getSsl().getBundle();
        this.bundles = bundles;
    }

    @Override
    public void customize(TomcatServletWebServerFactory factory) {
        Connector connector = new Connector(factory.getProtocol());
        connector.setPort(port);
        if (factory.getServerHeader() != null && !factory.getServerHeader().isBlank()) {
            connector.setProperty("server", factory.getServerHeader());
        }
        ProtocolHandler handler = connector.getProtocolHandler();
        if (handler instanceof AbstractProtocol<?> protocol && factory.getAddress() != null) {
            protocol.setAddress(factory.getAddress());
        }
        LambdaSafe.callbacks(TomcatProtocolHandlerCustomizer.class, factory.getProtocolHandlerCustomizers(), handler)
                .invoke(customizer -> customizer.customize(handler));
        if (factory.getUriEncoding() != null) {
            connector.setURIEncoding(factory.getUriEncoding().name());
        }
        if (factory.getHttp2() != null && factory.getHttp2().isEnabled()) {
            connector.addUpgradeProtocol(new Http2Protocol());
        }
        new SslConnectorCustomizer(log, connector, Ssl.ClientAuth.NONE).customize(bundles.getBundle(bundle), Map.of());
        if (factory.getCompression() != null && factory.getCompression().getEnabled()) {
            new CompressionConnectorCustomizer(factory.getCompression()).customize(connector);
        }
        factory.getConnectorCustomizers().forEach(customizer -> customizer.customize(connector));
        factory.addAdditionalConnectors(connector);
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }
}
