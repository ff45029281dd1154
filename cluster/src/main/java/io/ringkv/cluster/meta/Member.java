package io.ringkv.cluster.meta;

import io.ringkv.cluster.ClusterNode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;

/**
 * One member of the cluster as the metadata records it.
 *
 * @param id    stable node id ({@link #idOf}), also its Raft peer id
 * @param url   the node's normalised base URL ({@link ClusterNode#id()})
 * @param state where it is in its life in the cluster
 * @param index the node's slot in hybrid-logical-clock timestamps, 0..{@link #INDEX_MAX} (4 bits);
 *              unique among the members that have not left ({@link ClusterMetadata} checks that)
 * @param replacing the id of the member this joining one takes the place of, or null (never empty)
 */
public record Member(String id, String url, MemberState state, int index, String replacing) {

    /** Longest id or URL the format takes, in UTF-8 bytes. */
    public static final int TEXT_BYTES_MAX = 1024;
    /** The highest clock slot (15): a timestamp carries the index in 4 bits. */
    public static final int INDEX_MAX = io.ringkv.store.HybridLogicalClock.NODE_MAX;

    public Member {
        Objects.requireNonNull(state, "state");
        requireText(id, "member id");
        requireText(url, "member url");
        if (index < 0 || index > INDEX_MAX) {
            throw new IllegalArgumentException("member index " + index + " is outside 0.." + INDEX_MAX);
        }
        if (replacing != null) {
            // Empty and absent must not be two spellings of "none": the codec writes none as length 0.
            requireText(replacing, "the id of the member replaced");
            if (replacing.equals(id)) {
                throw new IllegalArgumentException("member " + id + " cannot replace itself");
            }
        }
    }

    /**
     * The initial members of a cluster as the metadata records them: NORMAL, each with its index
     * the position of its URL among the URLs sorted as strings. Running nodes already stamp their
     * timestamps with that position ({@link io.ringkv.cluster.ClusterNodes#indexOfSelf}), so the
     * metadata agrees with the clocks of a cluster formed before the metadata had indexes.
     *
     * @param nodes at most {@link #INDEX_MAX} + 1 nodes, URLs distinct
     */
    public static List<Member> initial(List<ClusterNode> nodes) {
        return indexedByUrl(nodes.stream().map(node -> new Member(idOf(node), node.id(), MemberState.NORMAL, 0, null)).toList());
    }

    /**
     * {@code members} with each one's index set to the position of its URL among their URLs sorted
     * as strings: the initial members' indexes ({@link #initial}), also given to the members of
     * metadata stored before it had indexes. Equal URLs get equal indexes, which the metadata refuses.
     */
    static List<Member> indexedByUrl(List<Member> members) {
        List<String> urls = members.stream().map(Member::url).sorted(Comparator.naturalOrder()).toList();
        return members.stream().map(member -> member.withIndex(urls.indexOf(member.url()))).toList();
    }

    /**
     * The stable id of the node at {@code url}: {@code n} and 12 hex digits of SHA-256 over its
     * placement key. It depends on the node alone (not on its position in a list, which a join
     * would shift), and leaves the scheme aside, as placement does.
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
        return new Member(id, url, next, index, replacing);
    }

    public Member withIndex(int next) {
        return new Member(id, url, state, next, replacing);
    }

    public Member withReplacing(String next) {
        return new Member(id, url, state, index, next);
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
