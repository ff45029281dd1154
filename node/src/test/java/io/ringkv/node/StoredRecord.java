package io.ringkv.node;

import io.ringkv.cluster.ClusterSecret;
import io.ringkv.cluster.InternalAuth;
import io.ringkv.cluster.InternalProtocol;
import io.ringkv.cluster.RecordFrames;
import io.ringkv.ops.JsonText;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What one node process stores for a key: read through the internal read batch endpoint (signed with
 * the cluster secret), which shows tombstones and expired records and repairs nothing, unlike a
 * public read.
 */
final class StoredRecord {
    static final String TOMBSTONE = "tombstone";
    static final String VALUE = "value";

    /**
     * One node's copy of a key.
     *
     * @param expiresAtMillis the record's expiry, empty for one that never expires
     */
    record Copy(boolean tombstone, long timestamp, OptionalLong expiresAtMillis) {
    }

    private StoredRecord() {
    }

    /** Empty when the node holds no record of the key, else {@link #TOMBSTONE} or {@link #VALUE}. */
    static Optional<String> of(ProcessCluster cluster, int node, String key) {
        return copy(cluster, node, key).map(copy -> copy.tombstone() ? TOMBSTONE : VALUE);
    }

    /** The node's record of the key with its timestamp and expiry; empty when it holds none. */
    static Optional<Copy> copy(ProcessCluster cluster, int node, String key) {
        try {
            byte[] keyBytes = key.getBytes(StandardCharsets.UTF_8);
            // A read batch of one key, signed as a peer would; the answer's entry is read by hand
            // (docs/cluster.md: byte 0 absent, byte 1 then the record as in a record frame).
            ByteBuffer request = ByteBuffer.allocate(2 * Integer.BYTES + keyBytes.length);
            request.putInt(keyBytes.length).put(keyBytes).putInt(-1);
            byte[] body = request.array();
            String target = InternalProtocol.READS_PATH;
            InternalAuth auth = new InternalAuth(ClusterSecret.fromFile(cluster.secretFile()), "record-reader",
                    topology(cluster, node), System::currentTimeMillis);
            RawHttp.Reply reply = RawHttp.send(cluster.port(node), "POST", target, auth.sign(cluster.url(node), "POST", target, Map.of(), body),
                    body);
            if (reply.status() != 200) {
                throw new AssertionError("node-" + node + " answered " + reply.status() + " to " + target);
            }
            ByteBuffer answer = ByteBuffer.wrap(reply.body());
            int kind = answer.get();
            if (kind == 0) {
                return Optional.empty();
            }
            if (kind != 1) {
                throw new AssertionError("node-" + node + " answered a read of one key with entry kind " + kind);
            }
            long timestamp = answer.getLong();
            int flags = answer.get();
            OptionalLong expires = (flags & RecordFrames.FLAG_EXPIRES) != 0 ? OptionalLong.of(answer.getLong()) : OptionalLong.empty();
            return Optional.of(new Copy((flags & RecordFrames.FLAG_TOMBSTONE) != 0, timestamp, expires));
        } catch (Exception e) {
            throw new AssertionError("cannot read node-" + node + "'s record of " + key, e);
        }
    }

    /** The node's topology fingerprint, from its status: internal requests must name it. */
    private static String topology(ProcessCluster cluster, int node) throws Exception {
        String status = new String(RawHttp.get(cluster.port(node), "/v0/status").body(), StandardCharsets.UTF_8);
        return JsonText.stringField(status, "topology")
                .orElseThrow(() -> new AssertionError("no topology in the status of node-" + node + ": " + status));
    }
}
