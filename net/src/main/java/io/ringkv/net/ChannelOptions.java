package io.ringkv.net;

import java.time.Duration;

/**
 * Per-connection settings of the non-blocking channel layer.
 *
 * @param writeHighWaterBytes when the bytes queued for writing reach this, the connection stops
 *                            being {@linkplain Connection#isWritable() writable}
 * @param writeLowWaterBytes  once queued bytes drain to this after the high-water mark was hit,
 *                            {@link ConnectionHandler#onWritable} is called
 * @param lingerTimeout       after {@link Connection#closeAfterFlush()} has flushed and shut down
 *                            output, how long unread input is still drained before the socket is
 *                            closed (closing with unread input sends a TCP reset, which can make
 *                            the peer drop the response we just wrote)
 * @param lingerBytesMax      the most input drained (and discarded) while lingering
 */
public record ChannelOptions(long writeHighWaterBytes, long writeLowWaterBytes, Duration lingerTimeout,
                             long lingerBytesMax) {

    public static final long WRITE_HIGH_WATER_BYTES_DEFAULT = 256 * 1024;
    public static final long WRITE_LOW_WATER_BYTES_DEFAULT = 64 * 1024;
    public static final Duration LINGER_TIMEOUT_DEFAULT = Duration.ofSeconds(2);
    public static final long LINGER_BYTES_MAX_DEFAULT = 1024 * 1024;

    public ChannelOptions {
        if (writeLowWaterBytes < 0 || writeHighWaterBytes <= writeLowWaterBytes) {
            throw new IllegalArgumentException("need 0 <= writeLowWaterBytes < writeHighWaterBytes, got "
                    + writeLowWaterBytes + " and " + writeHighWaterBytes);
        }
        if (lingerTimeout.isNegative() || lingerBytesMax < 0) {
            throw new IllegalArgumentException("linger bounds must not be negative");
        }
    }

    public static ChannelOptions defaults() {
        return new ChannelOptions(WRITE_HIGH_WATER_BYTES_DEFAULT, WRITE_LOW_WATER_BYTES_DEFAULT,
                LINGER_TIMEOUT_DEFAULT, LINGER_BYTES_MAX_DEFAULT);
    }

    public ChannelOptions withWaterMarks(long lowBytes, long highBytes) {
        return new ChannelOptions(highBytes, lowBytes, lingerTimeout, lingerBytesMax);
    }
}
