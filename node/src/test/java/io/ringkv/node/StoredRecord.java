package io.ringkv.node;

import io.ringkv.cluster.ClusterSecret;
import io.ringkv.cluster.InternalAuth;
import io.ringkv.cluster.InternalProtocol;
import io.ringkv.ops.JsonText;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What one node process stores for a key: read through the internal record endpoint (signed with
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
            String encoded = Base64.getUrlEncoder().withoutPadding().encodeToString(key.getBytes(StandardCharsets.UTF_8));
            String target = InternalProtocol.RECORD_PATH + "?key=" + encoded;
            InternalAuth auth = new InternalAuth(ClusterSecret.fromFile(cluster.secretFile()), "record-reader",
                    topology(cluster, node), System::currentTimeMillis);
            RawHttp.Reply reply = RawHttp.send(cluster.port(node), "GET", target, auth.sign(cluster.url(node), "GET", target, Map.of(), new byte[0]),
                    new byte[0]);
            if (reply.status() == 404) {
                return Optional.empty();
            }
            if (reply.status() != 200) {
                throw new AssertionError("node-" + node + " answered " + reply.status() + " to " + target);
            }
            String expires = reply.headers().get(InternalProtocol.EXPIRES_HEADER.toLowerCase(java.util.Locale.ROOT));
            return Optional.of(new Copy("true".equals(reply.headers().get("x-ringkv-tombstone")),
                    Long.parseLong(reply.headers().get("x-ringkv-timestamp")),
                    expires == null ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(expires))));
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
