package dev.tandem.seed;

import dev.tandem.testsupport.DomainSettings;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** tandem.seed: unset, the scale is 1; a scale below 1 stops the service naming its variable. */
class SeedPropertiesTest {

    @Test
    void anUnsetScaleIsOne() {
        assertThat(new SeedProperties(null, null, false).scale()).isEqualTo(1);
        assertThat(DomainSettings.bind("tandem.seed", SeedProperties.class).scale()).isEqualTo(1);
        assertThat(DomainSettings.bind("tandem.seed", SeedProperties.class, Map.of("TANDEM_SEED_SCALE", "3")).scale()).isEqualTo(3);
    }

    /** 0 was quietly seeded at scale 1, and a negative scale failed later, naming no setting. */
    @Test
    void aScaleBelowOneIsRefusedNamingItsVariable() {
        for (String scale : new String[]{"0", "-2"}) {
            assertThatThrownBy(() -> DomainSettings.bind("tandem.seed", SeedProperties.class, Map.of("TANDEM_SEED_SCALE", scale)))
                    .hasStackTraceContaining("TANDEM_SEED_SCALE");
        }
    }
}
