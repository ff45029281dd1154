package io.ringkv.http.hpack;

/**
 * The decoded header list would exceed the advertised SETTINGS_MAX_HEADER_LIST_SIZE. The whole
 * block was still processed, so the decoding context is intact: only the one stream fails
 * (a server answers 431, RFC 9113 §6.5.2, §10.5.1).
 */
public final class HeaderListTooLargeException extends HpackException {
    private final long maxBytes;

    public HeaderListTooLargeException(long maxBytes) {
        super("header_list_too_large");
        this.maxBytes = maxBytes;
    }

    public long maxBytes() {
        return maxBytes;
    }
}
