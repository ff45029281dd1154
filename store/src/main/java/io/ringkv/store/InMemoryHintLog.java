package io.ringkv.store;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@link HintLog} on the heap, for {@link InMemoryStorageEngine}: same contract, nothing durable
 * (and nothing to decode, so nothing is ever corrupt).
 *
 * <p>Threading: thread-safe; one concurrent sorted map per target, and a byte total beside it,
 * adjusted after the map changed.
 */
final class InMemoryHintLog implements HintLog {
    private final AtomicLong lastSequence = new AtomicLong();
    private final Map<String, ConcurrentSkipListMap<Long, Hint>> byTarget = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> bytesByTarget = new ConcurrentHashMap<>();

    @Override
    public Hint add(String target, byte[] key, Record record, long nowMillis) {
        Hint hint = new Hint(target, lastSequence.incrementAndGet(), nowMillis, key.clone(), record);
        byTarget.computeIfAbsent(target, t -> new ConcurrentSkipListMap<>()).put(hint.sequence(), hint);
        bytesOf(target).addAndGet(hint.sizeBytes());
        return hint;
    }

    @Override
    public List<Hint> oldest(String target, int limit, long bytesMax) {
        List<Hint> hints = new ArrayList<>();
        ConcurrentSkipListMap<Long, Hint> queue = byTarget.get(target);
        if (queue != null) {
            long bytes = 0;
            for (Hint hint : queue.values()) {
                if (hints.size() >= limit || (!hints.isEmpty() && bytes + hint.sizeBytes() > bytesMax)) {
                    break;
                }
                hints.add(hint);
                bytes += hint.sizeBytes();
            }
        }
        return hints;
    }

    @Override
    public void remove(List<Hint> hints) {
        for (Hint hint : hints) {
            ConcurrentSkipListMap<Long, Hint> queue = byTarget.get(hint.target());
            if (queue != null && queue.remove(hint.sequence()) != null) {
                bytesOf(hint.target()).addAndGet(-hint.sizeBytes());
            }
        }
    }

    @Override
    public long count(String target) {
        ConcurrentSkipListMap<Long, Hint> queue = byTarget.get(target);
        return queue == null ? 0 : queue.size();
    }

    @Override
    public long bytes(String target) {
        AtomicLong bytes = bytesByTarget.get(target);
        return bytes == null ? 0 : bytes.get();
    }

    @Override
    public Map<String, Long> counts() {
        Map<String, Long> counts = new TreeMap<>();
        byTarget.forEach((target, queue) -> {
            int size = queue.size();
            if (size > 0) {
                counts.put(target, (long) size);
            }
        });
        return counts;
    }

    @Override
    public long corruptSkipped() {
        return 0;
    }

    private AtomicLong bytesOf(String target) {
        return bytesByTarget.computeIfAbsent(target, t -> new AtomicLong());
    }
}
