package io.ringkv.cluster;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Internal answers refused for want of a valid proof ({@link AnswerAuth}): counted per peer and
 * logged at most once a minute per peer. Such an answer was forged or changed on the way, or
 * comes from a node with another secret; the caller treats it as the peer failing, never as data.
 *
 * <p>Thread-safe.
 */
final class RejectedAnswers {

    private static final Logger LOG = LoggerFactory.getLogger(RejectedAnswers.class);

    private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();
    private final RateLimitedLog log = new RateLimitedLog(60_000);

    /** Counts and logs the refusal; the exception to fail the call with. */
    ReplicaException reject(ClusterNode node, String what) {
        counts.computeIfAbsent(node.id(), id -> new LongAdder()).increment();
        if (log.allow(node.id())) {
            LOG.warn("refused an answer from {}: {} carries no valid proof of the cluster secret (changed on the way, "
                    + "or the peer has another secret); counted as the peer failing", node.id(), what);
        }
        return new ReplicaException(node, what + " carries no valid proof of the cluster secret");
    }

    /** Refused answers so far, per peer id; peers never refused are absent. */
    Map<String, Long> counts() {
        Map<String, Long> snapshot = new java.util.TreeMap<>();
        counts.forEach((peer, count) -> snapshot.put(peer, count.sum()));
        return snapshot;
    }
}
