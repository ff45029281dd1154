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
}
