package dev.tandem.rest.representation;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpOutputMessage;
import org.springframework.http.MediaType;
import org.springframework.http.converter.AbstractHttpMessageConverter;

import java.io.IOException;

/**
 * A representation of the declared response views written from their {@link WireForms}: bytes
 * made once per cached read model, sent as they are.
 */
abstract class WireFormRepresentation extends AbstractHttpMessageConverter<Object> {

    WireFormRepresentation(MediaType... supported) {
        super(supported);
    }

    /** The view's bytes in this representation. */
    abstract byte[] wireForm(Object view);

    /** Labelled as what the bytes are, not as the Accept range that chose them ({@link WireForms#contentType}). */
    @Override
    protected final void addDefaultHeaders(HttpHeaders headers, Object view, MediaType selected) throws IOException {
        super.addDefaultHeaders(headers, view, WireForms.contentType(selected));
    }

    /**
     * The wire form's length, known before a byte is written: a ResponseEntity's answer (every 201)
     * is flushed by Spring once written, and Tomcat, which decides on gzip when the response is
     * committed, compresses a body of unknown length however small it is
     * ({@code tandem.compression.min-response-size} compares only a known length).
     */
    @Override
    protected final Long getContentLength(Object view, MediaType contentType) {
        return (long) wireForm(view).length;
    }

    @Override
    protected final void writeInternal(Object view, HttpOutputMessage output) throws IOException {
        output.getBody().write(wireForm(view));
    }
}
