package dev.tandem.error;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How a field a client sent is named: the one conversion that a command's violations (Validation),
 * REST's JSON errors and its FieldMask paths share, so it is checked here once.
 */
class FieldViolationTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({"ownerId, owner_id", "owner_id, owner_id", "group.capacity, group.capacity",
            "group.startTime, group.start_time", "nextSessions[0].startTime, next_sessions[0].start_time",
            "name, name"})
    void aJavaOrJsonPathIsNamedByItsProtoPath(String sent, String proto) {
        assertThat(FieldViolation.protoPath(sent)).isEqualTo(proto);
    }
}
