package io.ringkv.http.h2;

import io.ringkv.http.hpack.HeaderField;
import java.util.List;
import java.util.Set;

/**
 * Field rules of RFC 9113 §8.2 and §8.3. A violation makes the message malformed: a stream
 * error of type PROTOCOL_ERROR (§8.1.1).
 */
final class HeaderValidator {
    private static final Set<String> REQUEST_PSEUDO = Set.of(":method", ":scheme", ":authority", ":path");
    /** RFC 9113 §8.2.2: connection-specific fields are forbidden. */
    private static final Set<String> CONNECTION_SPECIFIC =
            Set.of("connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade");

    private HeaderValidator() {
    }

    /** RFC 9113 §8.3.1. */
    static void request(int streamId, List<HeaderField> fields) throws StreamError {
        int pseudo = pseudoHeaders(streamId, fields);
        boolean method = false;
        boolean scheme = false;
        boolean path = false;
        String methodValue = null;
        for (int i = 0; i < pseudo; i++) {
            HeaderField f = fields.get(i);
            if (!REQUEST_PSEUDO.contains(f.name())) {
                throw malformed(streamId, "bad_request_pseudo_header");
            }
            for (int j = 0; j < i; j++) {
                if (fields.get(j).name().equals(f.name())) {
                    throw malformed(streamId, "duplicate_pseudo_header");
                }
            }
            // §8.2.1 applies to every field value, pseudo-header fields included: a :path with
            // CR LF would otherwise reach handlers, logs and HTTP/1.1 requests built from it.
            checkValue(streamId, f.value());
            switch (f.name()) {
                case ":method" -> {
                    method = true;
                    methodValue = f.value();
                    checkMethod(streamId, methodValue);
                }
                case ":scheme" -> {
                    scheme = true;
                    checkScheme(streamId, f.value());
                }
                case ":path" -> {
                    path = true;
                    if (f.value().isEmpty()) {
                        throw malformed(streamId, "empty_path");
                    }
                    checkVisibleAscii(streamId, f.value(), "bad_path");
                }
                case ":authority" -> checkVisibleAscii(streamId, f.value(), "bad_authority");
                default -> { }
            }
        }
        // RFC 9113 §8.5: CONNECT carries only :method and :authority.
        boolean connect = "CONNECT".equals(methodValue);
        if (!method || (!connect && (!scheme || !path)) || (connect && (scheme || path))) {
            throw malformed(streamId, "missing_or_extra_pseudo_header");
        }
        regular(streamId, fields, pseudo);
    }

    /**
     * RFC 9113 §8.4: a promised request is a valid request that is safe and cacheable (GET or
     * HEAD, RFC 9110 §9.2.1 and §9.2.3) and carries no content. Anything else is a stream error on
     * the promised stream.
     */
    static void promisedRequest(int promisedStreamId, List<HeaderField> fields) throws StreamError {
        request(promisedStreamId, fields);
        String method = fields.stream().filter(f -> f.name().equals(":method")).findFirst().orElseThrow().value();
        if (!method.equals("GET") && !method.equals("HEAD")) {
            throw malformed(promisedStreamId, "promised_request_not_safe_and_cacheable");
        }
        if (contentLength(promisedStreamId, fields) > 0) {
            throw malformed(promisedStreamId, "promised_request_with_content");
        }
    }

    /** RFC 9113 §8.3.2; returns the status code. */
    static int response(int streamId, List<HeaderField> fields) throws StreamError {
        int pseudo = pseudoHeaders(streamId, fields);
        if (pseudo != 1 || !fields.get(0).name().equals(":status")) {
            throw malformed(streamId, "bad_response_pseudo_header");
        }
        String status = fields.get(0).value();
        if (status.length() != 3 || !allDigits(status)) {
            throw malformed(streamId, "bad_status");
        }
        regular(streamId, fields, 1);
        return Integer.parseInt(status);
    }

    /** RFC 9113 §8.1: trailers carry no pseudo-header fields. */
    static void trailers(int streamId, List<HeaderField> fields) throws StreamError {
        if (pseudoHeaders(streamId, fields) != 0) {
            throw malformed(streamId, "pseudo_header_in_trailers");
        }
        regular(streamId, fields, 0);
    }

    /**
     * RFC 9113 §8.1.1 and RFC 9110 §8.6: the declared content-length, or -1. Several fields
     * must agree; a value that is not a non-negative decimal number is malformed.
     */
    static long contentLength(int streamId, List<HeaderField> fields) throws StreamError {
        long length = -1;
        for (int i = 0; i < fields.size(); i++) { // indexed: no iterator on every message
            HeaderField f = fields.get(i);
            if (!f.name().equals("content-length")) {
                continue;
            }
            String value = f.value();
            if (value.isEmpty() || value.length() > 18 || !allDigits(value)) {
                throw malformed(streamId, "bad_content_length");
            }
            long parsed = Long.parseLong(value);
            if (length >= 0 && parsed != length) {
                throw malformed(streamId, "conflicting_content_length");
            }
            length = parsed;
        }
        return length;
    }

    /** Counts the leading pseudo-header fields; one after a regular field is malformed (§8.3). */
    private static int pseudoHeaders(int streamId, List<HeaderField> fields) throws StreamError {
        int count = 0;
        while (count < fields.size() && fields.get(count).name().startsWith(":")) {
            count++;
        }
        for (int i = count; i < fields.size(); i++) {
            if (fields.get(i).name().startsWith(":")) {
                throw malformed(streamId, "pseudo_header_after_regular");
            }
        }
        return count;
    }

    private static void regular(int streamId, List<HeaderField> fields, int from) throws StreamError {
        for (int i = from; i < fields.size(); i++) {
            HeaderField f = fields.get(i);
            checkName(streamId, f.name());
            checkValue(streamId, f.value());
            if (CONNECTION_SPECIFIC.contains(f.name())) {
                throw malformed(streamId, "connection_specific_header");
            }
            // RFC 9113 §8.2.2: TE may be present only with the value "trailers".
            if (f.name().equals("te") && !f.value().equals("trailers")) {
                throw malformed(streamId, "te_not_trailers");
            }
        }
    }

    /** RFC 9113 §8.2.1: names are lowercase tokens. */
    private static void checkName(int streamId, String name) throws StreamError {
        if (name.isEmpty()) {
            throw malformed(streamId, "empty_header_name");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c >= 'A' && c <= 'Z') {
                throw malformed(streamId, "uppercase_header_name");
            }
            if (c <= 0x20 || c >= 0x7f || c == ':') {
                throw malformed(streamId, "bad_header_name");
            }
        }
    }

    /**
     * RFC 9113 §8.2.1: no NUL, CR or LF; no leading or trailing whitespace. The other control
     * characters (all but HTAB) and DEL are refused too: RFC 9110 §5.5 makes them invalid in a
     * field value, our HTTP/1.1 parser refuses them, and a request must not be able to carry by
     * HTTP/2 what it cannot carry by HTTP/1.1 (ESC, for one, drives terminals that show a log).
     * Octets 0x80-0xFF (obs-text) stay allowed in both.
     */
    private static void checkValue(int streamId, String value) throws StreamError {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if ((c < 0x20 && c != '\t') || c == 0x7f) {
                throw malformed(streamId, "bad_header_value");
            }
        }
        if (!value.isEmpty() && (isWhitespace(value.charAt(0)) || isWhitespace(value.charAt(value.length() - 1)))) {
            throw malformed(streamId, "header_value_whitespace");
        }
    }

    /** RFC 9110 §9.1: a method is a token. */
    private static void checkMethod(int streamId, String method) throws StreamError {
        if (method.isEmpty()) {
            throw malformed(streamId, "bad_method");
        }
        for (int i = 0; i < method.length(); i++) {
            char c = method.charAt(i);
            boolean tchar = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
            if (!tchar) {
                throw malformed(streamId, "bad_method");
            }
        }
    }

    /** RFC 3986 §3.1: {@code scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )}. */
    private static void checkScheme(int streamId, String scheme) throws StreamError {
        if (scheme.isEmpty()) {
            throw malformed(streamId, "bad_scheme");
        }
        for (int i = 0; i < scheme.length(); i++) {
            char c = scheme.charAt(i);
            boolean alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
            if (!alpha && (i == 0 || !((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.'))) {
                throw malformed(streamId, "bad_scheme");
            }
        }
    }

    /**
     * A URI component (:path, :authority) is visible US-ASCII: anything else must be
     * percent-encoded (RFC 3986 §2.1), and HTTP/1.1 refuses it in a request-target the same way.
     */
    private static void checkVisibleAscii(int streamId, String value, String reason) throws StreamError {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c <= 0x20 || c >= 0x7f) {
                throw malformed(streamId, reason);
            }
        }
    }

    /** A loop, not {@code chars().allMatch}: these checks run on every message, and a stream allocates. */
    private static boolean allDigits(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    private static boolean isWhitespace(char c) {
        return c == ' ' || c == '\t';
    }

    private static StreamError malformed(int streamId, String reason) {
        return new StreamError(streamId, ErrorCode.PROTOCOL_ERROR, reason);
    }
}
