package dev.tandem.tracing;

import io.micrometer.observation.ObservationRegistry;
import org.springframework.util.function.SingletonSupplier;

import java.util.function.Supplier;

/**
 * The registry the domain's own spans are observed in (the cache's levels, each SQL statement):
 * the application's {@link ObservationRegistry} while {@code tandem.tracing.enabled} is on, else
 * {@link ObservationRegistry#NOOP}, which the cache's read path tests once per read, so that an L1
 * hit of an untraced service costs what it cost before tracing existed. Not the application's
 * registry itself: that one also carries the HTTP and gRPC server observations (their metrics), which
 * stay whatever tracing is.
 *
 * <p>The registry is looked up on first use, not when this is created: the DataSource asks
 * {@link #enabled()} while it is being built, before the registry's handlers may exist.
 */
public final class DomainObservations {

    private final boolean enabled;
    private final Supplier<ObservationRegistry> registry;

    public DomainObservations(boolean enabled, Supplier<ObservationRegistry> registry) {
        this.enabled = enabled;
        this.registry = enabled ? SingletonSupplier.of(registry) : () -> ObservationRegistry.NOOP;
    }

    /** No spans of the domain's own: for code built outside a Spring context (tests, tools). */
    public static DomainObservations off() {
        return new DomainObservations(false, () -> ObservationRegistry.NOOP);
    }

    public boolean enabled() {
        return enabled;
    }

    public ObservationRegistry registry() {
        return registry.get();
    }
}
