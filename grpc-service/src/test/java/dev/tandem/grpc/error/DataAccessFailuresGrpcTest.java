package dev.tandem.grpc.error;

import com.google.protobuf.Any;
import com.google.rpc.ErrorInfo;
import com.google.rpc.RetryInfo;
import dev.tandem.db.CommitOutcomeUnknownException;
import dev.tandem.deadline.DeadlineExceededException;
import dev.tandem.error.DataAccessFailures;
import io.grpc.Status;
import io.grpc.StatusException;
import io.grpc.protobuf.StatusProto;
import org.junit.jupiter.api.Test;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.TransactionSystemException;

import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The database being down or a deadline passing is never INTERNAL on the gRPC wire: UNAVAILABLE
 * with a RetryInfo detail (the retry delay of tandem.db.retry-after), or DEADLINE_EXCEEDED. The
 * outage system test shows the same end to end.
 */
class DataAccessFailuresGrpcTest {

    private final GrpcErrors errors = new GrpcErrors(new DataAccessFailures(Duration.ofSeconds(4)));

    @Test
    void anUnreachableDatabaseIsUnavailableWithRetryInfo() throws Exception {
        StatusException status = errors.handleException(new CannotCreateTransactionException("Could not open JPA EntityManager",
                new SQLTransientConnectionException("HikariPool-1 - Connection is not available, request timed out after 3000ms")));

        assertThat(status.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
        com.google.rpc.Status details = StatusProto.fromThrowable(status);
        assertThat(unpack(details, ErrorInfo.class).getReason()).isEqualTo("UNAVAILABLE");
        assertThat(unpack(details, RetryInfo.class).getRetryDelay().getSeconds()).isEqualTo(4);
        assertThat(details.getMessage()).doesNotContain("Hikari");
    }

    @Test
    void aCommitWithUnknownOutcomeSaysSoInErrorInfo() throws Exception {
        StatusException status = errors.handleException(new TransactionSystemException("Could not commit JPA transaction",
                new CommitOutcomeUnknownException(new SQLRecoverableException("Communications link failure", "08S01"))));

        assertThat(status.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
        ErrorInfo info = unpack(StatusProto.fromThrowable(status), ErrorInfo.class);
        assertThat(info.getMetadataMap()).containsEntry(DataAccessFailures.COMMIT_OUTCOME, "unknown");
    }

    @Test
    void aStatementStoppedByTheDeadlineIsDeadlineExceeded() throws Exception {
        StatusException status = errors.handleException(new CannotCreateTransactionException("x",
                new DeadlineExceededException("the request's deadline passed")));

        assertThat(status.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
        com.google.rpc.Status details = StatusProto.fromThrowable(status);
        assertThat(unpack(details, ErrorInfo.class).getReason()).isEqualTo("DEADLINE_EXCEEDED");
        assertThat(details.getDetailsList()).noneMatch(detail -> detail.is(RetryInfo.class));
    }

    private static <T extends com.google.protobuf.Message> T unpack(com.google.rpc.Status status, Class<T> type) throws Exception {
        for (Any detail : status.getDetailsList()) {
            if (detail.is(type)) {
                return detail.unpack(type);
            }
        }
        throw new AssertionError("no " + type.getSimpleName() + " in " + status);
    }
}
