package io.ringkv.http.h2;

/**
 * HTTP/2 stream state, RFC 9113 §5.1, the same machine for client and server roles.
 *
 * <pre>
 *                          send/recv PUSH_PROMISE (on the promised stream)
 *          RESERVED_LOCAL <--send PP-- IDLE --recv PP--> RESERVED_REMOTE
 *               | send H               | send/recv H         | recv H
 *               v                      v                     v
 *    HALF_CLOSED_REMOTE <--recv ES-- OPEN --send ES--> HALF_CLOSED_LOCAL
 *               | send ES                                    | recv ES
 *               +------------------> CLOSED <----------------+
 *   any state but IDLE --send/recv RST_STREAM--> CLOSED
 * </pre>
 *
 * Receiving a frame the state does not allow is an error whose scope the RFC fixes per
 * state: a connection PROTOCOL_ERROR in IDLE and the reserved states, a stream STREAM_CLOSED
 * in HALF_CLOSED_REMOTE and CLOSED. Sending one is a bug in the caller
 * ({@link IllegalStateException}). Frames that may legitimately cross a RST_STREAM or END_STREAM
 * in flight (WINDOW_UPDATE, RST_STREAM, PRIORITY) are accepted in CLOSED and change nothing.
 */
public enum StreamState {
    IDLE, RESERVED_LOCAL, RESERVED_REMOTE, OPEN, HALF_CLOSED_LOCAL, HALF_CLOSED_REMOTE, CLOSED;

    /** Pure: no I/O, no logging. */
    public static StreamState next(StreamState current, StreamEvent event, int streamId) throws Http2Error {
        StreamState next = event.isSend() ? afterSend(current, event) : afterReceive(current, event, streamId);
        if (next == null) {
            throw new IllegalStateException("cannot " + event + " on stream " + streamId + " in " + current);
        }
        return next;
    }

    public boolean canSend() {
        return this == OPEN || this == HALF_CLOSED_REMOTE;
    }

    public boolean canReceive() {
        return this == OPEN || this == HALF_CLOSED_LOCAL;
    }

    /** Returns null when sending this is not allowed. */
    private static StreamState afterSend(StreamState s, StreamEvent event) {
        return switch (event) {
            case SEND_HEADERS -> switch (s) {
                case IDLE -> OPEN;
                case RESERVED_LOCAL -> HALF_CLOSED_REMOTE;
                case OPEN, HALF_CLOSED_REMOTE -> s;
                default -> null;
            };
            case SEND_DATA -> s.canSend() ? s : null;
            case SEND_END_STREAM -> switch (s) {
                case OPEN -> HALF_CLOSED_LOCAL;
                case HALF_CLOSED_REMOTE -> CLOSED;
                default -> null;
            };
            case SEND_PUSH_PROMISE -> s == IDLE ? RESERVED_LOCAL : null;
            case SEND_RST_STREAM -> s == IDLE ? null : CLOSED;
            default -> throw new IllegalArgumentException("not a send event: " + event);
        };
    }

    private static StreamState afterReceive(StreamState s, StreamEvent event, int id) throws Http2Error {
        return switch (s) {
            case IDLE -> switch (event) {
                case RECV_HEADERS -> OPEN;
                case RECV_PUSH_PROMISE -> RESERVED_REMOTE;
                case RECV_PRIORITY -> IDLE;
                default -> throw connectionError("frame_on_idle_stream");
            };
            case RESERVED_LOCAL -> switch (event) {
                case RECV_RST_STREAM -> CLOSED;
                case RECV_WINDOW_UPDATE, RECV_PRIORITY -> s;
                default -> throw connectionError("frame_on_reserved_stream");
            };
            case RESERVED_REMOTE -> switch (event) {
                case RECV_HEADERS -> HALF_CLOSED_LOCAL;
                case RECV_RST_STREAM -> CLOSED;
                case RECV_PRIORITY -> s;
                default -> throw connectionError("frame_on_reserved_stream");
            };
            case OPEN, HALF_CLOSED_LOCAL -> receiveWhileOpen(s, event);
            case HALF_CLOSED_REMOTE -> switch (event) {
                case RECV_RST_STREAM -> CLOSED;
                case RECV_WINDOW_UPDATE, RECV_PRIORITY -> s;
                case RECV_PUSH_PROMISE -> throw connectionError("push_promise_for_used_stream");
                default -> throw new StreamError(id, ErrorCode.STREAM_CLOSED, "frame_after_end_stream");
            };
            case CLOSED -> switch (event) {
                case RECV_RST_STREAM, RECV_WINDOW_UPDATE, RECV_PRIORITY -> CLOSED;
                case RECV_PUSH_PROMISE -> throw connectionError("push_promise_for_used_stream");
                default -> throw new StreamError(id, ErrorCode.STREAM_CLOSED, "frame_on_closed_stream");
            };
        };
    }

    private static StreamState receiveWhileOpen(StreamState s, StreamEvent event) throws ConnectionError {
        return switch (event) {
            case RECV_HEADERS, RECV_DATA, RECV_WINDOW_UPDATE, RECV_PRIORITY -> s;
            case RECV_END_STREAM -> s == OPEN ? HALF_CLOSED_REMOTE : CLOSED;
            case RECV_RST_STREAM -> CLOSED;
            case RECV_PUSH_PROMISE -> throw connectionError("push_promise_for_used_stream");
            default -> throw new IllegalArgumentException("not a receive event: " + event);
        };
    }

    private static ConnectionError connectionError(String reason) {
        return new ConnectionError(ErrorCode.PROTOCOL_ERROR, reason);
    }
}
