package dev.tandem.auth;

import dev.tandem.error.DomainException;
import dev.tandem.error.ErrorCode;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** What {@code make token} prints for its environment variables (scripts/token.sh names them). */
class DevTokensTest {

    private final WriteAccess access = new WriteAccess(new AuthProperties(true, null), Clock.systemUTC());

    @Test
    void withNothingSetTheTokenMayWriteAsDev() {
        String token = "Bearer " + DevTokens.fromEnvironment(Map.of());
        assertThatCode(() -> access.requireWriter(token)).doesNotThrowAnyException();
        assertThat(access.verifiedSubject(token)).contains(DevTokens.DEV_SUBJECT);
    }

    @Test
    void aBlankScopeAsksForATokenThatMayNotWrite() {
        // The README's read-only token for the rate limit's example: TANDEM_TOKEN_SCOPE= make -s token.
        String token = "Bearer " + DevTokens.fromEnvironment(Map.of("TANDEM_TOKEN_SCOPE", "", "TANDEM_TOKEN_SUBJECT", "ops"));
        assertThat(access.verifiedSubject(token)).contains("ops");
        assertThat(catchThrowableOfType(DomainException.class, () -> access.requireWriter(token)).code())
                .isEqualTo(ErrorCode.PERMISSION_DENIED);
    }

    @Test
    void otherBlankVariablesTakeTheirDefaults() {
        String token = "Bearer " + DevTokens.fromEnvironment(Map.of("TANDEM_AUTH_JWT_SECRET", " ", "TANDEM_TOKEN_TTL", "",
                "TANDEM_TOKEN_SUBJECT", ""));
        assertThatCode(() -> access.requireWriter(token)).doesNotThrowAnyException();
        assertThat(access.verifiedSubject(token)).contains(DevTokens.DEV_SUBJECT);
    }
}
