package dev.tandem.limits;

import dev.tandem.error.DomainException;
import dev.tandem.group.GroupService;
import dev.tandem.testsupport.DomainSettings;
import org.junit.jupiter.api.Test;
import org.springframework.util.unit.DataSize;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** tandem.limits: the defaults in tandem-domain.yml, their environment overrides, and the page_size bound. */
class LimitsPropertiesTest {

    @Test
    void theDefaultsInTandemDomainYmlAreTheDocumentedOnes() {
        LimitsProperties limits = DomainSettings.bind("tandem.limits", LimitsProperties.class);

        assertThat(limits.maxRequestBytes()).isEqualTo(DataSize.ofKilobytes(64));
        assertThat(limits.maxHeaderBytes()).isEqualTo(DataSize.ofKilobytes(8));
        assertThat(limits.maxPageSize()).isEqualTo(1000);
        assertThat(limits.idleTimeout()).isEqualTo(java.time.Duration.ofSeconds(60));
        assertThat(limits.maxCallsPerConnection()).isEqualTo(1000);
        assertThat(limits.maxOpenCalls()).isEqualTo(10_000);
        assertThat(LimitsProperties.defaults()).isEqualTo(limits);
    }

    @Test
    void environmentVariablesOverrideEveryLimit() {
        LimitsProperties limits = DomainSettings.bind("tandem.limits", LimitsProperties.class, Map.of(
                "TANDEM_LIMITS_MAX_REQUEST_BYTES", "1MB",
                "TANDEM_LIMITS_MAX_HEADER_BYTES", "16KB",
                "TANDEM_LIMITS_MAX_PAGE_SIZE", "25"));

        assertThat(limits.maxRequestBytes()).isEqualTo(DataSize.ofMegabytes(1));
        assertThat(limits.maxHeaderBytes()).isEqualTo(DataSize.ofKilobytes(16));
        assertThat(limits.maxPageSize()).isEqualTo(25);
    }

    @Test
    void nonsenseLimitsStopTheServiceFromStarting() {
        assertThatThrownBy(() -> new LimitsProperties(DataSize.ofBytes(0), null, null, null, null, null, null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("max-request-bytes");
        // 0 too: it was quietly the default, 1000.
        for (int pageSize : new int[]{0, -1}) {
            assertThatThrownBy(() -> new LimitsProperties(null, null, pageSize, null, null, null, null)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("TANDEM_LIMITS_MAX_PAGE_SIZE");
        }
        // A page is one query of page_size + 1 rows: at Integer.MAX_VALUE that sum overflowed into a
        // negative LIMIT, and a client asking for the configured bound got a 500 from MariaDB.
        for (int pageSize : new int[]{LimitsProperties.MOST_PAGE_SIZE + 1, Integer.MAX_VALUE}) {
            assertThatThrownBy(() -> new LimitsProperties(null, null, pageSize, null, null, null, null)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("TANDEM_LIMITS_MAX_PAGE_SIZE").hasMessageContaining("at most 10000");
        }
        assertThat(new LimitsProperties(null, null, LimitsProperties.MOST_PAGE_SIZE, null, null, null, null).maxPageSize()).isEqualTo(10_000);
        assertThatThrownBy(() -> new LimitsProperties(null, null, null, java.time.Duration.ZERO, null, null, null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("TANDEM_LIMITS_REQUEST_TIMEOUT");
        assertThatThrownBy(() -> new LimitsProperties(null, null, null, null, java.time.Duration.ZERO, null, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("TANDEM_LIMITS_IDLE_TIMEOUT");
        assertThatThrownBy(() -> new LimitsProperties(null, null, null, null, null, 0, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("TANDEM_LIMITS_MAX_CALLS_PER_CONNECTION");
        assertThatThrownBy(() -> new LimitsProperties(null, null, null, null, null, null, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("TANDEM_LIMITS_MAX_OPEN_CALLS");
    }

    /** The page_size violation names the configured bound, which is what both wires pass on. */
    @Test
    void pageSizeAboveTheConfiguredMaximumIsRefusedNamingIt() {
        // page_size is checked before anything else is touched, so no repositories are needed.
        GroupService groups = new GroupService(null, null, null, null, null, null, null, null, null,
                new LimitsProperties(null, null, 25, null, null, null, null));

        assertThatThrownBy(() -> groups.list("", 26, ""))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.violations())
                        .singleElement()
                        .satisfies(v -> {
                            assertThat(v.field()).isEqualTo("page_size");
                            assertThat(v.description()).contains("between 1 and 25");
                        }));
        assertThatThrownBy(() -> groups.list("", -1, "")).isInstanceOf(DomainException.class);
    }
}
