package dev.tandem.seed;

import dev.tandem.config.Settings;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code tandem.seed.*}: whether a service seeds the database when it starts.
 *
 * @param mode  off (default), if-empty (seed only an empty database) or reset (empty it and seed)
 * @param scale multiplies every row count of scale 1 (100 users, 50 groups, 200 sessions, 500 ratings)
 * @param exit  stop the process once seeding is done (how {@code make seed} uses a service jar)
 */
@ConfigurationProperties("tandem.seed")
public record SeedProperties(Mode mode, Integer scale, boolean exit) {

    public enum Mode { OFF, IF_EMPTY, RESET }

    public SeedProperties {
        mode = mode == null ? Mode.OFF : mode;
        // TANDEM_SEED_SCALE=0 was quietly seeded at scale 1.
        scale = Settings.requireAtLeastOne(scale == null ? 1 : scale, "tandem.seed.scale");
    }
}
