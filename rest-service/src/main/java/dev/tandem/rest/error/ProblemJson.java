package dev.tandem.rest.error;

import org.springframework.boot.http.converter.autoconfigure.ServerHttpMessageConvertersCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.ResolvableType;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpOutputMessage;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.converter.json.JacksonJsonHttpMessageConverter;
import tools.jackson.databind.json.JsonMapper;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.Map;

/**
 * Problems ({@link RestErrors}' answers) are written with a Content-Length, so that gzip's minimum
 * size holds for them. Spring flushes a ResponseEntity's answer once it is written, which commits
 * the response before Tomcat has seen its end; Tomcat decides on gzip at that commit and compares
 * {@code compression-min-size} only with a length it knows, so a 166-byte 404 went out gzipped (as
 * 148 bytes plus chunked framing). Written into a buffer first, a problem's length is known.
 *
 * <p>The converter is Boot's JSON converter (built the same way, from the same mapper, so a problem
 * reads exactly as before), limited to problems and placed ahead of it. A problem is a few hundred
 * bytes; the buffer costs no more than Tomcat's own would.
 */
@Configuration(proxyBeanMethods = false)
class ProblemJson {

    @Bean
    ServerHttpMessageConvertersCustomizer problemsWithTheirLength(JsonMapper mapper) {
        return converters -> converters.addCustomConverter(new WithLength(mapper));
    }

    static final class WithLength extends JacksonJsonHttpMessageConverter {

        WithLength(JsonMapper mapper) {
            super(mapper);
        }

        @Override
        public boolean canRead(Class<?> type, MediaType mediaType) {
            return false;
        }

        @Override
        public boolean canRead(ResolvableType type, MediaType mediaType) {
            return false;
        }

        @Override
        public boolean canWrite(Class<?> type, MediaType mediaType) {
            return ProblemDetail.class.isAssignableFrom(type) && super.canWrite(type, mediaType);
        }

        @Override
        public boolean canWrite(ResolvableType targetType, Class<?> valueClass, MediaType mediaType) {
            return ProblemDetail.class.isAssignableFrom(valueClass) && super.canWrite(targetType, valueClass, mediaType);
        }

        @Override
        public List<MediaType> getSupportedMediaTypes(Class<?> type) {
            return ProblemDetail.class.isAssignableFrom(type) ? super.getSupportedMediaTypes(type) : List.of();
        }

        @Override
        protected void writeInternal(Object problem, ResolvableType type, HttpOutputMessage output,
                                     Map<String, Object> hints) throws IOException {
            ByteArrayOutputStream buffer = new ByteArrayOutputStream(512);
            super.writeInternal(problem, type, new HttpOutputMessage() {
                @Override
                public OutputStream getBody() {
                    return buffer;
                }

                @Override
                public HttpHeaders getHeaders() {
                    return output.getHeaders();
                }
            }, hints);
            // Still settable: the real body (which writes the headers out) is asked for only below.
            output.getHeaders().setContentLength(buffer.size());
            buffer.writeTo(output.getBody());
        }
    }
}
