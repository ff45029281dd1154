package io.ringkv.node;

import io.ringkv.node.access.TokenRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reloads the token file when the process gets SIGHUP ({@code kill -HUP PID}), the usual way to
 * tell a daemon to read its configuration again.
 *
 * <p>Java SE has no API for signals; {@code sun.misc.Signal} is one of the critical internal APIs
 * that JEP 260 keeps accessible (module {@code jdk.unsupported}), it works on JDK 25 without a
 * flag or a runtime warning, and javac warns that it is internal, which is expected here. It
 * replaces the JVM's own SIGHUP handling, which would run the shutdown hooks and stop the node.
 * A JVM that does not let Java handle SIGHUP ({@code -Xrs}, or where the signal is taken) keeps
 * its behaviour, and so does a process started with SIGHUP ignored ({@code nohup}: the JVM keeps
 * it ignored without refusing the handler, which would then never run); the node then says that
 * a restart is the way to load a changed file.
 *
 * <p>Threading: the JVM runs the handler on a thread of its own per signal;
 * {@link TokenRegistry#reload} is serialized, so signals in quick succession are safe.
 */
final class TokenReloadSignal {
    private static final Logger log = LoggerFactory.getLogger(TokenReloadSignal.class);
    private static final String HANG_UP = "HUP";

    private TokenReloadSignal() {
    }

    /** @return whether SIGHUP now reloads {@code tokens}; false, with a warning logged, when the JVM refused */
    static boolean install(TokenRegistry tokens) {
        try {
            sun.misc.Signal hangUp = new sun.misc.Signal(HANG_UP);
            sun.misc.SignalHandler before = sun.misc.Signal.handle(hangUp, signal -> {
                log.info("SIGHUP: reloading the token file {}", tokens.file());
                tokens.reload();
            });
            if (before == sun.misc.SignalHandler.SIG_IGN) {
                // The process was started with SIGHUP ignored (nohup, or a supervisor that does so). The
                // JVM keeps it ignored and does not say so: our handler would never run.
                sun.misc.Signal.handle(hangUp, sun.misc.SignalHandler.SIG_IGN);
                log.warn("SIGHUP is ignored in this process (started under nohup?), so it cannot reload the token file {}: "
                        + "restart the node to load a changed file, or start it without ignoring SIGHUP", tokens.file());
                return false;
            }
            return true;
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            log.warn("SIGHUP cannot be handled in this JVM ({}): restart the node to load a changed token file", e.getMessage());
            return false;
        }
    }
}
