package io.ringkv.cluster.meta;

import java.util.Locale;

/**
 * Where a member is in its life in the cluster. Stage 1 of issue 33 forms every member
 * {@link #NORMAL}; the other states are kept in the log so that joining and leaving (later stages)
 * need no change of format.
 */
public enum MemberState {
    /** Asked to join; will own keys once it has streamed them. */
    JOINING,
    /** A full member. */
    NORMAL,
    /** Streaming what it owns to others before it leaves. */
    LEAVING,
    /** Gone; kept so that its id is never reused by accident. */
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
