package io.ringkv.http.h2;

/** HTTP/2 error codes, RFC 9113 §7. Carried by RST_STREAM and GOAWAY. */
public enum ErrorCode {
    NO_ERROR(0x0),
    PROTOCOL_ERROR(0x1),
    INTERNAL_ERROR(0x2),
    FLOW_CONTROL_ERROR(0x3),
    SETTINGS_TIMEOUT(0x4),
    STREAM_CLOSED(0x5),
    FRAME_SIZE_ERROR(0x6),
    REFUSED_STREAM(0x7),
    CANCEL(0x8),
    COMPRESSION_ERROR(0x9),
    CONNECT_ERROR(0xa),
    ENHANCE_YOUR_CALM(0xb),
    INADEQUATE_SECURITY(0xc),
    HTTP_1_1_REQUIRED(0xd);

    private static final ErrorCode[] BY_CODE = values();

    public final int code;

    ErrorCode(int code) {
        this.code = code;
    }

    /**
     * The code for a wire value. RFC 9113 §7: unknown codes MUST NOT trigger special behaviour
     * and MAY be treated as INTERNAL_ERROR, which is what this does.
     */
    public static ErrorCode of(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : INTERNAL_ERROR;
    }
}
