package io.ringkv.cluster;

/**
 * What a coordinator's batches to one peer carried since the node started ({@link PeerBatcher}):
 * requests sent and the calls in them, for writes and for reads. Calls over batches is the mean
 * batch size: about 1 at low load, growing with the load.
 *
 * @param peer   the peer's node id
 * @param writes batches of writes ({@link InternalProtocol#WRITES_PATH}) and the writes they carried
 * @param reads  batches of reads ({@link InternalProtocol#READS_PATH}) and the reads they carried
 */
public record PeerBatches(String peer, Counts writes, Counts reads) {

    /** @param batches requests sent; {@code calls} the calls they carried */
    public record Counts(long batches, long calls) {
    }
}
