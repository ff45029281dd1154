package io.ringkv.http.h2;

import io.ringkv.http.hpack.HeaderField;
import java.nio.ByteBuffer;
import java.util.List;

/** What {@link Http2Connection#receive} reports to the client or server driving it. */
public sealed interface Http2Event {

    /** A complete field block. {@code trailers} is true for a block after the body. */
    record HeadersReceived(int streamId, List<HeaderField> fields, boolean endStream, boolean trailers)
            implements Http2Event {
    }

    /**
     * DATA for a stream. The payload may be a slice of the read buffer. When the application has
     * taken it, call {@link Http2Connection#consumed(int, int)} with {@code data.remaining()} as it
     * was here, so that credit goes back to the peer.
     */
    record DataReceived(int streamId, ByteBuffer data, boolean endStream) implements Http2Event {
    }

    /** A PUSH_PROMISE (client side, only with push enabled). */
    record PushPromised(int streamId, int promisedStreamId, List<HeaderField> fields) implements Http2Event {
    }

    /** The stream ended abnormally: reset by the peer, or by us for {@code reason}. */
    record StreamReset(int streamId, ErrorCode code, boolean byPeer, String reason) implements Http2Event {
    }

    /** A send window went from empty to positive: DATA can flow again. 0 means the connection. */
    record WindowOpened(int streamId) implements Http2Event {
    }

    /** The peer's SETTINGS were applied (and acknowledged). */
    record SettingsReceived(Http2Settings peer) implements Http2Event {
    }

    record PingAcknowledged(long opaqueData) implements Http2Event {
    }

    /** The peer will process no stream above {@code lastStreamId}; ours above it were refused. */
    record GoAwayReceived(int lastStreamId, ErrorCode code, String debug) implements Http2Event {
    }

    /** The connection failed; a GOAWAY is queued; write what is queued, then close the socket. */
    record ConnectionFailed(ErrorCode code, String reason) implements Http2Event {
    }
}
