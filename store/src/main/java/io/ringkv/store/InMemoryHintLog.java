package io.ringkv.store;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@link HintLog} on the heap, for {@link InMemoryStorageEngine}: same contract, nothing durable.
 *
 * <p>Threading: thread-safe; one concurrent sorted map per target.
 */
final class InMemoryHintLog implements HintLog {
    private final AtomicLong lastSequence = new AtomicLong();
    private final Map<String, ConcurrentSkipListMap<Long, Hint>> byTarget = new ConcurrentHashMap<>();

    @Override
    public Hint add(String target, byte[] key, Record record, long nowMillis) {
        Hint hint = new Hint(target, lastSequence.incrementAndGet(), nowMillis, key.clone(), record);
        byTarget.computeIfAbsent(target, t -> new ConcurrentSkipListMap<>()).put(hint.sequence(), hint);
        return hint;
    }

    @Override
    public List<Hint> oldest(String target, int limit) {
        List<Hint> hints = new ArrayList<>();
        ConcurrentSkipListMap<Long, Hint> queue = byTarget.get(target);
        if (queue != null) {
            for (Hint hint : queue.values()) {
                if (hints.size() >= limit) {
                    break;
                }
                hints.add(hint);
            }
        }
        return hints;
    }

    @Override
    public void remove(List<Hint> hints) {
        for (Hint hint : hints) {
            ConcurrentSkipListMap<Long, Hint> queue = byTarget.get(hint.target());
            if (queue != null) {
                queue.remove(hint.sequence());
            }
        }
    }

    @Override
    public long count(String target) {
        ConcurrentSkipListMap<Long, Hint> queue = byTarget.get(target);
        return queue == null ? 0 : queue.size();
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
}
