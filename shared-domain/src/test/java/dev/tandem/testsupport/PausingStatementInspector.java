package dev.tandem.testsupport;

import org.hibernate.resource.jdbc.spi.StatementInspector;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * A latch hook for tests that need two transactions to interleave at one precise point: Hibernate
 * shows every SQL statement it is about to run to this inspector, on the thread that runs it, and
 * a thread that a {@link Pause} holds waits here before its first statement that reads, joins or
 * inserts into a given table, until the test releases it. Everything before that statement has run (and holds whatever
 * locks and snapshot it took); nothing after it has. Threads without a pause pass straight through.
 *
 * <p>An application context uses it with
 * {@code spring.jpa.properties.hibernate.session_factory.statement_inspector=} this class's name.
 */
public final class PausingStatementInspector implements StatementInspector {

    private static final Map<Thread, Pause> PAUSES = new ConcurrentHashMap<>();

    /** The property that makes a context's Hibernate use this inspector, in command-line form. */
    public static String property() {
        return "--spring.jpa.properties.hibernate.session_factory.statement_inspector="
                + PausingStatementInspector.class.getName();
    }

    @Override
    public String inspect(String sql) {
        Pause pause = PAUSES.get(Thread.currentThread());
        if (pause != null && pause.table.matcher(sql.toLowerCase(Locale.ROOT)).find()) {
            PAUSES.remove(Thread.currentThread());
            pause.hold();
        }
        return sql;
    }

    /** Holds one thread once, before its first statement that reads, joins or inserts into {@code table}. */
    public static final class Pause {
        private final Pattern table;
        private final Duration patience;
        private final CountDownLatch reached = new CountDownLatch(1);
        private final CountDownLatch released = new CountDownLatch(1);

        /** A thread held longer than {@code patience} goes on by itself, so a failed test cannot hang. */
        public Pause(String table, Duration patience) {
            this.table = Pattern.compile("\\b(from|join|into)\\s+" + Pattern.quote(table) + "\\b");
            this.patience = patience;
        }

        /** Arms the pause for the calling thread (call it first thing in the task that is to be held). */
        public void armForThisThread() {
            PAUSES.put(Thread.currentThread(), this);
        }

        /** Disarms it for the calling thread, if it was never reached. */
        public void disarmForThisThread() {
            PAUSES.remove(Thread.currentThread(), this);
        }

        /** Waits until the held thread has reached its statement; whether it did within {@code timeout}. */
        public boolean awaitReached(Duration timeout) throws InterruptedException {
            return reached.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
        }

        /** Lets the held thread run its statement. */
        public void release() {
            released.countDown();
        }

        private void hold() {
            reached.countDown();
            try {
                released.await(patience.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
