package io.ringkv.cluster;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * A fixed, seeded 64-bit hash of byte strings for placement. It must give the same answer in
 * every process, JVM and release for the same input, so it depends on nothing but the bytes:
 * never on {@code String.hashCode}, identity hashes or the platform's byte order.
 *
 * <p>Construction: 8-byte little-endian words are each scrambled by a multiply-xorshift step and
 * folded into the state with a rotate-multiply-add; the tail (0..7 bytes) and the length are
 * folded in the same way; a final avalanche (two xorshift-multiply rounds, the 64-bit finaliser
 * shape popularised by MurmurHash3) makes every output bit depend on every input bit. The
 * constants are the usual odd 64-bit mixing constants (the first is 2^64 divided by the golden
 * ratio). Not cryptographic: placement needs spread and determinism, not secrecy.
 */
final class PlacementHash {

    private static final VarHandle LONG_LE =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long GOLDEN = 0x9E3779B97F4A7C15L;
    private static final long MIX_1 = 0xFF51AFD7ED558CCDL;
    private static final long MIX_2 = 0xC4CEB9FE1A85EC53L;
    private static final long FOLD_ADD = 0x52DCE729L;

    private PlacementHash() {
    }

    static long hash(byte[] data, long seed) {
        long state = seed ^ (data.length * GOLDEN);
        int i = 0;
        for (; i + Long.BYTES <= data.length; i += Long.BYTES) {
            state = fold(state, (long) LONG_LE.get(data, i));
        }
        long tail = 0;
        for (int j = data.length - 1; j >= i; j--) {
            tail = (tail << 8) | (data[j] & 0xFF);
        }
        state = fold(state, tail ^ ((long) (data.length - i) << 56));
        return avalanche(state ^ data.length);
    }

    /** A bijective finaliser: a one-bit change of the input flips about half of the output bits. */
    static long avalanche(long x) {
        x ^= x >>> 33;
        x *= MIX_1;
        x ^= x >>> 33;
        x *= MIX_2;
        x ^= x >>> 33;
        return x;
    }

    private static long fold(long state, long word) {
        long scrambled = word * MIX_2;
        scrambled ^= scrambled >>> 31;
        scrambled *= GOLDEN;
        return Long.rotateLeft(state ^ scrambled, 29) * MIX_1 + FOLD_ADD;
    }
}
