package io.ringkv.store;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;

/** {@link PaxosStateLog} in memory, for {@link InMemoryStorageEngine}. Thread-safe. */
final class InMemoryPaxosStateLog implements PaxosStateLog {
    /** Keys in the unsigned byte order RocksDB's default comparator uses, so pages come in the same order. */
    private final ConcurrentSkipListMap<byte[], PaxosState> states = new ConcurrentSkipListMap<>(Arrays::compareUnsigned);

    @Override
    public PaxosState get(byte[] key) {
        return states.getOrDefault(key, PaxosState.EMPTY);
    }

    @Override
    public void put(byte[] key, PaxosState state) {
        states.put(key.clone(), state);
    }

    @Override
    public List<Promised> promisedFrom(byte[] startInclusive, int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("a page holds at least one key, got " + limit);
        }
        List<Promised> page = new ArrayList<>();
        for (Map.Entry<byte[], PaxosState> entry : states.tailMap(startInclusive, true).entrySet()) {
            if (page.size() == limit) {
                break;
            }
            page.add(new Promised(entry.getKey().clone(), entry.getValue().promised()));
        }
        return page;
    }

    @Override
    public void remove(byte[] key) {
        states.remove(key);
    }
}
