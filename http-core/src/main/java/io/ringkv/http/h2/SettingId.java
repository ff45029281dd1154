package io.ringkv.http.h2;

/** SETTINGS parameter identifiers, RFC 9113 §6.5.2 (and RFC 8441 §3 for CONNECT). */
public final class SettingId {
    public static final int HEADER_TABLE_SIZE = 0x1;
    public static final int ENABLE_PUSH = 0x2;
    public static final int MAX_CONCURRENT_STREAMS = 0x3;
    public static final int INITIAL_WINDOW_SIZE = 0x4;
    public static final int MAX_FRAME_SIZE = 0x5;
    public static final int MAX_HEADER_LIST_SIZE = 0x6;
    public static final int ENABLE_CONNECT_PROTOCOL = 0x8;

    private SettingId() {
    }
}
