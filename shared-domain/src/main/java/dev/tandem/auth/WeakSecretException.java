package dev.tandem.auth;

/** tandem.auth.jwt-secret cannot sign HS256 tokens safely: the service must not start with it. */
public class WeakSecretException extends IllegalStateException {

    public WeakSecretException(int bytes) {
        super("tandem.auth.jwt-secret (TANDEM_AUTH_JWT_SECRET) is " + bytes + " bytes long; HS256 needs a secret of at least "
                + WriteAccess.MIN_SECRET_BYTES + " bytes");
    }
}
