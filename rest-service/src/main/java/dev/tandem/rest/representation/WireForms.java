package dev.tandem.rest.representation;

import dev.tandem.cache.PerEntry;
import org.springframework.http.MediaType;
import tools.jackson.databind.json.JsonMapper;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Base64;
import java.util.Map;

/**
 * The encoded forms of each declared response view — its JSON bytes, its protobuf bytes and the
 * hash its entity tag is made of — derived the first time a request needs them and then kept with
 * the read model ({@link PerEntry}). A warm read is an L1 hit that returns the same instance, so it
 * writes bytes encoded for an earlier request instead of running Jackson (or protobuf, and SHA-256)
 * again; a profile of warm GetGroup had Jackson's serialisation at a ninth of the request's CPU.
 *
 * <p>The JSON bytes are what the server's JSON mapper writes for the view, so a cached body and an
 * uncached one cannot differ; the protobuf bytes are the view's tandem.v1 message, as the gRPC wire
 * sends it.
 */
final class WireForms {

    private static final int TAG_BYTES = 16;

    /** One view's forms. It must not refer to the view (see PerEntry), so each is derived from the caller's. */
    private static final class Forms {
        // Racing first requests may each derive a form; the results are equal and either may stay.
        volatile byte[] json;
        volatile byte[] protobuf;
        volatile String contentHash;
        /** The ETag header values, quoted (and W/ when weak), one per {@link Representation}. */
        volatile String jsonTag;
        volatile String xProtobufTag;
        volatile String protobufTag;
    }

    /**
     * The representations a view is sent in, each named in its entity tags. The protobuf bytes go
     * under two Content-Types, as the client asked: two representations, whose strong tags must
     * differ (RFC 9110 8.8.3), or a cache holding both could answer one client's revalidation with
     * the other's stored response, labelled with a type that client did not accept.
     */
    enum Representation {
        JSON("json"),
        /** application/x-protobuf, the name most clients send (the bench's too). */
        X_PROTOBUF("pb"),
        /** application/protobuf, the standard name. */
        PROTOBUF("protobuf");

        private final String tagName;

        Representation(String tagName) {
            this.tagName = tagName;
        }

        /** The representation a body labelled {@code contentType} is; JSON for anything else. */
        static Representation of(MediaType contentType) {
            if (contentType != null && "application".equals(contentType.getType())) {
                if (ProtobufRepresentation.X_PROTOBUF.getSubtype().equals(contentType.getSubtype())) {
                    return X_PROTOBUF;
                }
                if (ProtobufRepresentation.PROTOBUF.getSubtype().equals(contentType.getSubtype())) {
                    return PROTOBUF;
                }
            }
            return JSON;
        }
    }

    private final Map<Class<?>, Representations.Response> responses;
    private final JsonMapper mapper;
    private final PerEntry<Object, Forms> forms = new PerEntry<>(view -> new Forms());

    WireForms(Map<Class<?>, Representations.Response> responses, JsonMapper mapper) {
        this.responses = Map.copyOf(responses);
        this.mapper = mapper;
    }

    boolean declares(Class<?> view) {
        return responses.containsKey(view);
    }

    /** The kind of entity tag a GET answering {@code view} carries: NONE for a type no feature declared. */
    Representations.EntityTag entityTagOf(Class<?> view) {
        Representations.Response declared = responses.get(view);
        return declared == null ? Representations.EntityTag.NONE : declared.tag();
    }

    /**
     * The Content-Type a wire form is sent under when {@code selected} chose it: the type without
     * parameters. Spring selects the client's Accept range itself when it has more parameters than
     * the type the route produces, and a converter labels its body with what was selected; but a
     * wire form is bytes made once for every client, so a parameter the client sent says nothing
     * about them: JSON is always UTF-8 (RFC 8259 8.1: a {@code charset=utf-16} would be a lie) and
     * the protobuf bytes are the view's own message (a {@code proto=tandem.v1.User} on a Group too).
     * No wire form has a parameter of its own to lose.
     */
    static MediaType contentType(MediaType selected) {
        return selected == null || selected.getParameters().isEmpty() ? selected
                : new MediaType(selected.getType(), selected.getSubtype());
    }

    /**
     * The ETag header value of a GET answering {@code view} in {@code representation}: the content
     * hash, the representation's name, quoted, W/ when the view's tag is weak. Null for a view whose
     * type declares no tag (or that no feature declared). Made once per view and representation, so
     * a warm read only looks it up.
     */
    String entityTag(Object view, Representation representation) {
        Representations.Response declared = responses.get(view.getClass());
        if (declared == null || declared.tag() == Representations.EntityTag.NONE) {
            return null;
        }
        Forms known = forms.of(view);
        String tag = switch (representation) {
            case JSON -> known.jsonTag;
            case X_PROTOBUF -> known.xProtobufTag;
            case PROTOBUF -> known.protobufTag;
        };
        if (tag == null) {
            tag = (declared.tag() == Representations.EntityTag.WEAK ? "W/\"" : "\"") + contentHash(view) + "."
                    + representation.tagName + "\"";
            switch (representation) {
                case JSON -> known.jsonTag = tag;
                case X_PROTOBUF -> known.xProtobufTag = tag;
                case PROTOBUF -> known.protobufTag = tag;
            }
        }
        return tag;
    }

    byte[] json(Object view) {
        Forms known = forms.of(view);
        byte[] json = known.json;
        if (json == null) {
            json = mapper.writeValueAsBytes(view);
            known.json = json;
        }
        return json;
    }

    byte[] protobuf(Object view) {
        Forms known = forms.of(view);
        byte[] protobuf = known.protobuf;
        if (protobuf == null) {
            protobuf = responses.get(view.getClass()).toMessage().apply(view).toByteArray();
            known.protobuf = protobuf;
        }
        return protobuf;
    }

    /**
     * A hash of the view's canonical content, its tandem.v1 message: equal for equal content
     * whichever representation a client reads.
     */
    private String contentHash(Object view) {
        Forms known = forms.of(view);
        String hash = known.contentHash;
        if (hash == null) {
            hash = sha256Prefix(protobuf(view));
            known.contentHash = hash;
        }
        return hash;
    }

    private static String sha256Prefix(byte[] content) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(content);
            return Base64.getUrlEncoder().withoutPadding().encodeToString(Arrays.copyOf(digest, TAG_BYTES));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
