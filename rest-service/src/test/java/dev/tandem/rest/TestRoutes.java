package dev.tandem.rest;

import org.springframework.boot.test.context.TestComponent;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import java.util.Map;

/**
 * Routes that exist only in the tests, for what no real request can provoke on purpose: a bug
 * (an unexpected exception) and a look at the thread a request runs on. A test component, so it is
 * added only where it is imported, not found by the application's component scan.
 */
@TestComponent
@RestController
public class TestRoutes {

    public static final String SECRET = "jdbc:mysql://secret-host/credentials-in-an-exception";

    @GetMapping("/test/fail")
    public Map<String, Object> fail() {
        throw new IllegalStateException("boom: " + SECRET);
    }

    @GetMapping("/test/thread")
    public Map<String, Object> thread() {
        return Map.of("virtual", Thread.currentThread().isVirtual());
    }
}
