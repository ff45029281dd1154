package io.ringkv.http.h2;

import java.util.Collection;

/**
 * The live streams of one connection and the stream-id rules (RFC 9113 §5.1.1): ids we open
 * have our parity and increase; ids the peer opens have its parity and must exceed every id it
 * used before. Closed streams are forgotten; an id at or below the high-water mark that is no
 * longer here is a closed stream.
 *
 * <p>Threading: owned by its {@link Http2Connection}.
 */
final class StreamRegistry implements Http2Stream.ActiveStreams {
    /** RFC 9113 §5.1.1: stream ids are 31-bit. */
    private static final int MAX_STREAM_ID = Integer.MAX_VALUE;
    /** Closed stream ids remembered so that frames still in flight for them are told apart. */
    static final int RECENTLY_CLOSED_MAX = 128;
    /**
     * Streams we reset that are remembered: the most recent resets, not the resets of some period.
     * RFC 9113 §5.1: frames the peer sent before it saw our RST_STREAM must be ignored. They arrive
     * within about one round trip of the reset, so what must fit is the number of streams we reset
     * in one round trip; 1,024 (4 KiB per connection) is ten times our default concurrent-stream
     * limit, enough for a client cancelling, or a server refusing, a whole burst at once. Late frames
     * on a stream that has dropped out get what frames on any closed stream get (the RFC lets the
     * period be limited): DATA a RST_STREAM(STREAM_CLOSED), and its credit for the connection window
     * all the same, so no window leaks either way.
     */
    static final int RESET_BY_US_MAX = 1024;

    private final Role role;
    private final StreamIdMap<Http2Stream> streams = new StreamIdMap<>();
    private final RecentStreamIds recentlyClosed = new RecentStreamIds(RECENTLY_CLOSED_MAX);
    /** Streams we reset ourselves: frames may still arrive on them (RFC 9113 §5.1, a PUSH_PROMISE too, §6.6). */
    private final RecentStreamIds resetByUs = new RecentStreamIds(RESET_BY_US_MAX);
    private int nextLocalId;
    private int lastPeerId;
    /**
     * Active streams ({@link Http2Stream#isActive}) we opened and the peer opened, kept as streams
     * change state: every new stream compares them with its limit, and counting the map instead
     * made opening a stream cost as much as the streams already open (a connection carrying a
     * node's replica calls has a hundred or more).
     */
    private int activeLocal;
    private int activePeer;

    StreamRegistry(Role role) {
        this.role = role;
        this.nextLocalId = role == Role.CLIENT ? 1 : 2;
    }

    Http2Stream get(int id) {
        return streams.get(id);
    }

    /** The live streams now, in a list of their own (the registry may change while it is walked). */
    Collection<Http2Stream> all() {
        return streams.values();
    }

    boolean isEmpty() {
        return streams.isEmpty();
    }

    int lastPeerId() {
        return lastPeerId;
    }

    boolean localIdsExhausted() {
        return nextLocalId > MAX_STREAM_ID || nextLocalId < 0;
    }

    Http2Stream openLocal(long sendWindow, int receiveWindow, double creditRatio) {
        if (localIdsExhausted()) {
            throw new IllegalStateException("stream ids exhausted; open a new connection");
        }
        Http2Stream stream = new Http2Stream(nextLocalId, sendWindow, receiveWindow, creditRatio, this);
        nextLocalId += 2;
        streams.put(stream.id, stream);
        return stream;
    }

    /** A new stream the peer opens (HEADERS, or the promised id of a PUSH_PROMISE). */
    Http2Stream openPeer(int id, long sendWindow, int receiveWindow, double creditRatio) throws ConnectionError {
        if (id == 0 || role.initiates(id)) {
            throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "bad_stream_id");
        }
        if (id <= lastPeerId) {
            throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "stream_id_not_increasing");
        }
        lastPeerId = id;
        Http2Stream stream = new Http2Stream(id, sendWindow, receiveWindow, creditRatio, this);
        streams.put(id, stream);
        return stream;
    }

    /** True if {@code id} names a stream that was never opened (neither by us nor the peer). */
    boolean isIdle(int id) {
        return role.initiates(id) ? id >= nextLocalId : id > lastPeerId;
    }

    void forgetIfClosed(Http2Stream stream) {
        if (stream.state() == StreamState.CLOSED && streams.remove(stream.id) != null) {
            recentlyClosed.add(stream.id);
        }
    }

    /** We sent RST_STREAM on {@code id}. */
    void resetLocally(int id) {
        resetByUs.add(id);
    }

    /**
     * True for a stream that is gone and that we reset, one of the last {@link #RESET_BY_US_MAX}:
     * the peer may have sent frames on it before it saw our RST_STREAM.
     */
    boolean wasResetLocally(int id) {
        return !streams.containsKey(id) && !isIdle(id) && resetByUs.contains(id);
    }

    /** True for one of the last {@link #RECENTLY_CLOSED_MAX} streams that closed. */
    boolean wasRecentlyClosed(int id) {
        return recentlyClosed.contains(id);
    }

    /** Active streams opened by us ({@code local}) or by the peer: counted against SETTINGS_MAX_CONCURRENT_STREAMS. */
    int activeInitiatedBy(boolean local) {
        return local ? activeLocal : activePeer;
    }

    @Override
    public void activeChanged(int id, boolean active) {
        int change = active ? 1 : -1;
        if (role.initiates(id)) {
            activeLocal += change;
        } else {
            activePeer += change;
        }
    }
}
