package io.ringkv.http.h2;

/**
 * One stream's protocol state: its {@link StreamState}, its two flow-control windows and
 * where its inbound message is (headers still expected, or body).
 *
 * <p>Threading: owned by its {@link Http2Connection}; guarded by the same critical section.
 */
final class Http2Stream {
    /** Where the inbound message is; a 1xx response keeps a stream in AWAITING_HEADERS. */
    enum Inbound { AWAITING_HEADERS, BODY }

    final int id;
    /** Told when this stream starts or stops counting as active; null when nobody counts. */
    private final ActiveStreams activeStreams;
    final SendWindow sendWindow;
    final ReceiveWindow receiveWindow;
    private StreamState state = StreamState.IDLE;
    private Inbound inbound = Inbound.AWAITING_HEADERS;
    /** RFC 9113 §8.1.1: the inbound content-length, or -1 when absent or not binding. */
    private long expectedBodyBytes = -1;
    private long receivedBodyBytes;
    /** A response to HEAD declares a content-length but carries no body (RFC 9110 §9.3.2). */
    private boolean headRequest;

    /** Keeps a count of active streams current as streams change state (their {@link StreamRegistry}). */
    interface ActiveStreams {
        void activeChanged(int id, boolean active);
    }

    Http2Stream(int id, long sendWindowBytes, int receiveWindowBytes, double creditRatio, ActiveStreams activeStreams) {
        this.id = id;
        this.activeStreams = activeStreams;
        this.sendWindow = new SendWindow(id, sendWindowBytes);
        this.receiveWindow = new ReceiveWindow(id, receiveWindowBytes, creditRatio);
    }

    StreamState state() {
        return state;
    }

    void apply(StreamEvent event) throws Http2Error {
        boolean wasActive = isActive();
        state = StreamState.next(state, event, id);
        if (activeStreams != null && wasActive != isActive()) {
            activeStreams.activeChanged(id, !wasActive);
        }
    }

    Inbound inbound() {
        return inbound;
    }

    void inbound(Inbound next) {
        inbound = next;
    }

    void headRequest(boolean head) {
        headRequest = head;
    }

    boolean headRequest() {
        return headRequest;
    }

    void expectBodyBytes(long bytes) {
        expectedBodyBytes = bytes;
    }

    /** Counts DATA octets; more than the declared content-length makes the message malformed. */
    void receiveBody(int bytes) throws StreamError {
        receivedBodyBytes += bytes;
        if (expectedBodyBytes >= 0 && receivedBodyBytes > expectedBodyBytes) {
            throw new StreamError(id, ErrorCode.PROTOCOL_ERROR, "content_length_exceeded");
        }
    }

    /** At END_STREAM: fewer octets than the declared content-length is malformed too. */
    void checkBodyComplete() throws StreamError {
        if (expectedBodyBytes >= 0 && receivedBodyBytes != expectedBodyBytes) {
            throw new StreamError(id, ErrorCode.PROTOCOL_ERROR, "content_length_mismatch");
        }
    }

    /** Counted against SETTINGS_MAX_CONCURRENT_STREAMS (RFC 9113 §5.1.2). */
    boolean isActive() {
        return state == StreamState.OPEN || state == StreamState.HALF_CLOSED_LOCAL
                || state == StreamState.HALF_CLOSED_REMOTE;
    }

    @Override
    public String toString() {
        return "stream " + id + " " + state;
    }
}
