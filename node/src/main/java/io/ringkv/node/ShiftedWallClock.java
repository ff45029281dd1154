package io.ringkv.node;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's wall clock under a {@link ClockShift}: the machine's clock plus the shift's offset,
 * plus, with a file, the offset the file holds: a daemon thread re-reads it every
 * {@value #POLL_MILLIS} ms and steps the clock when it changes, logging each step at INFO. A
 * missing or empty file keeps the current offset; one that does not parse is logged and ignored.
 * Outside tests there is no shift and the clock is the machine's.
 *
 * <p>Threading: {@link #getAsLong} from any thread (one volatile read); the watcher alone writes.
 */
final class ShiftedWallClock implements LongSupplier, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ShiftedWallClock.class);
    static final long POLL_MILLIS = 10;

    private final ClockShift shift;
    private final ScheduledExecutorService watcher;
    private volatile long offsetMillis;
    /** The file's last content, so each change is logged once (watcher thread only). */
    private String lastSeen = "";

    private ShiftedWallClock(ClockShift shift) {
        this.shift = shift;
        this.offsetMillis = shift.offset().toMillis();
        if (shift.file() == null) {
            watcher = null;
            return;
        }
        watcher = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread t = new Thread(task, "ringkv-test-clock-shift");
            t.setDaemon(true);
            return t;
        });
        readFile();
        watcher.scheduleWithFixedDelay(this::readFile, POLL_MILLIS, POLL_MILLIS, TimeUnit.MILLISECONDS);
    }

    static ShiftedWallClock of(ClockShift shift) {
        if (!shift.isNone()) {
            log.warn("this node's wall clock is shifted for a fault test ({})", shift);
        }
        return new ShiftedWallClock(shift);
    }

    @Override
    public long getAsLong() {
        return System.currentTimeMillis() + offsetMillis;
    }

    private void readFile() {
        String text;
        try {
            text = Files.readString(shift.file(), StandardCharsets.UTF_8).strip();
        } catch (NoSuchFileException e) {
            return;
        } catch (IOException e) {
            log.warn("cannot read the clock shift file {}: {}", shift.file(), e.toString());
            return;
        }
        if (text.isEmpty() || text.equals(lastSeen)) {
            return;
        }
        lastSeen = text;
        try {
            offsetMillis = shift.offset().toMillis() + Duration.parse(text).toMillis();
            log.info("wall clock stepped for tests: file offset {} (plus {} from start)", text, shift.offset());
        } catch (DateTimeParseException e) {
            log.warn("clock shift file {} holds '{}', not an ISO-8601 duration; offset kept", shift.file(), text);
        }
    }

    @Override
    public void close() {
        if (watcher != null) {
            watcher.shutdownNow();
        }
    }
}
