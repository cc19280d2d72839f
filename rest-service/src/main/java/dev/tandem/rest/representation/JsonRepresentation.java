package dev.tandem.rest.representation;

import org.springframework.http.HttpInputMessage;
import org.springframework.http.MediaType;

/**
 * The JSON representation of the declared response views, written from their {@link WireForms}:
 * the bytes Jackson wrote for the first request that read the same cached read model. It sits
 * before Spring's Jackson converter and writes only those views; everything else (request bodies,
 * problem details) is Jackson's as before.
 */
final class JsonRepresentation extends WireFormRepresentation {

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

    @Override
    byte[] wireForm(Object view) {
        return forms.json(view);
    }
}
