package dev.tandem.deadline;

import java.sql.SQLTimeoutException;

/**
 * A JDBC call refused or stopped because its request's deadline passed (or the request was
 * cancelled). An SQLException, so JDBC callers (Hibernate, Spring) treat it like any failed
 * statement and roll the transaction back; {@link dev.tandem.error.DataAccessFailures} maps it to
 * DEADLINE_EXCEEDED.
 */
public class DeadlineExceededException extends SQLTimeoutException {

    public DeadlineExceededException(String message) {
        super(message, "HYT00");
    }

    public DeadlineExceededException(String message, Throwable cause) {
        super(message, "HYT00", cause);
    }
}
