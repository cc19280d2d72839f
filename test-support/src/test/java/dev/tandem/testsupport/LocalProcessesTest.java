package dev.tandem.testsupport;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class LocalProcessesTest {

    @Test
    void aCommandsOutputAndExitStatusAreWhatItPrintedAndReturned() {
        LocalProcesses.Outcome outcome = LocalProcesses.run(new ProcessBuilder("bash", "-c", "echo out; echo err >&2; exit 3"),
                Duration.ofSeconds(30));
        assertThat(outcome.timedOut()).isFalse();
        assertThat(outcome.exit()).isEqualTo(3);
        assertThat(outcome.output()).contains("out").contains("err");
    }

    /**
     * A command that hangs, holding its output open in a child too, is stopped at its timeout with
     * that child, and what it printed is kept. The helpers this replaced read a pipe to its end before
     * they waited with a timeout, so a hung redis-cli or servers.sh hung the test with no message.
     */
    @Test
    void aCommandThatHangsIsStoppedAtItsTimeoutWithWhatItStarted() throws Exception {
        LocalProcesses.Outcome outcome = LocalProcesses.run(
                new ProcessBuilder("bash", "-c", "sleep 600 & echo $!; wait"), Duration.ofSeconds(5));
        assertThat(outcome.timedOut()).isTrue();
        long child = Long.parseLong(outcome.output().strip());
        Await.until("the command's child to be gone", Duration.ofSeconds(10),
                () -> ProcessHandle.of(child).map(h -> !h.isAlive()).orElse(true));
    }
}
