package io.ringkv.http.client;

/** Deterministic test bodies: byte i is (i * 31 + 7) mod 251, so shifts and truncations show. */
final class Bodies {
    private Bodies() {
    }

    static byte[] pattern(int size) {
        byte[] data = new byte[size];
        for (int i = 0; i < size; i++) {
            data[i] = (byte) ((i * 31 + 7) % 251);
        }
        return data;
    }
}
