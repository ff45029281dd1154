package io.ringkv.store;

/**
 * A write that one replica missed, kept by the coordinator until that replica takes it.
 *
 * @param target        the replica it is for (the node's canonical URL)
 * @param sequence      orders a target's hints by creation; unique per store
 * @param createdMillis wall-clock time the hint was stored, for the age bound
 * @param key           the record's key
 * @param record        the record exactly as the coordinator sent it (same timestamp)
 */
public record Hint(String target, long sequence, long createdMillis, byte[] key, Record record) {

    /**
     * What a hint weighs against the byte bounds of {@link HintLog}: its key and value bytes. The
     * few bytes of framing a log adds are left out, so the measure is the same in every log.
     */
    public long sizeBytes() {
        return sizeBytes(key, record);
    }

    /** As {@link #sizeBytes()}, for a hint not yet made. */
    public static long sizeBytes(byte[] key, Record record) {
        return (long) key.length + record.value().length;
    }
}
