package io.ringkv.node;

import java.util.Arrays;
import java.util.Optional;

/**
 * The first key that can follow a given one in unsigned byte order, among keys of at most a
 * given length: where the next page of a range starts (its {@code start} is inclusive).
 *
 * <p>A shorter key is followed by itself plus a zero byte ({@code ab} → {@code ab\0}): nothing
 * lies between them. A key of the longest length cannot be extended, so the next possible key is
 * the key with its trailing {@code 0xFF} bytes dropped and its last byte incremented
 * ({@code ab\xFF} → {@code ac}): every longer-looking candidate would be over the limit and is
 * never stored. Stateless.
 */
final class KeySuccessor {
    private KeySuccessor() {
    }

    /** @return empty when no key of at most {@code keyBytesMax} bytes follows {@code key} (all {@code 0xFF}) */
    static Optional<byte[]> after(byte[] key, int keyBytesMax) {
        if (key.length < keyBytesMax) {
            return Optional.of(Arrays.copyOf(key, key.length + 1));
        }
        int last = keyBytesMax - 1;
        while (last >= 0 && key[last] == (byte) 0xFF) {
            last--;
        }
        if (last < 0) {
            return Optional.empty();
        }
        byte[] next = Arrays.copyOf(key, last + 1);
        next[last]++;
        return Optional.of(next);
    }
}
