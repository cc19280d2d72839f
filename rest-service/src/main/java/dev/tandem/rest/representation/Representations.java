package dev.tandem.rest.representation;

import com.google.protobuf.Message;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * How one feature's bodies are represented on the REST wire besides JSON: each response view with
 * its mapping to the tandem.v1 message the gRPC wire sends (the protobuf representation, and the
 * content its entity tag is computed from), and each request body with the proto request it is the
 * JSON of. Each feature declares its own as a bean; {@link RepresentationConfiguration} joins them.
 */
public final class Representations {

    /** What a GET answering this view says about its version: nothing, or an ETag a client can revalidate with. */
    public enum EntityTag {
        NONE,
        /** The tag changes with every byte of the representation: a resource read by id. */
        STRONG,
        /** Equal tags mean the same content, not necessarily the same bytes: a page of a listing. */
        WEAK
    }

    record Response(Function<Object, ? extends Message> toMessage, EntityTag tag) {
    }

    final Map<Class<?>, Response> responses = new HashMap<>();
    final Map<Class<?>, Message> requests = new HashMap<>();

    public <V> Representations response(Class<V> view, Function<? super V, ? extends Message> toMessage) {
        return response(view, toMessage, EntityTag.NONE);
    }

    public <V> Representations response(Class<V> view, Function<? super V, ? extends Message> toMessage,
                                        EntityTag tag) {
        responses.put(view, new Response(value -> toMessage.apply(view.cast(value)), tag));
        return this;
    }

    /** @param message the proto request whose JSON form {@code body} is (any instance: its type is what counts) */
    public Representations request(Class<?> body, Message message) {
        requests.put(body, message.getDefaultInstanceForType());
        return this;
    }
}
