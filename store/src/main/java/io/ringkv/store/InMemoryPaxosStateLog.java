package io.ringkv.store;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** {@link PaxosStateLog} in memory, for {@link InMemoryStorageEngine}. Thread-safe. */
final class InMemoryPaxosStateLog implements PaxosStateLog {
    private final Map<ByteBuffer, PaxosState> states = new ConcurrentHashMap<>();

    @Override
    public PaxosState get(byte[] key) {
        return states.getOrDefault(ByteBuffer.wrap(key.clone()), PaxosState.EMPTY);
    }

    @Override
    public void put(byte[] key, PaxosState state) {
        states.put(ByteBuffer.wrap(key.clone()), state);
    }
}
