package io.ringkv.http.h2;

/** Frame flag bits, RFC 9113 §6. Undefined flags are ignored on receipt and never sent (§4.1). */
public final class Flags {
    public static final int END_STREAM = 0x1;
    public static final int ACK = 0x1;
    public static final int END_HEADERS = 0x4;
    public static final int PADDED = 0x8;
    public static final int PRIORITY = 0x20;

    private Flags() {
    }

    static boolean has(int flags, int flag) {
        return (flags & flag) != 0;
    }
}
