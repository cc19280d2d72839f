package dev.tandem.shutdown;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A negative shutdown setting stops the service from starting, naming the setting. */
class ShutdownPropertiesTest {

    @Test
    void aNegativeDurationIsRefusedNamingItsVariable() {
        assertThatThrownBy(() -> new ShutdownProperties(Duration.ofSeconds(2), Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("TANDEM_SHUTDOWN_GRACE_PERIOD");
        assertThatThrownBy(() -> new ShutdownProperties(Duration.ofMillis(-1), Duration.ofSeconds(30)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("TANDEM_SHUTDOWN_DRAIN_DELAY");
        new ShutdownProperties(Duration.ZERO, Duration.ZERO);
    }
}
