package dev.tandem.rest.representation;

import com.google.api.FieldBehavior;
import com.google.api.FieldBehaviorProto;
import com.google.protobuf.Descriptors;
import com.google.protobuf.FieldMask;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import dev.tandem.config.ProtoValues;
import dev.tandem.error.DomainException;
import org.springframework.http.HttpInputMessage;
import org.springframework.http.MediaType;
import org.springframework.http.converter.HttpMessageNotReadableException;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The REST wire's second representation: the binary encoding of the same tandem.v1 message the
 * gRPC wire sends, for a client that asks with {@code Accept: application/x-protobuf} (or
 * {@code application/protobuf}); JSON stays the default. A response view is mapped with the same
 * function the gRPC wire uses (GroupProto, UserProto), so both carry identical bytes, and encoded
 * once per cached read model ({@link WireForms}).
 *
 * <p>A protobuf request body is parsed as the proto request message and then read through the JSON
 * path (protobuf's own JSON printer, then the strict mapper every JSON body goes through), so a
 * protobuf body means exactly what its JSON form means and meets the same rules: an absent field is
 * the proto default, a path field in the body is refused, and so on. Writes are rare next to
 * reads, and this keeps one reading of a request instead of two that could drift.
 */
public final class ProtobufRepresentation extends WireFormRepresentation {

    public static final String X_PROTOBUF_VALUE = "application/x-protobuf";
    public static final String PROTOBUF_VALUE = "application/protobuf";
    public static final MediaType X_PROTOBUF = MediaType.parseMediaType(X_PROTOBUF_VALUE);
    public static final MediaType PROTOBUF = MediaType.parseMediaType(PROTOBUF_VALUE);

    private static final JsonFormat.Printer JSON = JsonFormat.printer().omittingInsignificantWhitespace();

    private final WireForms responses;
    private final Map<Class<?>, Message> requests;
    private final JsonMapper mapper;

    /**
     * @param responses the response views' encoded forms
     * @param requests  each request body type's proto request message (its default instance)
     * @param mapper    the mapper JSON bodies are read with
     */
    ProtobufRepresentation(WireForms responses, Map<Class<?>, Message> requests, JsonMapper mapper) {
        super(X_PROTOBUF, PROTOBUF);
        this.responses = responses;
        this.requests = Map.copyOf(requests);
        this.mapper = mapper;
    }

    @Override
    protected boolean supports(Class<?> type) {
        return responses.declares(type) || requests.containsKey(type);
    }

    @Override
    public boolean canRead(Class<?> type, MediaType mediaType) {
        return requests.containsKey(type) && canRead(mediaType);
    }

    @Override
    public boolean canWrite(Class<?> type, MediaType mediaType) {
        return responses.declares(type) && canWrite(mediaType);
    }

    @Override
    protected Object readInternal(Class<?> type, HttpInputMessage input) throws IOException {
        Message prototype = requests.get(type);
        Message message;
        try {
            message = prototype.getParserForType().parseFrom(input.getBody());
        } catch (InvalidProtocolBufferException e) {
            throw new HttpMessageNotReadableException("the request body is not a valid protobuf encoding of "
                    + prototype.getDescriptorForType().getFullName() + ": " + e.getMessage(), e, input);
        }
        try {
            return asJsonBody(message, type);
        } catch (JacksonException e) {
            // What the JSON body's reader refuses (a field the route takes from its path, a string
            // over the reader's limits) is refused the same way for its protobuf twin: Jackson 3's
            // exceptions are unchecked, and Spring wraps only IOException into a 400.
            throw new HttpMessageNotReadableException(e.getOriginalMessage(), e, input);
        }
    }

    /**
     * The body of {@code type} that the empty message means. An empty protobuf body is a message
     * with every field at its default (protobuf encodes that as zero bytes), not a missing body:
     * the request is validated like any other and its missing fields are named, as on gRPC.
     * Spring hands an empty body to {@link EmptyProtobufBodies} instead of this converter.
     */
    Object emptyMessage(Class<?> type) throws IOException {
        return asJsonBody(requests.get(type), type);
    }

    private Object asJsonBody(Message sent, Class<?> type) throws IOException {
        Message message = withoutOutputOnly(sent);
        // An out-of-range time would fail inside JSON.print as an internal error: name its field instead.
        ProtoValues.checkTimestamps(message);
        checkFieldMasks(message);
        return mapper.readValue(JSON.print(message), type);
    }

    /**
     * {@code message} without its OUTPUT_ONLY fields, at any depth. The server ignores them (AIP-203),
     * as gRPC and the JSON body do, so a client may send back what it read; left in, a value that does
     * not print as JSON (a time out of range) would refuse a request that ignores it.
     */
    private static Message withoutOutputOnly(Message message) {
        Message.Builder builder = null;
        for (Map.Entry<Descriptors.FieldDescriptor, Object> field : message.getAllFields().entrySet()) {
            Descriptors.FieldDescriptor descriptor = field.getKey();
            if (descriptor.getOptions().getExtension(FieldBehaviorProto.fieldBehavior).contains(FieldBehavior.OUTPUT_ONLY)) {
                builder = builder == null ? message.toBuilder() : builder;
                builder.clearField(descriptor);
            } else if (descriptor.getJavaType() == Descriptors.FieldDescriptor.JavaType.MESSAGE && !descriptor.isRepeated()) {
                Message nested = (Message) field.getValue();
                Message stripped = withoutOutputOnly(nested);
                if (stripped != nested) {
                    builder = builder == null ? message.toBuilder() : builder;
                    builder.setField(descriptor, stripped);
                }
            }
        }
        return builder == null ? message : builder.build();
    }

    /** A proto field path (snake_case, dotted) that JSON's lowerCamelCase form carries back unchanged. */
    private static final Pattern FIELD_PATH = Pattern.compile("[a-z][a-z0-9]*(_[a-z][a-z0-9]*)*(\\.[a-z][a-z0-9]*(_[a-z][a-z0-9]*)*)*");

    /**
     * A FieldMask's JSON form is one string of lowerCamelCase paths ("name,capacity"), which cannot
     * carry every path back as it was: "NAME" would come back as "name" and "name,capacity" as two
     * paths, and the update would apply what gRPC refuses. Such a path is refused here, naming the
     * mask as gRPC's answer does.
     */
    private static void checkFieldMasks(Message message) {
        for (Map.Entry<Descriptors.FieldDescriptor, Object> field : message.getAllFields().entrySet()) {
            if (field.getValue() instanceof FieldMask mask) {
                for (String path : mask.getPathsList()) {
                    if (!FIELD_PATH.matcher(path).matches()) {
                        throw DomainException.invalid(field.getKey().getName(), "'" + path + "' is not a field path");
                    }
                }
            }
        }
    }

    @Override
    byte[] wireForm(Object view) {
        return responses.protobuf(view);
    }
}
