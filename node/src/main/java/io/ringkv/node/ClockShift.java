package io.ringkv.node;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * How a fault test shifts a node's wall clock ({@code serve --clock-offset-for-tests} and
 * {@code --clock-offset-file-for-tests}, both hidden): a fixed offset from start, plus, when a
 * file is given, the ISO-8601 duration it holds ({@code PT3S}, {@code -PT0.8S}), re-read while the
 * node runs so a test can step the clock of a running node. {@link #NONE} outside tests.
 *
 * @param offset the offset from start
 * @param file   the file to watch (absent or empty: no more offset), or null
 */
public record ClockShift(Duration offset, Path file) {
    public static final ClockShift NONE = new ClockShift(Duration.ZERO, null);

    public ClockShift {
        Objects.requireNonNull(offset, "offset");
    }

    boolean isNone() {
        return offset.isZero() && file == null;
    }
}
