package dev.tandem.rest.hello;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The framework's hello-world: {@code GET /api/v1/hello} answers a constant JSON object without
 * touching the domain, the database or the cache. The bench divides GetGroup's throughput by this
 * one's (same tool, same concurrency) to show how much of the framework's ceiling a real read keeps.
 */
@RestController
public class HelloController {

    /** The body, {"message":"hello"}. */
    public record Hello(String message) {
    }

    private static final Hello HELLO = new Hello("hello");

    @GetMapping("/api/v1/hello")
    public Hello hello() {
        return HELLO;
    }
}
