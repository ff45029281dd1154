package io.ringkv.http.h1;

import io.ringkv.http.Headers;
import java.util.List;

/**
 * Reads Content-Length and Transfer-Encoding and decides how a message body is delimited
 * (RFC 9112 §6.3). Stateless.
 */
final class BodyFraming {
    /** {@link #bodyLength} result: the body is chunked. */
    static final long CHUNKED = -1;
    /** Longest decimal Content-Length we parse; 18 digits always fit in a long. */
    private static final int CONTENT_LENGTH_DIGITS_MAX = 18;

    private BodyFraming() {
    }

    /**
     * @return the declared length, 0 when neither field is present, or {@link #CHUNKED}
     */
    static long bodyLength(Headers headers) throws H1ParseException {
        int contentLength = headers.indexOf("Content-Length", 0);
        if (headers.indexOf("Transfer-Encoding", 0) < 0) {
            if (contentLength < 0) {
                return 0;
            }
            // The common case, one Content-Length field with one value: no lists built.
            if (headers.indexOf("Content-Length", contentLength + 1) < 0) {
                String value = headers.value(contentLength).strip();
                if (!value.isEmpty() && value.indexOf(',') < 0) {
                    return parseDecimal(value);
                }
            }
            return contentLength(headers.all("Content-Length"));
        }
        List<String> transferEncodings = headers.all("Transfer-Encoding");
        List<String> contentLengths = headers.all("Content-Length");
        if (!transferEncodings.isEmpty()) {
            if (!contentLengths.isEmpty()) {
                // RFC 9112 §6.1: MAY reject; a request with both is the classic smuggling vector.
                throw H1ParseException.badRequest("content_length_with_transfer_encoding");
            }
            checkChunkedIsOnlyCoding(transferEncodings);
            return CHUNKED;
        }
        return contentLengths.isEmpty() ? 0 : contentLength(contentLengths);
    }

    /**
     * RFC 9112 §6.3: if chunked is not the final coding of a request, the length cannot be
     * determined and the server MUST answer 400. Chunked must not be applied twice (§7).
     * Any other coding is one we do not implement: 501 (§6.1).
     */
    private static void checkChunkedIsOnlyCoding(List<String> fieldValues) throws H1ParseException {
        List<String> codings = ListValues.elements(fieldValues, "invalid_transfer_encoding");
        if (codings.isEmpty()) {
            throw H1ParseException.badRequest("invalid_transfer_encoding");
        }
        for (String coding : codings) {
            if (!isCodingSyntax(coding)) {
                throw H1ParseException.badRequest("invalid_transfer_encoding");
            }
        }
        int last = codings.size() - 1;
        if (!codings.get(last).equalsIgnoreCase("chunked")) {
            throw H1ParseException.badRequest("chunked_not_final_coding");
        }
        for (int i = 0; i < last; i++) {
            if (codings.get(i).equalsIgnoreCase("chunked")) {
                throw H1ParseException.badRequest("chunked_applied_twice");
            }
        }
        if (last > 0) {
            throw new H1ParseException(501, "unsupported_transfer_coding");
        }
    }

    /** A transfer-coding is a token, optionally with parameters after ';' (RFC 9112 §7). */
    private static boolean isCodingSyntax(String coding) {
        int semicolon = coding.indexOf(';');
        String name = semicolon < 0 ? coding : coding.substring(0, semicolon).stripTrailing();
        // RFC 9112 §7.1: chunked takes no parameters.
        return ListValues.isToken(name) && (semicolon < 0 || !name.equalsIgnoreCase("chunked"));
    }

    /**
     * RFC 9110 §8.6: 1*DIGIT. A list of identical values (repeated fields or "42, 42") MAY be
     * accepted as that value; anything else is 400.
     */
    private static long contentLength(List<String> fieldValues) throws H1ParseException {
        List<String> elements = ListValues.elements(fieldValues, "invalid_content_length");
        if (elements.isEmpty()) {
            throw H1ParseException.badRequest("invalid_content_length");
        }
        String first = elements.get(0);
        for (String element : elements) {
            if (!element.equals(first)) {
                throw H1ParseException.badRequest("conflicting_content_length");
            }
        }
        return parseDecimal(first);
    }

    private static long parseDecimal(String digits) throws H1ParseException {
        for (int i = 0; i < digits.length(); i++) {
            char c = digits.charAt(i);
            if (c < '0' || c > '9') {
                throw H1ParseException.badRequest("invalid_content_length");
            }
        }
        String significant = stripLeadingZeros(digits);
        if (significant.length() > CONTENT_LENGTH_DIGITS_MAX) {
            throw H1ParseException.badRequest("content_length_overflow");
        }
        return Long.parseLong(significant);
    }

    private static String stripLeadingZeros(String digits) {
        int i = 0;
        while (i < digits.length() - 1 && digits.charAt(i) == '0') {
            i++;
        }
        return digits.substring(i);
    }
}
