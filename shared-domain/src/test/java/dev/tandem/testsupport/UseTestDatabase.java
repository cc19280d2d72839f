package dev.tandem.testsupport;

import org.springframework.test.context.TestPropertySource;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Points a test's application context at a test database of the project-local MariaDB
 * (127.0.0.1:13306) that {@code make test} starts, leaving {@code tandem} to {@code make run}.
 * Each module names its own database (system property {@code tandem.test.db-name}, set by its
 * surefire configuration) so that modules can run their tests at the same time. The cache's Redis
 * keys and invalidation channel get the same name as a prefix, for the same reason: a module's
 * cached rows must not be read by another module's tests, which have other rows under the same ids.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@TestPropertySource(properties = {"tandem.db.name=${tandem.test.db-name:tandem_test}", "tandem.seed.mode=off",
        "tandem.cache.redis.key-prefix=tandem:cache:${tandem.test.db-name:tandem_test}:"})
public @interface UseTestDatabase {
}
