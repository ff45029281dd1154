package io.ringkv.http.server.internal;

import io.ringkv.http.LogText;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts failed TLS handshakes and logs at most one line per {@link #INTERVAL_NANOS}: the latest
 * failure's peer and reason, and how many went unlogged since the last line. A port scanner, a
 * client speaking plain HTTP to the TLS port or one with no common cipher is the client's problem
 * and may come thousands of times a second, so it must neither flood the log nor cost a stack trace.
 *
 * <p>Threading: thread-safe; the loops of all connections report here.
 */
final class HandshakeFailureLog {
    private static final Logger log = LoggerFactory.getLogger(HandshakeFailureLog.class);
    static final long INTERVAL_NANOS = 60_000_000_000L;

    private final LongAdder failures = new LongAdder();
    private final AtomicLong unlogged = new AtomicLong();
    /** When the last line was written; {@code Long.MIN_VALUE} before the first. */
    private final AtomicLong lastLine = new AtomicLong(Long.MIN_VALUE);

    void failed(InetSocketAddress peer, Throwable cause, long nowNanos) {
        failures.increment();
        long last = lastLine.get();
        boolean due = last == Long.MIN_VALUE || nowNanos - last >= INTERVAL_NANOS;
        if (!due || !lastLine.compareAndSet(last, nowNanos)) {
            unlogged.incrementAndGet();
            return;
        }
        long others = unlogged.getAndSet(0);
        log.info("TLS handshake with {} failed: {}{}", peer, LogText.of(cause.getMessage()),
                others == 0 ? "" : " (and " + others + " other failed handshakes since the last report)");
    }

    long failures() {
        return failures.sum();
    }
}
