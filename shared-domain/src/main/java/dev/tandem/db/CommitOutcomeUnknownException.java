package dev.tandem.db;

import java.sql.SQLException;

/**
 * A commit that was sent and then failed, typically because the connection was lost: the
 * database may have applied the transaction or not, and only reading it again tells.
 * {@link dev.tandem.error.DataAccessFailures} reports it as UNAVAILABLE with
 * {@code commitOutcome=unknown}, so a client knows not to take the write as undone.
 */
public class CommitOutcomeUnknownException extends SQLException {

    public CommitOutcomeUnknownException(Throwable cause) {
        super("the connection failed while committing; the transaction may or may not have been applied",
                cause instanceof SQLException sql ? sql.getSQLState() : "08000", cause);
    }
}
