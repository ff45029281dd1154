package io.ringkv.http.h2;

/** The ten frame types of RFC 9113 §6. Unknown types are ignored by the parser (§4.1, §5.5). */
public enum FrameType {
    DATA(0x0),
    HEADERS(0x1),
    PRIORITY(0x2),
    RST_STREAM(0x3),
    SETTINGS(0x4),
    PUSH_PROMISE(0x5),
    PING(0x6),
    GOAWAY(0x7),
    WINDOW_UPDATE(0x8),
    CONTINUATION(0x9);

    private static final FrameType[] BY_CODE = values();

    public final int code;

    FrameType(int code) {
        this.code = code;
    }

    /** The type for a wire value, or null for a type this implementation does not know. */
    public static FrameType of(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
