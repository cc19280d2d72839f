package dev.tandem.rest.limits;

import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import dev.tandem.limits.LimitsProperties;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.servlet.HandlerExceptionResolver;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;

/**
 * Enforces {@code tandem.limits.max-request-bytes} on every request body, and refuses one sent
 * compressed ({@link UnsupportedContentEncodingException}). Tomcat limits only form
 * posts, so without this a JSON body could be as large as a client cares to send.
 *
 * <p>A declared Content-Length above the limit is refused before a byte of the body is read. A body
 * without one (chunked) is counted while it is read, and the read that crosses the limit fails,
 * so the parser never holds more than the limit and the controller is never called. Either way the
 * answer is {@link RequestBodyTooLargeException}, handed to the MVC exception handlers so that it
 * is the same problem+json as every other failure. Tomcat then discards what is left of the body
 * (up to server.tomcat.max-swallow-size) or closes the connection.
 *
 * <p>Ordered after Boot's observation filter, so refused requests still show in the metrics, and
 * just after the write check (AuthConfiguration.FILTER_ORDER, HIGHEST_PRECEDENCE + 10), so a write
 * without a token is 401 whatever its size, as on gRPC, where the write check closes a call before
 * its message is read. (At the same order, which ran first was the registration's accident.)
 */
// Not when the jar runs without a web server (make seed, the bench's seeding): no MVC to hand errors to.
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@Component
@Order(Ordered.HIGHEST_PRECEDENCE + 11)
public class RequestBodyLimitFilter extends OncePerRequestFilter {

    private final long maxBytes;
    private final HandlerExceptionResolver exceptionResolver;

    public RequestBodyLimitFilter(LimitsProperties limits,
                                  @Qualifier("handlerExceptionResolver") HandlerExceptionResolver exceptionResolver) {
        this.maxBytes = limits.maxRequestBytes().toBytes();
        this.exceptionResolver = exceptionResolver;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String encoding = request.getHeader(HttpHeaders.CONTENT_ENCODING);
        if (encoding != null && !encoding.isBlank() && !"identity".equalsIgnoreCase(encoding.strip()) && hasBody(request)) {
            refuse(request, response, new UnsupportedContentEncodingException(encoding), HttpServletResponse.SC_UNSUPPORTED_MEDIA_TYPE);
            return;
        }
        if (request.getContentLengthLong() > maxBytes) {
            refuse(request, response, new RequestBodyTooLargeException(maxBytes), HttpServletResponse.SC_REQUEST_ENTITY_TOO_LARGE);
            return;
        }
        chain.doFilter(new LimitedRequest(request, maxBytes), response);
    }

    /** The problem RestErrors writes; should that fail, still the status, never an empty 200. */
    private void refuse(HttpServletRequest request, HttpServletResponse response, Exception refusal, int status)
            throws IOException {
        if (exceptionResolver.resolveException(request, response, null, refusal) == null) {
            response.sendError(status, refusal.getMessage());
        }
    }

    private static boolean hasBody(HttpServletRequest request) {
        return request.getContentLengthLong() > 0 || request.getHeader(HttpHeaders.TRANSFER_ENCODING) != null;
    }

    /** The request with its body stream (and a reader over it) counted against the limit. */
    private static final class LimitedRequest extends HttpServletRequestWrapper {

        private final long maxBytes;
        private ServletInputStream body;

        LimitedRequest(HttpServletRequest request, long maxBytes) {
            super(request);
            this.maxBytes = maxBytes;
        }

        @Override
        public ServletInputStream getInputStream() throws IOException {
            if (body == null) {
                body = new LimitedInputStream(super.getInputStream(), maxBytes);
            }
            return body;
        }

        @Override
        public BufferedReader getReader() throws IOException {
            String encoding = getCharacterEncoding();
            Charset charset = encoding == null ? StandardCharsets.UTF_8 : Charset.forName(encoding);
            return new BufferedReader(new InputStreamReader(getInputStream(), charset));
        }
    }

    private static final class LimitedInputStream extends ServletInputStream {

        private final ServletInputStream delegate;
        private final long maxBytes;
        private long read;

        LimitedInputStream(ServletInputStream delegate, long maxBytes) {
            this.delegate = delegate;
            this.maxBytes = maxBytes;
        }

        @Override
        public int read() throws IOException {
            int b = delegate.read();
            if (b >= 0) {
                count(1);
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = delegate.read(buffer, offset, length);
            if (n > 0) {
                count(n);
            }
            return n;
        }

        private void count(int n) {
            read += n;
            if (read > maxBytes) {
                throw new RequestBodyTooLargeException(maxBytes);
            }
        }

        @Override
        public boolean isFinished() {
            return delegate.isFinished();
        }

        @Override
        public boolean isReady() {
            return delegate.isReady();
        }

        @Override
        public void setReadListener(ReadListener listener) {
            delegate.setReadListener(listener);
        }
    }
}
