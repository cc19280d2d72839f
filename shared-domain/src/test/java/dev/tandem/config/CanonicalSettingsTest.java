package dev.tandem.config;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.time.Duration;
import java.time.temporal.ChronoUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A setting read elsewhere means there what it means to Tandem, whatever its spelling: a condition
 * that compares the text with "true" matches every spelling Spring binds as true, and a reader whose
 * durations default to seconds reads the milliseconds Tandem reads. Failed before for "on" and for 30.
 */
class CanonicalSettingsTest {

    private final ApplicationContextRunner context = new ApplicationContextRunner()
            .withInitializer(new CanonicalSettings())
            .withUserConfiguration(OnlyWhenAdmissionIsOn.class);

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBooleanProperty("tandem.admission.enabled")
    static class OnlyWhenAdmissionIsOn {
        @Bean
        String admissionOn() {
            return "on";
        }
    }

    @Test
    void everySpellingOfABooleanMeansTheSameToAConditionOnItsText() {
        for (String on : new String[]{"true", "on", "yes", "1", "TRUE"}) {
            context.withPropertyValues("tandem.admission.enabled=" + on)
                    .run(c -> assertThat(c).as(on).hasBean("admissionOn"));
        }
        for (String off : new String[]{"false", "off", "no", "0"}) {
            context.withPropertyValues("tandem.admission.enabled=" + off)
                    .run(c -> assertThat(c).as(off).doesNotHaveBean("admissionOn"));
        }
    }

    @Test
    void aDurationWithoutAUnitIsMillisecondsToEveryReader() {
        context.withPropertyValues("tandem.shutdown.grace-period=30").run(c -> {
            String handedOn = c.getEnvironment().getProperty("tandem.shutdown.grace-period");
            // as spring.grpc.server.shutdown.grace-period reads it (@DurationUnit(SECONDS))
            assertThat(DurationStyle.detectAndParse(handedOn, ChronoUnit.SECONDS)).isEqualTo(Duration.ofMillis(30));
            // as spring.lifecycle.timeout-per-shutdown-phase reads it
            assertThat(DurationStyle.detectAndParse(handedOn)).isEqualTo(Duration.ofMillis(30));
        });
        context.withPropertyValues("tandem.shutdown.grace-period=30s").run(c -> assertThat(DurationStyle.detectAndParse(
                c.getEnvironment().getProperty("tandem.shutdown.grace-period"), ChronoUnit.SECONDS)).isEqualTo(Duration.ofSeconds(30)));
    }

    @Test
    void aValueThatIsNotOfItsTypeIsLeftForItsPropertiesClassToRefuse() {
        context.withPropertyValues("tandem.admission.enabled=maybe", "tandem.shutdown.grace-period=soon").run(c -> {
            assertThat(c).hasNotFailed();
            assertThat(c.getEnvironment().getProperty("tandem.admission.enabled")).isEqualTo("maybe");
            assertThat(c.getEnvironment().getProperty("tandem.shutdown.grace-period")).isEqualTo("soon");
        });
    }
}
