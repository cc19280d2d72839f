package dev.tandem.config;

import sun.misc.Signal;

/**
 * SIGTERM is how orchestrators, {@code make down} and the system tests ask a service to stop. The
 * JVM answers it by running its shutdown hooks (Spring's graceful shutdown among them) and then
 * exits with status 143 (128 + SIGTERM), which supervisors report as a failure (Kubernetes shows
 * "Error", systemd "failed") although the stop was the orderly one that was asked for. With this
 * handler the same hooks run through {@code System.exit(0)}, so a requested stop ends with status 0.
 * SIGINT (Ctrl-C) and SIGKILL keep their usual statuses.
 */
public final class SigtermExit {

    private SigtermExit() {
    }

    /** Call first thing in {@code main}. */
    public static void exitZeroOnSigterm() {
        try {
            // sun.misc.Signal (module jdk.unsupported) is the JDK's only API for a signal handler.
            Signal.handle(new Signal("TERM"), signal -> System.exit(0));
        } catch (IllegalArgumentException unsupported) {
            // No SIGTERM on this platform, or the JVM runs with -Xrs: the default behaviour stays.
        }
    }
}
