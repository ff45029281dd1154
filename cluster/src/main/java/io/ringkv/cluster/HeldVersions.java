package io.ringkv.cluster;

import io.ringkv.store.Record;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which records their owners already hold: for each owner, its version of each key is asked for
 * ({@code POST /internal/v0/versions}, {@link ReplicaClient#versionsOf}, about 20 bytes a key each
 * way, in batches a read batch's bounds allow), and a record counts as held where the owner's
 * version is the same or newer ({@link BucketVersionStream#newerVersion}). Every owner is asked at
 * once; the answers are awaited together, within one wait. An owner that does not answer in time
 * or fails the call (down, busy, a node without the call) holds nothing as far as the caller
 * knows: its records are then sent to it as before the check. Such an owner is logged once per
 * instance.
 *
 * <p>Threading: one thread only (a cleanup run's).
 */
final class HeldVersions {
    private static final Logger LOG = LoggerFactory.getLogger(HeldVersions.class);

    private final ReplicaClient client;
    private final Duration answerWait;
    private final Set<ClusterNode> unanswered = new HashSet<>();

    /** @param answerWait how long the answers of one {@link #ask} may take, all owners together */
    HeldVersions(ReplicaClient client, Duration answerWait) {
        this.client = client;
        this.answerWait = answerWait;
    }

    /** A key and the record of it the caller holds. */
    record Copy(byte[] key, Record record) {
    }

    /**
     * @param byOwner per owner, the copies to ask it about
     * @return per owner that answered, the positions in its list whose version (or a newer one) it
     *         holds; an owner whose answer failed is absent
     */
    Map<ClusterNode, BitSet> ask(Map<ClusterNode, List<Copy>> byOwner) throws InterruptedException {
        Map<ClusterNode, List<CompletableFuture<List<ReadBatchCodec.Answer>>>> asked = new LinkedHashMap<>();
        byOwner.forEach((owner, copies) -> {
            List<CompletableFuture<List<ReadBatchCodec.Answer>>> answers = new ArrayList<>();
            for (List<Copy> batch : batches(copies)) {
                answers.add(client.versionsOf(owner, batch.stream().map(Copy::key).toList()));
            }
            asked.put(owner, answers);
        });
        long deadline = System.nanoTime() + answerWait.toNanos();
        Map<ClusterNode, BitSet> held = new LinkedHashMap<>();
        for (Map.Entry<ClusterNode, List<CompletableFuture<List<ReadBatchCodec.Answer>>>> owner : asked.entrySet()) {
            List<Copy> copies = byOwner.get(owner.getKey());
            BitSet holds = new BitSet(copies.size());
            int at = 0;
            try {
                for (CompletableFuture<List<ReadBatchCodec.Answer>> batch : owner.getValue()) {
                    for (ReadBatchCodec.Answer answer : batch.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                        Record theirs = answer.record();
                        if (theirs != null && !BucketVersionStream.newerVersion(copies.get(at).record(), theirs)) {
                            holds.set(at);
                        }
                        at++;
                    }
                }
                held.put(owner.getKey(), holds);
            } catch (ExecutionException | TimeoutException e) {
                owner.getValue().forEach(batch -> batch.cancel(false));
                if (unanswered.add(owner.getKey())) {
                    LOG.info("cleanup: {} did not say which versions it holds ({}); its records are sent to it instead "
                            + "(logged once per run)", owner.getKey(), e.toString());
                }
            }
        }
        return held;
    }

    /**
     * Copies split into requests an owner takes, in order: {@link ReadBatchCodec}'s key and byte
     * bounds, and the peers' body limit, as {@link PeerReadBatcher} keeps them (a key too large for
     * a batch goes alone, and its owner, refusing it, is sent the records).
     */
    private List<List<Copy>> batches(List<Copy> copies) {
        long bytesMax = Math.min(ReadBatchCodec.BYTES_MAX, client.batchBodyBytesMax());
        List<List<Copy>> batches = new ArrayList<>();
        List<Copy> batch = new ArrayList<>();
        long bytes = ReadBatchCodec.END_MARKER_BYTES;
        for (Copy copy : copies) {
            int keyBytes = ReadBatchCodec.keyBytes(copy.key());
            if (!batch.isEmpty() && (batch.size() == ReadBatchCodec.KEYS_MAX || bytes + keyBytes > bytesMax)) {
                batches.add(batch);
                batch = new ArrayList<>();
                bytes = ReadBatchCodec.END_MARKER_BYTES;
            }
            batch.add(copy);
            bytes += keyBytes;
        }
        if (!batch.isEmpty()) {
            batches.add(batch);
        }
        return batches;
    }
}
