package io.ringkv.cluster;

import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * For one hand-over run of a join: the digest buckets in which this node's records differ from a
 * key's first source, the owner that sends the joining node every record of the key in full
 * ({@link Cleanup#rule}). The other sources of a key send only the records of the buckets
 * listed here; in a bucket whose digests are equal, the first source holds the very versions this
 * node holds, and its own run sends them. So the joining node receives each record about once,
 * and a write the first source missed still reaches it from a source that has it.
 *
 * <p>Each first source's digest is asked for once per run, when the run meets its first key
 * ({@code GET /internal/v0/digest} under the factor, 8 KiB), and compared with this node's live
 * digest of the keys both own ({@link AntiEntropy#digestAgainst}). Where either digest cannot be
 * had (the source does not answer, this node's digest is of other owners or being rebuilt),
 * every bucket counts as differing, and this node sends all it would have sent without a first source.
 *
 * <p>A bucket equal at the moment of comparison stays right for the run: the first source holds
 * those versions or newer ones when its own scan reaches them, and every write made since
 * reaches the joining node itself (it is their pending replica).
 *
 * <p>Threading: one run's thread only.
 */
final class FirstSourceBuckets {
    private static final Logger LOG = LoggerFactory.getLogger(FirstSourceBuckets.class);

    /** This node's digest of the keys it and a peer both own, or null when it keeps none for those owners. */
    @FunctionalInterface
    interface OwnDigest {
        OwnDigest NONE = (peer, rf, placement) -> null;

        long[] against(ClusterNode peer, int rf, RendezvousPlacement placement);
    }

    private static final BitSet EVERY_BUCKET = every();
    /**
     * Asks for a first source's digest this many times before sending everything it sends too: a
     * source busy with the foreground load may shed or time out one call, and one failure doubled
     * what a replacement moved under load (every key of the source sent twice).
     */
    static final int DIGEST_ATTEMPTS = 3;
    private static final long DIGEST_RETRY_PAUSE_MILLIS = 500;

    private final ReplicaClient client;
    private final OwnDigest own;
    private final RendezvousPlacement placement;
    private final int rf;
    private final long answerMillis;
    private final Map<ClusterNode, BitSet> differing = new HashMap<>();

    FirstSourceBuckets(ReplicaClient client, OwnDigest own, RendezvousPlacement placement, int rf, long answerMillis) {
        this.client = client;
        this.own = own;
        this.placement = placement;
        this.rf = rf;
        this.answerMillis = answerMillis;
    }

    /** Whether {@code key}'s bucket may hold a version {@code firstSource} does not: this node then sends its copy. */
    boolean mayDiffer(ClusterNode firstSource, byte[] key) throws InterruptedException {
        BitSet buckets = differing.get(firstSource);
        if (buckets == null) {
            buckets = compare(firstSource);
            differing.put(firstSource, buckets);
        }
        return buckets.get(DigestBuckets.bucketOf(key));
    }

    private BitSet compare(ClusterNode firstSource) throws InterruptedException {
        long[] mine = own.against(firstSource, rf, placement);
        if (mine == null) {
            LOG.info("hand-over: no digest of this node's keys shared with {} (owners changed meanwhile); "
                    + "every record of the keys it sends first is sent from here too", firstSource);
            return EVERY_BUCKET;
        }
        Exception last = null;
        for (int attempt = 1; attempt <= DIGEST_ATTEMPTS; attempt++) {
            try {
                long[] theirs = client.digest(firstSource, rf).get(answerMillis, TimeUnit.MILLISECONDS);
                BitSet buckets = DigestBuckets.differing(mine, theirs);
                LOG.info("hand-over: {} of {} buckets differ from {}'s; only their records of the keys it sends first "
                        + "are sent from here", buckets.cardinality(), DigestBuckets.BUCKETS, firstSource);
                return buckets;
            } catch (ExecutionException | TimeoutException e) {
                last = e;
                if (attempt < DIGEST_ATTEMPTS) {
                    Thread.sleep(DIGEST_RETRY_PAUSE_MILLIS);
                }
            }
        }
        LOG.warn("hand-over: {}'s digest could not be read in {} attempts ({}); every record of the keys it sends "
                + "first is sent from here too", firstSource, DIGEST_ATTEMPTS, last.toString());
        return EVERY_BUCKET;
    }

    private static BitSet every() {
        BitSet all = new BitSet(DigestBuckets.BUCKETS);
        all.set(0, DigestBuckets.BUCKETS);
        return all;
    }
}
