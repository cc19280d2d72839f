package dev.tandem.rest.representation;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpInputMessage;
import org.springframework.http.HttpOutputMessage;
import org.springframework.http.MediaType;
import org.springframework.http.converter.AbstractHttpMessageConverter;

import java.io.IOException;

/**
 * The JSON representation of the declared response views, written from their {@link WireForms}:
 * the bytes Jackson wrote for the first request that read the same cached read model. It sits
 * before Spring's Jackson converter and writes only those views; everything else (request bodies,
 * problem details) is Jackson's as before.
 */
final class JsonRepresentation extends AbstractHttpMessageConverter<Object> {

    private final WireForms forms;

    JsonRepresentation(WireForms forms) {
        super(MediaType.APPLICATION_JSON);
        this.forms = forms;
    }

    @Override
    protected boolean supports(Class<?> type) {
        return forms.declares(type);
    }

    @Override
    public boolean canRead(Class<?> type, MediaType mediaType) {
        return false;
    }

    @Override
    protected Object readInternal(Class<?> type, HttpInputMessage input) {
        throw new UnsupportedOperationException("request bodies are read by Jackson");
    }

    /** Labelled as what the bytes are, not as the Accept range that chose them ({@link WireForms#contentType}). */
    @Override
    protected void addDefaultHeaders(HttpHeaders headers, Object view, MediaType selected) throws IOException {
        super.addDefaultHeaders(headers, view, WireForms.contentType(selected));
    }

    /**
     * The wire form's length, known before a byte is written: a ResponseEntity's answer (every 201)
     * is flushed by Spring once written, and Tomcat, which decides on gzip when the response is
     * committed, compresses a body of unknown length however small it is
     * ({@code tandem.compression.min-response-size} compares only a known length).
     */
    @Override
    protected Long getContentLength(Object view, MediaType contentType) {
        return (long) forms.json(view).length;
    }

    @Override
    protected void writeInternal(Object view, HttpOutputMessage output) throws IOException {
        output.getBody().write(forms.json(view));
    }
}
