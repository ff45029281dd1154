package io.ringkv.cluster;

import java.util.Base64;

/**
 * Names and encodings of the node-to-node protocol (see docs/cluster.md). Both sides use these
 * constants, so a name is spelled once.
 *
 * <p>Keys in a query (a range's bounds) travel base64url-encoded (RFC 4648 §5, no padding), so
 * binary keys are unambiguous and no percent-decoding rule (e.g. {@code +} as space) can alter
 * them; records travel in bodies, framed by {@link RecordFrames}.
 */
public final class InternalProtocol {

    /** Every internal endpoint lives under this prefix; it must be firewalled from clients. */
    public static final String PREFIX = "/internal/";
    public static final String RANGE_PATH = "/internal/v0/range";
    /**
     * PUT writes, any key order, one answer per write ({@link WriteBatchCodec}): every write from
     * one node to another, a coordinator's, a read repair, a replayed hint, a pushed repair or
     * hand-over.
     */
    public static final String WRITES_PATH = "/internal/v0/writes";
    /**
     * The most bytes a batch of one write carries besides its value: the end marker, the frame's
     * fields and a key of up to 16 KiB less those (the public API takes keys of 4 KiB). A node takes
     * write batches up to its {@code --max-body} plus this, so that any value its public API took
     * reaches every replica, alone in a batch if it must.
     */
    public static final int ONE_WRITE_ENVELOPE_BYTES = 16 * 1024;

    /**
     * The request body limit a node's server needs when its public API takes bodies of up to
     * {@code publicBodyBytesMax} ({@code --max-body}): that plus {@link #ONE_WRITE_ENVELOPE_BYTES}.
     */
    public static long serverBodyBytesMax(long publicBodyBytesMax) {
        long sum = publicBodyBytesMax + ONE_WRITE_ENVELOPE_BYTES;
        return sum < 0 ? Long.MAX_VALUE : sum;
    }
    /** POST keys to read, one answer per key ({@link ReadBatchCodec}): every read from one node of another's records. */
    public static final String READS_PATH = "/internal/v0/reads";
    /** GET this node's anti-entropy digest: {@link DigestBuckets#BUCKETS} big-endian longs. */
    public static final String DIGEST_PATH = "/internal/v0/digest";
    /**
     * GET the versions (no values) of this node's keys in the digest buckets named by
     * {@link #BUCKETS_PARAM}, streamed; POST a batch of keys ({@link ReadBatchCodec}'s request) for the
     * version of each, in one answer ({@link ReadBatchCodec}'s, each record a version:
     * {@link BucketVersionStream#versionOf}).
     */
    public static final String VERSIONS_PATH = "/internal/v0/versions";
    public static final String BUCKETS_PARAM = "buckets";
    /**
     * On {@link #DIGEST_PATH} and {@link #VERSIONS_PATH}: the requesting node's replication factor;
     * the answer then covers only the keys the requester and this node both own under it. Without
     * it, every key this node holds (what a node before replication factors asked for).
     */
    public static final String RF_PARAM = "rf";
    /** POST starts an anti-entropy round on this node; GET reports its progress (JSON). */
    public static final String REPAIR_PATH = "/internal/v0/repair";
    /** POST starts a cleanup on this node ({@link Cleanup}); GET reports its progress (JSON). */
    public static final String CLEANUP_PATH = "/internal/v0/cleanup";
    /** GET this node's wall clock, epoch millis as decimal text ({@link ClockCheck}). */
    public static final String TIME_PATH = "/internal/v0/time";
    /** A compare-and-set's prepare round for one key ({@link PaxosMessages}). */
    public static final String PAXOS_PREPARE_PATH = "/internal/v0/paxos/prepare";
    /** A compare-and-set's accept round for one key ({@link PaxosMessages}). */
    public static final String PAXOS_ACCEPT_PATH = "/internal/v0/paxos/accept";
    /** POST a Raft call of the metadata group: {@code /internal/v0/raft/<op>}, a Ratis protobuf each way. */
    public static final String RAFT_PREFIX = "/internal/v0/raft/";
    /** Admin requests to the metadata group through this node ({@code ringkv meta}). */
    public static final String META_PREFIX = "/internal/v0/meta/";
    /** POST a new replication factor (decimal text). */
    public static final String META_REPLICATION_FACTOR_PATH = "/internal/v0/meta/replication-factor";
    /** A node asks to join ({@code POST}, body = its URL, which must be the signed sender): the metadata after, encoded. */
    public static final String META_JOIN_PATH = "/internal/v0/meta/join";
    /** A member's state moves ({@code POST}, body = {@code ID STATE}): the metadata after, encoded. */
    public static final String META_MEMBER_STATE_PATH = "/internal/v0/meta/member-state";
    /** A new member takes a dead one's place ({@code POST}, body = {@code DEAD_ID NEW_URL}): the metadata after, encoded. */
    public static final String META_REPLACE_PATH = "/internal/v0/meta/replace";
    /** The metadata as the leader has it ({@code GET}), encoded: how a member outside the Raft group follows it. */
    public static final String META_READ_PATH = "/internal/v0/meta/metadata";
    /** Membership work this node runs itself ({@code /internal/v0/membership/...}): its decommission, its join's progress. */
    public static final String MEMBERSHIP_PREFIX = "/internal/v0/membership/";
    /** {@code POST}: this node starts leaving the cluster (202); {@code GET}: how far it got. */
    public static final String DECOMMISSION_PATH = "/internal/v0/membership/decommission";
    /** {@code POST}: this node rolls back its decommission (back to normal) or its join (to left). */
    public static final String MEMBERSHIP_ABORT_PATH = "/internal/v0/membership/abort";

    public static final String START_PARAM = "start";
    public static final String END_PARAM = "end";

    /**
     * The sender's cluster metadata epoch, on every internal request a node sends but its Raft
     * calls (the ones that carry the log cannot wait for it), and this node's on every answer to
     * one: 1 to {@value #EPOCH_DIGITS_MAX} decimal digits. Covered by the request's and the
     * answer's proofs like every {@code X-Ringkv-*} field, so it can be neither forged nor changed
     * in transit. A receiver behind catches up before it answers ({@link EpochGate}); a sender
     * that hears a newer one catches up after ({@link MetadataCatchUp}).
     */
    public static final String EPOCH_HEADER = "X-Ringkv-Epoch";
    /** Digits an epoch may have: every value fits a long, and none takes a parser long to refuse. */
    public static final int EPOCH_DIGITS_MAX = 18;

    private static final Base64.Encoder KEY_ENCODER = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder KEY_DECODER = Base64.getUrlDecoder();

    private InternalProtocol() {
    }

    public static String encodeKey(byte[] key) {
        return KEY_ENCODER.encodeToString(key);
    }

    /** @throws IllegalArgumentException when {@code encoded} is not base64url */
    public static byte[] decodeKey(String encoded) {
        return KEY_DECODER.decode(encoded);
    }

    /** @throws IllegalArgumentException unless {@code text} is 1 to {@link #EPOCH_DIGITS_MAX} ASCII digits */
    public static long parseEpoch(String text) {
        if (text.isEmpty() || text.length() > EPOCH_DIGITS_MAX || !text.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalArgumentException("malformed " + EPOCH_HEADER + " (1 to " + EPOCH_DIGITS_MAX
                    + " decimal digits): " + io.ringkv.http.LogText.escape(text));
        }
        return Long.parseLong(text);
    }
}
