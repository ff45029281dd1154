package io.ringkv.cluster.meta;

import java.util.Locale;

/**
 * Where a member is in its life in the cluster. A cluster forms with every member {@link #NORMAL};
 * {@link ClusterMetadata#apply} moves one member at a time through a join (JOINING, NORMAL) or a
 * decommission (NORMAL, LEAVING, LEFT), either of which may be aborted.
 */
public enum MemberState {
    /** Asked to join; will own keys once it has streamed them. */
    JOINING,
    /** A full member. */
    NORMAL,
    /** Streaming what it owns to others before it leaves. */
    LEAVING,
    /**
     * Gone; kept as a record. Its index is free for the next member, and a member joining later
     * under its id or URL takes the place of its entry.
     */
    LEFT;

    /** The name in JSON and on the command line: lower case. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The state with this code in the binary format ({@link #ordinal()}); the codes never change order. */
    static MemberState ofCode(int code) throws CorruptMetadataException {
        MemberState[] all = values();
        if (code < 0 || code >= all.length) {
            throw new CorruptMetadataException("unknown member state code " + code);
        }
        return all[code];
    }
}
