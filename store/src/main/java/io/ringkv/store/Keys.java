package io.ringkv.store;

import java.util.HexFormat;

/** Keys in error messages and logs: hex, truncated so a huge key cannot flood a log line. */
final class Keys {

    /** Bytes of a key shown in messages; the rest is elided. */
    static final int SHOWN_BYTES_MAX = 32;

    private Keys() {
    }

    static String describe(byte[] key) {
        if (key == null) {
            return "(end of keyspace)";
        }
        if (key.length <= SHOWN_BYTES_MAX) {
            return "0x" + HexFormat.of().formatHex(key);
        }
        return "0x" + HexFormat.of().formatHex(key, 0, SHOWN_BYTES_MAX) + "...(" + key.length + " bytes)";
    }
}
