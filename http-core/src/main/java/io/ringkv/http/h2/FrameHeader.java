package io.ringkv.http.h2;

/** The nine-octet frame header, RFC 9113 §4.1. {@code type} is the raw wire value. */
record FrameHeader(int length, int type, int flags, int streamId) {
    static final int BYTES = 9;

    boolean has(int flag) {
        return Flags.has(flags, flag);
    }
}
