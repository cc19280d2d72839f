package dev.tandem.rest.representation;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.core.MethodParameter;
import org.springframework.http.ETag;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.http.server.ServerHttpRequest;
import org.springframework.http.server.ServerHttpResponse;
import org.springframework.http.server.ServletServerHttpRequest;
import org.springframework.http.server.ServletServerHttpResponse;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.context.request.ServletWebRequest;
import org.springframework.web.servlet.mvc.method.annotation.ResponseBodyAdvice;

import java.util.Enumeration;

/**
 * Conditional GET (RFC 9110 13.1.2): a GET or HEAD answering a view declared with an
 * {@link Representations.EntityTag} carries an {@code ETag}, {@code Cache-Control: no-cache} (a
 * client may keep the body but must revalidate) and {@code Vary: Accept, Accept-Encoding}; a request
 * whose {@code If-None-Match} names the current tag (weak comparison: {@code W/} or not, in a list or
 * on several field lines) or is {@code *} gets 304 with no body and those same headers (15.4.5).
 * A view that declares no tag (the hello-world, the bench's floor: it must not pay for the tag that
 * GetGroup pays for) has no ETag and no Cache-Control, but it still has a current representation,
 * so {@code *} gets 304 there too, with the Vary its 200 carries; a tag cannot name it, so any other
 * If-None-Match gets 200 and the body. gRPC has no equivalent. A write's answer gets its
 * {@code Vary: Accept} here too, and a PATCH's its new tag.
 *
 * <p>Why a hash of the content and not the group's version column: a group's read model holds its
 * member count, rating and next sessions, which change without a new version, so a version tag
 * would answer 304 to a client holding a stale member count. The tag hashes the view's tandem.v1
 * message (the canonical content) and names the representation it was selected for, because a strong
 * tag must differ between representations (JSON, protobuf under either of its two types).
 *
 * <p>It runs after content negotiation (this is where the selected media type is known) and before
 * the body is written, so a 304 costs no serialisation. The whole header value (hash,
 * representation, quotes) is one of the view's {@link WireForms}: a warm read hashes and formats
 * once per cached entry and representation, and then only looks the tag up.
 */
@ControllerAdvice
final class ConditionalGets implements ResponseBodyAdvice<Object> {

    private final WireForms forms;

    ConditionalGets(WireForms forms) {
        this.forms = forms;
    }

    @Override
    public boolean supports(MethodParameter returnType, Class<? extends HttpMessageConverter<?>> converterType) {
        return true;
    }

    @Override
    public Object beforeBodyWrite(Object body, MethodParameter returnType, MediaType contentType,
                                  Class<? extends HttpMessageConverter<?>> converterType,
                                  ServerHttpRequest request, ServerHttpResponse response) {
        if (body == null
                || !(request instanceof ServletServerHttpRequest servletRequest)
                || !(response instanceof ServletServerHttpResponse servletResponse)) {
            return body;
        }
        HttpServletRequest http = servletRequest.getServletRequest();
        HttpServletResponse servlet = servletResponse.getServletResponse();
        if (!isGetOrHead(http.getMethod())) {
            // A write's answer (a PATCH's 200, a 201) is negotiated like a read's, so it varies with
            // Accept too (RFC 9110 12.5.5). Accept-Encoding is left to Tomcat, which adds it to what
            // it may compress: a write's answer has no 304 to carry it. A problem varies with
            // nothing: it is problem+json whatever was asked.
            if (forms.declares(body.getClass())) {
                servlet.addHeader(HttpHeaders.VARY, HttpHeaders.ACCEPT);
                // A PATCH's 200 is the patched resource as it now is (RFC 5789 section 2), so its tag
                // is what a GET would answer: a client can condition its next write on it without
                // reading again. Other writes answer another resource (a membership, a rating) or
                // one at another URI (a 201's Location), so they carry none.
                String tag = HttpMethod.PATCH.matches(http.getMethod()) && servlet.getStatus() == HttpServletResponse.SC_OK
                        ? forms.entityTag(body, WireForms.Representation.of(contentType)) : null;
                if (tag != null) {
                    servlet.setHeader(HttpHeaders.ETAG, tag);
                }
            }
            return body;
        }
        // Every GET answer varies with Accept (JSON or Protobuf) and Accept-Encoding (gzip or not), a
        // 304 too (RFC 9110 15.4.5: the 200's Vary), where Tomcat, which adds the second to what it
        // may compress, does not: without them a cache could hand Protobuf to a JSON client.
        servlet.addHeader(HttpHeaders.VARY, HttpHeaders.ACCEPT + ", " + HttpHeaders.ACCEPT_ENCODING);
        String tag = forms.entityTag(body, WireForms.Representation.of(contentType));
        if (tag == null) {
            // A read without a tag (Hello) is current all the same, so "*" is false on it (RFC 9110
            // 13.1.2) as on a tagged read; a list of tags is true, none being its tag. Undeclared
            // bodies (the OpenAPI document) are left alone. Without If-None-Match, which is the
            // floor's every request, this costs the header lookup only.
            if (http.getHeader(HttpHeaders.IF_NONE_MATCH) != null && servlet.getStatus() == HttpServletResponse.SC_OK
                    && forms.declares(body.getClass()) && namesAnyTag(http)) {
                servlet.setStatus(HttpServletResponse.SC_NOT_MODIFIED);
                return null;
            }
            return body;
        }
        servlet.setHeader(HttpHeaders.CACHE_CONTROL, "no-cache");
        if (http.getHeader(HttpHeaders.IF_NONE_MATCH) == null) {
            // What Spring's checkNotModified does for a GET without If-None-Match (it ignores
            // If-Match on a GET, and the dates when there is no Last-Modified): a 200 gets the
            // tag unless one is set. Done here, it costs no ServletWebRequest per request.
            if (servlet.getStatus() == HttpServletResponse.SC_OK && servlet.getHeader(HttpHeaders.ETAG) == null) {
                servlet.setHeader(HttpHeaders.ETAG, tag);
            }
            return body;
        }
        if (namesAnyTag(http)) {
            // RFC 9110 13.1.2: "*" is false whenever there is a current representation, and a GET
            // whose If-None-Match is false is answered 304. Spring evaluates "*" only for unsafe
            // methods (spring-framework#24881) and would send the whole body; the bench's
            // revalidating client sends "*". Otherwise as Spring answers a current tag.
            if (servlet.getStatus() != HttpServletResponse.SC_OK) {
                return body;
            }
            servlet.setStatus(HttpServletResponse.SC_NOT_MODIFIED);
            if (servlet.getHeader(HttpHeaders.ETAG) == null) {
                servlet.setHeader(HttpHeaders.ETAG, tag);
            }
            return null;
        }
        // Spring's own evaluation of If-None-Match (lists, several field lines, weak comparison:
        // RFC 9110 8.8.3.2); it sets the ETag header, and the status to 304 when the client's
        // copy is current
        if (new ServletWebRequest(http, servlet).checkNotModified(tag)) {
            return null;
        }
        return body;
    }

    /** HEAD is answered as GET, its tag and its 304 included (RFC 9110 9.3.2, 13.1.2). */
    private static boolean isGetOrHead(String method) {
        return HttpMethod.GET.matches(method) || HttpMethod.HEAD.matches(method);
    }

    private static boolean namesAnyTag(HttpServletRequest http) {
        for (Enumeration<String> values = http.getHeaders(HttpHeaders.IF_NONE_MATCH); values.hasMoreElements(); ) {
            for (ETag named : ETag.parse(values.nextElement())) {
                if (named.isWildcard()) {
                    return true;
                }
            }
        }
        return false;
    }
}
