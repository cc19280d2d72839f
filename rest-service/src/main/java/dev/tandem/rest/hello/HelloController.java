package dev.tandem.rest.hello;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import static dev.tandem.rest.representation.ProtobufRepresentation.PROTOBUF_VALUE;
import static dev.tandem.rest.representation.ProtobufRepresentation.X_PROTOBUF_VALUE;
import static org.springframework.http.MediaType.APPLICATION_JSON_VALUE;

/**
 * The framework's hello-world: {@code GET /api/v1/hello} answers a constant object (JSON, or
 * tandem.v1.HelloResponse for a client that accepts protobuf) without
 * touching the domain, the database or the cache. The bench divides GetGroup's throughput by this
 * one's (same tool, same concurrency) to show how much of the framework's ceiling a real read keeps.
 */
@RestController
public class HelloController {

    /** The body, {"message":"hello"}. */
    public record Hello(String message) {
    }

    private static final Hello HELLO = new Hello("hello");

    @GetMapping(path = "/api/v1/hello", produces = {APPLICATION_JSON_VALUE, X_PROTOBUF_VALUE, PROTOBUF_VALUE})
    public Hello hello() {
        return HELLO;
    }
}
