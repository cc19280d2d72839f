package dev.tandem.seed;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.stereotype.Component;

/** Seeds at start-up as {@link SeedProperties} says; the same runner serves both services and {@code make seed}. */
@Component
public class SeedRunner implements ApplicationRunner {

    private static final Logger log = LoggerFactory.getLogger(SeedRunner.class);

    private final SeedProperties properties;
    private final SeedData seedData;
    private final ConfigurableApplicationContext context;

    public SeedRunner(SeedProperties properties, SeedData seedData, ConfigurableApplicationContext context) {
        this.properties = properties;
        this.seedData = seedData;
        this.context = context;
    }

    @Override
    public void run(ApplicationArguments args) {
        boolean seed = switch (properties.mode()) {
            case OFF -> false;
            case IF_EMPTY -> seedData.isEmpty();
            case RESET -> true;
        };
        if (seed) {
            long started = System.nanoTime();
            SeedData.Counts counts = seedData.reset(properties.scale());
            log.info("Seeded scale {}: {} users, {} groups, {} sessions, {} ratings in {} ms", properties.scale(),
                    counts.users(), counts.groups(), counts.sessions(), counts.ratings(),
                    (System.nanoTime() - started) / 1_000_000);
        } else {
            log.info("Seeding skipped (tandem.seed.mode={})", properties.mode());
        }
        if (properties.exit()) {
            System.exit(SpringApplication.exit(context, () -> 0));
        }
    }
}
