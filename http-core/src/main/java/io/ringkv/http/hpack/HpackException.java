package io.ringkv.http.hpack;

/**
 * A header block could not be decoded (RFC 7541 §3.2, "decoding error"). The decoding
 * context is now out of step with the peer's encoder, so HTTP/2 treats this as a connection
 * error of type COMPRESSION_ERROR (RFC 9113 §4.3). {@link #getMessage()} is a snake_case reason.
 */
public sealed class HpackException extends Exception permits HeaderListTooLargeException {
    public HpackException(String reason) {
        super(reason);
    }

    public String reason() {
        return getMessage();
    }
}
