package dev.tandem.user;

import dev.tandem.cache.TieredCache;
import dev.tandem.error.DomainException;
import dev.tandem.error.Validation;
import dev.tandem.config.Timestamps;
import io.micrometer.observation.annotation.Observed;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import java.time.Clock;
import java.time.Instant;

// A span per call ("UserService#get", ...) while tracing is on: Boot's ObservedAspect is registered only then
// (management.observations.annotations.enabled, see tandem-service.yml); off, calls go straight in.
@Observed(name = "tandem.service")
@Service
public class UserService {

    private final UserRepository users;
    private final Validation validation;
    private final Clock clock;
    private final TieredCache cache;

    public UserService(UserRepository users, Validation validation, Clock clock, TieredCache cache) {
        this.users = users;
        this.validation = validation;
        this.clock = clock;
        this.cache = cache;
    }

    // No @Transactional: a cache hit must not open one; on a miss the repository's own read-only
    // transaction runs the single query.
    public UserView get(long id) {
        return cache.get(UserCaches.USER, id, () -> users.findById(id).map(User::toView))
                .orElseThrow(() -> DomainException.notFound("user", id));
    }

    @Transactional
    public UserView create(NewUser command) {
        validation.check(command);
        if (users.countByEmailInAnyCase(command.email()) > 0) {
            throw emailTaken(command.email());
        }
        try {
            UserView created = users.saveAndFlush(new User(command.name(), command.email(), now())).toView();
            // Nothing lists users, but a "not found" for this id may be cached (ids are predictable).
            cache.invalidateAfterCommit(UserCaches.user(created.id()));
            return created;
        } catch (DataIntegrityViolationException raced) {
            // Another request registered the same e-mail between our check and our insert.
            throw emailTaken(command.email());
        }
    }

    /** Throws NOT_FOUND unless the user exists; for commands that reference a user. */
    @Transactional(readOnly = true)
    public void requireExists(long id) {
        if (!users.existsById(id)) {
            throw DomainException.notFound("user", id);
        }
    }

    private static DomainException emailTaken(String email) {
        return DomainException.alreadyExists("user", email, "a user with e-mail " + email + " already exists");
    }

    private Instant now() {
        return Timestamps.toStoredPrecision(clock.instant());
    }
}
