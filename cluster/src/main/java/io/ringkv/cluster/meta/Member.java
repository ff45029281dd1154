package io.ringkv.cluster.meta;

import io.ringkv.cluster.ClusterNode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;

/**
 * One member of the cluster as the metadata records it.
 *
 * @param id    stable node id ({@link #idOf}), also its Raft peer id
 * @param url   the node's normalised base URL ({@link ClusterNode#id()})
 * @param state where it is in its life in the cluster
 */
public record Member(String id, String url, MemberState state) {

    /** Longest id or URL the format takes, in UTF-8 bytes. */
    public static final int TEXT_BYTES_MAX = 1024;

    public Member {
        Objects.requireNonNull(state, "state");
        requireText(id, "member id");
        requireText(url, "member url");
    }

    /**
     * The stable id of the node at {@code url}: {@code n} and 12 hex digits of SHA-256 over its
     * placement key. It depends on the node alone (not on its position in a list, which a join
     * would shift) and stays the same when the cluster turns TLS on, as placement does.
     */
    public static String idOf(ClusterNode node) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(node.placementKey().getBytes(StandardCharsets.UTF_8));
            return "n" + HexFormat.of().formatHex(digest, 0, 6);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every Java platform", e);
        }
    }

    public Member withState(MemberState next) {
        return new Member(id, url, next);
    }

    private static void requireText(String text, String what) {
        if (text == null || text.isEmpty()) {
            throw new IllegalArgumentException(what + " must not be empty");
        }
        if (text.getBytes(StandardCharsets.UTF_8).length > TEXT_BYTES_MAX) {
            throw new IllegalArgumentException(what + " is longer than " + TEXT_BYTES_MAX + " bytes");
        }
    }
}
