package dev.tandem.group;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.tandem.error.DomainException;
import dev.tandem.proto.internal.PageToken;

import java.util.Base64;

/**
 * Opaque ListGroups page tokens: base64url of a small protobuf that says where the keyset walk
 * resumes and for which subject it was issued. A token that does not decode, or that was issued
 * for another subject, is INVALID_ARGUMENT on page_token — never a 500 and never a wrong page.
 */
final class PageTokens {

    private static final String FIELD = "page_token";

    /**
     * Tokens this service issues are under 100 characters (a subject of at most 50 and an id);
     * anything much longer is refused before it is decoded, so a huge token costs no decoding.
     */
    static final int MAX_TOKEN_LENGTH = 256;

    private PageTokens() {
    }

    static String encode(String subject, long afterId) {
        byte[] bytes = PageToken.newBuilder().setSubject(subject).setAfterId(afterId).build().toByteArray();
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** The id to resume after; 0 for the first page (an empty token). */
    static long decodeAfterId(String token, String subject) {
        if (token == null || token.isEmpty()) {
            return 0;
        }
        if (token.length() > MAX_TOKEN_LENGTH) {
            throw DomainException.invalid(FIELD, "is not a page token issued by this service");
        }
        PageToken decoded;
        try {
            decoded = PageToken.parseFrom(Base64.getUrlDecoder().decode(token));
        } catch (IllegalArgumentException | InvalidProtocolBufferException e) {
            throw DomainException.invalid(FIELD, "is not a page token issued by this service");
        }
        if (decoded.getAfterId() <= 0 || !decoded.getUnknownFields().asMap().isEmpty()) {
            throw DomainException.invalid(FIELD, "is not a page token issued by this service");
        }
        if (!decoded.getSubject().equals(subject)) {
            throw DomainException.invalid(FIELD, "was issued for a different subject; start again without a token");
        }
        return decoded.getAfterId();
    }
}
