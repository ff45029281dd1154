package io.ringkv.http.h2;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/** The client connection preface, RFC 9113 §3.4; a SETTINGS frame must follow it. */
public final class Preface {
    private static final byte[] BYTES = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    public static final int LENGTH = BYTES.length;

    private Preface() {
    }

    /** A fresh buffer holding the 24 preface octets, ready to write. */
    public static ByteBuffer bytes() {
        return ByteBuffer.wrap(BYTES.clone());
    }

    static byte at(int index) {
        return BYTES[index];
    }
}
