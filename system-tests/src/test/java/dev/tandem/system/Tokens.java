package dev.tandem.system;

import dev.tandem.auth.DevTokens;

/** The bearer token every write of these tests carries (the contract: writes need one). */
final class Tokens {

    /** The dev write token, valid for an hour: longer than any test run. */
    static final String WRITER = DevTokens.devWriter();

    private Tokens() {
    }
}
