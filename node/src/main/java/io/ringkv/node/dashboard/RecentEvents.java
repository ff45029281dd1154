package io.ringkv.node.dashboard;

import io.ringkv.cluster.ClusterNode;
import io.ringkv.cluster.PeerHealth;
import io.ringkv.cluster.ReplicaCallListener;
import io.ringkv.http.server.ExchangeListener;
import io.ringkv.ops.JsonText;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The latest errors this node saw, for the dashboard: {@code 5xx} answers of its handler, failed
 * replica calls of its coordinator, and peers going down (and coming back). Bounded: the
 * {@value #CAPACITY} most recent distinct events, where events of the same kind, subject and
 * detail are one entry with a count and the time of the latest, so a peer that refuses a thousand
 * calls a second takes one line, not the whole buffer.
 *
 * <p>Threading: thread-safe; {@link #record} takes this object's lock, briefly. The listeners it
 * hands out cost nothing on success (a comparison) and record only failures, so the lock is never
 * on the path of a request that went well.
 */
public final class RecentEvents {

    /** Distinct events kept. */
    static final int CAPACITY = 64;
    /** Longer details are cut: an event is a line on a screen, not a stack trace. */
    static final int DETAIL_CHARS_MAX = 300;

    static final String SERVER_ERROR = "server-error";
    static final String REPLICA_CALL_FAILED = "replica-call-failed";
    static final String PEER_DOWN = "peer-down";
    static final String PEER_UP = "peer-up";
    private static final String STATUS_PATH = "/v0/status";

    /**
     * One entry.
     *
     * @param atMillis wall-clock millis of the latest occurrence
     * @param count    occurrences since the entry was made
     */
    record Event(long atMillis, String kind, String subject, String detail, long count) {
    }

    private record Key(String kind, String subject, String detail) {
    }

    /** Entries, oldest first: a repeat moves its entry to the end. Guarded by {@code this}. */
    private final LinkedHashMap<Key, Event> events = new LinkedHashMap<>();
    private final LongSupplier wallMillis;

    public RecentEvents(LongSupplier wallMillis) {
        this.wallMillis = wallMillis;
    }

    synchronized void record(String kind, String subject, String detail) {
        String cut = detail.length() > DETAIL_CHARS_MAX ? detail.substring(0, DETAIL_CHARS_MAX) + "…" : detail;
        Key key = new Key(kind, subject, cut);
        Event previous = events.remove(key);
        events.put(key, new Event(wallMillis.getAsLong(), kind, subject, cut, previous == null ? 1 : previous.count() + 1));
        if (events.size() > CAPACITY) {
            events.pollFirstEntry();
        }
    }

    /** Every entry, the latest first. */
    synchronized List<Event> latest() {
        return new ArrayList<>(events.sequencedValues().reversed());
    }

    /**
     * For the server: records every answer of {@code 500} or above, as method and path (never the
     * query: it holds keys); but not the status endpoint's {@code 503}, which says "starting" or
     * "stopping" as designed, and which the dashboard shows as the node's health.
     */
    public ExchangeListener serverErrors() {
        return (request, status, elapsedNanos) -> {
            if (status >= 500 && !request.path().equals(STATUS_PATH)) {
                record(SERVER_ERROR, request.method() + " " + request.path(), "status " + status);
            }
        };
    }

    /** For the coordinator: records every failed call to a remote replica. */
    public ReplicaCallListener replicaCallFailures() {
        return (peer, elapsedNanos, failure) -> {
            if (failure != null) {
                record(REPLICA_CALL_FAILED, peer.id(), describe(failure));
            }
        };
    }

    /** For peer health: a peer going down, and coming back after it was down (not its first answer at start). */
    public PeerHealth.StateListener peerChanges() {
        return (ClusterNode peer, PeerHealth.State from, PeerHealth.State to, String why) -> {
            if (to == PeerHealth.State.DOWN) {
                record(PEER_DOWN, peer.id(), why == null ? "" : unwrapped(why));
            } else if (to == PeerHealth.State.UP && from == PeerHealth.State.DOWN) {
                record(PEER_UP, peer.id(), "answers again");
            }
        };
    }

    /** Peer health names failures as the future reported them; the wrapper says nothing. */
    private static String unwrapped(String why) {
        String wrapper = CompletionException.class.getName() + ": ";
        return why.startsWith(wrapper) ? why.substring(wrapper.length()) : why;
    }

    private static String describe(Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        return cause.getMessage() == null ? cause.getClass().getSimpleName()
                : cause.getClass().getSimpleName() + ": " + cause.getMessage();
    }

    /**
     * Entries as a JSON array, the latest first, each
     * {@code {"at":millis,"kind":"...","subject":"...","detail":"...","count":n}} (fields always in
     * this order: {@link #parse} relies on it).
     */
    static String toJson(List<Event> events) {
        StringBuilder out = new StringBuilder(64 + events.size() * 128).append('[');
        for (int i = 0; i < events.size(); i++) {
            Event event = events.get(i);
            out.append(i == 0 ? "" : ",")
                    .append("{\"at\":").append(event.atMillis())
                    .append(",\"kind\":").append(JsonText.string(event.kind()))
                    .append(",\"subject\":").append(JsonText.string(event.subject()))
                    .append(",\"detail\":").append(JsonText.string(event.detail()))
                    .append(",\"count\":").append(event.count())
                    .append('}');
        }
        return out.append(']').toString();
    }

    private static final String STRING = "\"((?:[^\"\\\\]|\\\\.)*)\"";
    private static final Pattern EVENT = Pattern.compile("\\{\"at\":(\\d{1,18}),\"kind\":" + STRING + ",\"subject\":" + STRING
            + ",\"detail\":" + STRING + ",\"count\":(\\d{1,18})}");

    /**
     * The events in JSON that {@link #toJson} wrote (a peer's {@code /ui/api/events}); what does
     * not match that shape is skipped, so a peer of another version shows fewer events, never
     * breaks the page.
     */
    static List<Event> parse(String json) {
        List<Event> events = new ArrayList<>();
        Matcher m = EVENT.matcher(json);
        while (m.find() && events.size() < CAPACITY) {
            try {
                events.add(new Event(Long.parseLong(m.group(1)), JsonText.unescape(m.group(2)), JsonText.unescape(m.group(3)),
                        JsonText.unescape(m.group(4)), Long.parseLong(m.group(5))));
            } catch (IllegalArgumentException malformedEscape) { // a backslash-u escape without four hex digits
                // skipped, as any other event that is not what we write
            }
        }
        return events;
    }
}
