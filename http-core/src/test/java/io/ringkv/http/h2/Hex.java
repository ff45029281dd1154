package io.ringkv.http.h2;

import java.nio.ByteBuffer;
import java.util.HexFormat;

/** Hex text to bytes and back for test data files; whitespace is ignored. */
public final class Hex {
    private Hex() {
    }

    public static byte[] bytes(String hex) {
        return HexFormat.of().parseHex(hex.replaceAll("\\s+", ""));
    }

    public static ByteBuffer buffer(String hex) {
        return ByteBuffer.wrap(bytes(hex));
    }

    public static String of(ByteBuffer buffer) {
        byte[] b = new byte[buffer.remaining()];
        buffer.duplicate().get(b);
        return HexFormat.of().formatHex(b);
    }
}
