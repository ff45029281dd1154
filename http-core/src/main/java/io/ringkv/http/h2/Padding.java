package io.ringkv.http.h2;

import java.nio.ByteBuffer;

/** Strips padding from DATA, HEADERS and PUSH_PROMISE payloads (RFC 9113 §6.1, §6.2, §6.6). */
final class Padding {
    private Padding() {
    }

    /**
     * Reads the pad length (if PADDED is set) and shrinks {@code payload}'s limit to exclude the
     * padding. Returns the pad length or {@link Frame#UNPADDED}.
     *
     * @param fixedBytes octets that follow the pad length field and precede the content
     *                   (priority fields, promised stream id)
     */
    static int strip(FrameHeader header, ByteBuffer payload, int fixedBytes) throws ConnectionError {
        if (!header.has(Flags.PADDED)) {
            if (payload.remaining() < fixedBytes) {
                throw new ConnectionError(ErrorCode.FRAME_SIZE_ERROR, "frame_too_short");
            }
            return Frame.UNPADDED;
        }
        if (payload.remaining() < 1 + fixedBytes) {
            throw new ConnectionError(ErrorCode.FRAME_SIZE_ERROR, "frame_too_short");
        }
        int padLength = payload.get() & 0xff;
        // RFC 9113 §6.1: padding as long as the payload or longer is a connection PROTOCOL_ERROR.
        if (padLength > payload.remaining() - fixedBytes) {
            throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "padding_too_long");
        }
        payload.limit(payload.limit() - padLength);
        return padLength;
    }
}
