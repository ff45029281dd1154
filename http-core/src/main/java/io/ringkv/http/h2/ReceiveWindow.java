package io.ringkv.http.h2;

/**
 * How many DATA octets the peer may still send us, for one stream or the connection, and the
 * credit we owe it back (RFC 9113 §6.9).
 *
 * <p>Credit is returned when the application has taken the data ({@link #consumed}), not on
 * arrival, and in batches: a WINDOW_UPDATE goes out only once the octets taken but not yet
 * credited reach {@code creditThreshold} (by default half the window). Worked example with a
 * 65,535-octet window and the default ratio 0.5: the application takes 16 KiB DATA frames one
 * by one; after the second (32,768 >= 32,767) one WINDOW_UPDATE of 32,768 is due, instead of
 * two of 16,384. The peer's view of the window never drops below half before it is refilled.
 *
 * <p>Threading: not thread-safe; confined to the connection's reading side.
 */
public final class ReceiveWindow {
    private final int streamId;
    private final int size;
    private final int creditThreshold;
    private long window;
    private int uncredited;

    /**
     * @param size        the window we advertised (initial window size or connection window)
     * @param creditRatio fraction of {@code size} taken before credit is sent, in (0, 1]
     */
    public ReceiveWindow(int streamId, int size, double creditRatio) {
        if (!(creditRatio > 0 && creditRatio <= 1)) {
            throw new IllegalArgumentException("credit ratio must be in (0, 1]: " + creditRatio);
        }
        this.streamId = streamId;
        this.size = size;
        this.window = size;
        this.creditThreshold = Math.max(1, (int) (size * creditRatio));
    }

    public long window() {
        return window;
    }

    /** DATA arrived: RFC 9113 §6.9.1, more than the window allows is a FLOW_CONTROL_ERROR. */
    public void receive(int flowControlledBytes) throws Http2Error {
        if (flowControlledBytes > window) {
            throw streamId == 0
                    ? new ConnectionError(ErrorCode.FLOW_CONTROL_ERROR, "window_exceeded")
                    : new StreamError(streamId, ErrorCode.FLOW_CONTROL_ERROR, "window_exceeded");
        }
        window -= flowControlledBytes;
    }

    /**
     * The application took {@code bytes}; returns the WINDOW_UPDATE increment now due, or 0 while
     * the batch is still below the threshold.
     */
    public int consumed(int bytes) {
        uncredited += bytes;
        if (uncredited < creditThreshold) {
            return 0;
        }
        int increment = uncredited;
        uncredited = 0;
        window += increment;
        return increment;
    }

    /** The window we advertise; also used to top up a connection window above the 65,535 default. */
    public int size() {
        return size;
    }
}
