package dev.tandem.rest.deadline;

import dev.tandem.deadline.RequestDeadlines;
import org.apache.coyote.http11.AbstractHttp11Protocol;
import org.springframework.boot.tomcat.TomcatProtocolHandlerCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * How long Tomcat waits for a request body's bytes: {@code tandem.limits.request-timeout}, not
 * Tomcat's connection timeout (60 s unless {@code server.tomcat.connection-timeout} says otherwise).
 *
 * <p>Why: a client that declares a Content-Length and then sends nothing held a thread for 60 s,
 * past the deadline the README promises every request. A body is read before the handler runs, so
 * the request's {@link dev.tandem.deadline.RequestDeadline} (which bounds SQL) cannot end the wait;
 * the socket's read timeout is what does. Tomcat's upload timeout is that read timeout while a body
 * is read, and only then: the wait for a request's headers, the keep-alive wait and every write (the
 * group watch's SSE among them) keep the connection timeout. When it passes, Tomcat answers 408
 * itself, sent as problem+json by the error page (ProblemErrorController).
 *
 * <p>What it does not bound: it is the longest wait for the <em>next</em> bytes, per read, not for
 * the whole body (a client sending a byte every few seconds is read for as long as it keeps
 * sending, at most max-request-bytes of it), and it is the server's timeout, not a client's shorter
 * X-Request-Timeout (read from the headers after Tomcat's socket settings are made; a body is read
 * before the handler's deadline can act). Over HTTP/2 (off by default) Tomcat's own stream read
 * timeout applies instead. The TLS twin connector (TlsExtraPort) applies the same customizers.
 */
@Configuration(proxyBeanMethods = false)
class BodyReadTimeout {

    @Bean
    TomcatProtocolHandlerCustomizer<AbstractHttp11Protocol<?>> bodyReadTimeoutCustomizer(RequestDeadlines deadlines) {
        int millis = (int) Math.min(Integer.MAX_VALUE, deadlines.requestTimeout().toMillis());
        return protocol -> {
            protocol.setDisableUploadTimeout(false);
            protocol.setConnectionUploadTimeout(millis);
        };
    }
}
