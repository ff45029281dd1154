package io.ringkv.http.client.internal;

import io.ringkv.http.h1.H1Limits;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How large a response head the client accepts: the JDK client's bound, so that an application
 * that switches clients keeps every response it got before. That is the system property
 * {@code jdk.http.maxHeaderSize} (bytes, read once; zero or less: no bound), 384 KiB when unset,
 * for HTTP/1.1 header sections and for HTTP/2 header lists (advertised as
 * SETTINGS_MAX_HEADER_LIST_SIZE and enforced). No bound on the number of fields: the bytes bound it.
 *
 * <p>We count an HTTP/1.1 section's raw bytes, the JDK counts name + value + 32 per field: for
 * the same figure ours accepts every section the JDK's does.
 */
final class ResponseHeadLimits {
    private static final Logger log = LoggerFactory.getLogger(ResponseHeadLimits.class);
    static final String PROPERTY = "jdk.http.maxHeaderSize";
    static final int DEFAULT_BYTES = 384 * 1024;

    /** Bytes of a response head; {@code Integer.MAX_VALUE} when unbounded. */
    static final int BYTES = parse(System.getProperty(PROPERTY));

    private ResponseHeadLimits() {
    }

    static int parse(String value) {
        if (value == null) {
            return DEFAULT_BYTES;
        }
        try {
            int bytes = Integer.parseInt(value.trim());
            return bytes <= 0 ? Integer.MAX_VALUE : bytes;
        } catch (NumberFormatException e) {
            log.warn("{}={} is not a whole number of bytes; using {}", PROPERTY, value, DEFAULT_BYTES);
            return DEFAULT_BYTES;
        }
    }

    /** HTTP/1.1 responses: status line and header section each within the bound; bodies unbounded. */
    static final H1Limits HTTP1 = new H1Limits(BYTES, BYTES, Integer.MAX_VALUE, Long.MAX_VALUE);

    /** The HTTP/2 header list bound, for SETTINGS_MAX_HEADER_LIST_SIZE ({@code Long.MAX_VALUE}: none). */
    static long http2HeaderListBytes() {
        return BYTES == Integer.MAX_VALUE ? Long.MAX_VALUE : BYTES;
    }
}
