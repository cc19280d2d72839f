package dev.tandem.user;

import dev.tandem.proto.v1.User;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.HexFormat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The one mapping of the user read model to tandem.v1: the bytes L2 holds, exact both ways. */
class UserProtoTest {

    @Test
    void theBytesAreTheOnesL2HasAlwaysHeldAndReadBackEqual() throws Exception {
        UserView user = new UserView(4, "Ana", "ana@example.org", Instant.parse("2024-03-01T10:15:30Z"));
        byte[] bytes = UserProto.user(user).toByteArray();
        assertThat(HexFormat.of().formatHex(bytes))
                .isEqualTo("08041203416e611a0f616e61406578616d706c652e6f7267220608c2d586af06");
        assertThat(UserProto.userView(User.parseFrom(bytes))).isEqualTo(user);
    }

    @Test
    void fieldsThisBuildDoesNotKnowAreRefused() {
        assertThatThrownBy(() -> UserProto.userView(User.parseFrom(new byte[]{(byte) 0xA8, 0x1F, 0x01})))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
