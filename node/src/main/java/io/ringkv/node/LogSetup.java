package io.ringkv.node;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import org.slf4j.ILoggerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's log backend and format. The command line runs on logback, whose bundled
 * {@code logback.xml} writes text lines at INFO to standard error; {@code serve --log-format json}
 * switches to one JSON object per line (logback's {@link JsonEncoder}) for log shippers.
 *
 * <p>Threading: call from the main thread before the node starts.
 */
final class LogSetup {

    /** How log lines look. */
    enum Format { TEXT, JSON }

    private static final String PROVIDER_PROPERTY = "slf4j.provider";
    private static final String SLF4J_VERBOSITY_PROPERTY = "slf4j.internal.verbosity";
    private static final String LOGBACK_PROVIDER = "ch.qos.logback.classic.spi.LogbackServiceProvider";

    private LogSetup() {
    }

    /**
     * Picks logback unless the JVM already chose a backend: test class paths also hold
     * slf4j-simple, and SLF4J would otherwise take whichever it finds first. Call before any
     * logger is created.
     */
    static void selectBackend() {
        if (System.getProperty(PROVIDER_PROPERTY) == null) {
            System.setProperty(PROVIDER_PROPERTY, LOGBACK_PROVIDER);
            // Else SLF4J reports the explicit choice on standard error at every start.
            if (System.getProperty(SLF4J_VERBOSITY_PROPERTY) == null) {
                System.setProperty(SLF4J_VERBOSITY_PROPERTY, "WARN");
            }
        }
    }

    /** Applies {@code format}; TEXT keeps the bundled configuration. */
    static void apply(Format format) {
        if (format == Format.TEXT) {
            return;
        }
        ILoggerFactory factory = LoggerFactory.getILoggerFactory();
        if (!(factory instanceof LoggerContext context)) {
            LoggerFactory.getLogger(LogSetup.class).warn("--log-format {} needs logback; logging through {} as it is",
                    format, factory.getClass().getName());
            return;
        }
        context.reset();
        JsonEncoder encoder = new JsonEncoder();
        encoder.setContext(context);
        // What a shipper indexes: time, level, thread, logger, the formatted message, the exception.
        // Not the template and its arguments apart, nor logback's context and sequence fields.
        encoder.setWithFormattedMessage(true);
        encoder.setWithMessage(false);
        encoder.setWithArguments(false);
        encoder.setWithContext(false);
        encoder.setWithSequenceNumber(false);
        encoder.setWithNanoseconds(false);
        encoder.start();
        ConsoleAppender<ILoggingEvent> appender = new ConsoleAppender<>();
        appender.setContext(context);
        appender.setName("STDERR_JSON");
        appender.setTarget("System.err");
        appender.setEncoder(encoder);
        appender.start();
        ch.qos.logback.classic.Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        root.setLevel(Level.INFO);
        root.addAppender(appender);
        quietRatis(context);
    }

    /**
     * As logback.xml has it, which {@link LoggerContext#reset} dropped: Ratis at WARN, its client's
     * retries unlogged, its leader's failed appends to a follower that is down at ERROR only.
     */
    private static void quietRatis(LoggerContext context) {
        context.getLogger("org.apache.ratis").setLevel(Level.WARN);
        context.getLogger("org.apache.ratis.client.impl.OrderedAsync").setLevel(Level.OFF);
        context.getLogger("org.apache.ratis.server.leader.LogAppender").setLevel(Level.ERROR);
    }

    /**
     * Raises the threshold to WARN until the returned handle is closed, so that work whose INFO
     * lines would mislead an operator (the warm-up's scratch nodes starting and stopping) logs
     * only its problems. Without logback, nothing changes.
     */
    static AutoCloseable onlyWarnings() {
        if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
            return () -> { };
        }
        ch.qos.logback.classic.Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        Level before = root.getLevel();
        root.setLevel(Level.WARN);
        return () -> root.setLevel(before);
    }
}
