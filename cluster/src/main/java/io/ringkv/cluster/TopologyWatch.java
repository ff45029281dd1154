package io.ringkv.cluster;

import io.ringkv.http.LogText;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Remembers the last sign that a peer routes with another node list: a request from it carrying
 * another topology fingerprint, or its {@code 409} to one of ours. The node's status reports it,
 * and the log says it once a minute at most.
 *
 * <p>Threading: thread-safe (one atomic reference).
 */
public final class TopologyWatch {
    private static final Logger LOG = LoggerFactory.getLogger(TopologyWatch.class);

    private final String ours;
    private final RateLimitedLog log = new RateLimitedLog(60_000);
    private final AtomicReference<String> last = new AtomicReference<>();

    public TopologyWatch(String ourFingerprint) {
        this.ours = ourFingerprint;
    }

    /**
     * @param peer   the peer's id, as its request named it (so escaped: it is the sender's text)
     * @param theirs the peer's fingerprint, or null when it is not known (a 409 answer)
     */
    void mismatch(String peer, String theirs) {
        String description = "topology mismatch with " + LogText.escape(peer) + " (its node list "
                + (theirs == null ? "differs" : "has fingerprint " + LogText.escape(theirs)) + ", ours " + ours + ") at "
                + Instant.now();
        last.set(description);
        if (log.allow(peer)) {
            LOG.error("{}: every node must be started with the same --cluster list", description);
        }
    }

    /** The last mismatch seen, for the node's status. */
    public Optional<String> lastMismatch() {
        return Optional.ofNullable(last.get());
    }
}
