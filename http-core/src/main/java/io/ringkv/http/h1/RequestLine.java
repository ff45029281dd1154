package io.ringkv.http.h1;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

/**
 * A parsed request line, RFC 9112 §3: {@code method SP request-target SP HTTP-version}.
 * Exactly one SP between the parts (the lenient whitespace of §3 is not accepted).
 */
record RequestLine(String method, String target, int minorVersion) {

    private static final int VERSION_LENGTH = "HTTP/1.1".length();

    static RequestLine parse(byte[] line, int length) throws H1ParseException {
        int methodEnd = 0;
        while (methodEnd < length && HttpChars.isTchar(line[methodEnd])) {
            methodEnd++;
        }
        if (methodEnd == 0 || methodEnd == length || line[methodEnd] != HttpChars.SP) {
            throw H1ParseException.badRequest("invalid_method");
        }
        int targetEnd = methodEnd + 1;
        while (targetEnd < length && HttpChars.isVisibleAscii(line[targetEnd])) {
            targetEnd++;
        }
        if (targetEnd == methodEnd + 1 || targetEnd == length || line[targetEnd] != HttpChars.SP) {
            throw H1ParseException.badRequest("invalid_target");
        }
        int minor = minorVersion(line, targetEnd + 1, length);
        return new RequestLine(new String(line, 0, methodEnd, ISO_8859_1),
                new String(line, methodEnd + 1, targetEnd - methodEnd - 1, ISO_8859_1), minor);
    }

    /**
     * RFC 9112 §2.3: {@code HTTP-version = "HTTP" "/" DIGIT "." DIGIT}. A well-formed version
     * with another major is 505; a higher 1.x minor is processed as 1.1.
     */
    private static int minorVersion(byte[] line, int from, int length) throws H1ParseException {
        if (length - from != VERSION_LENGTH
                || line[from] != 'H' || line[from + 1] != 'T' || line[from + 2] != 'T' || line[from + 3] != 'P'
                || line[from + 4] != '/' || !isDigit(line[from + 5]) || line[from + 6] != '.'
                || !isDigit(line[from + 7])) {
            throw H1ParseException.badRequest("invalid_version");
        }
        if (line[from + 5] != '1') {
            throw new H1ParseException(505, "unsupported_version");
        }
        return Math.min(line[from + 7] - '0', 1);
    }

    private static boolean isDigit(byte b) {
        return b >= '0' && b <= '9';
    }
}
