package io.ringkv.http.h1;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

/**
 * A parsed status line, RFC 9112 §4: {@code HTTP-version SP status-code SP [ reason-phrase ]}.
 * A line that stops right after the status code (no SP) is accepted too: servers send it, and
 * the reason phrase carries no meaning.
 */
record StatusLine(int minorVersion, int status, String reason) {
    /**
     * RFC 9110 §15: status codes are three digits, 100 to 599. Codes 600 to 999 are invalid, yet a
     * client "SHOULD process the response as if it had a 5xx" rather than fail: they are passed
     * on as they are (the JDK's client does the same), which callers read as at least 500.
     */
    private static final int STATUS_MIN = 100;
    private static final int STATUS_MAX = 999;
    private static final int VERSION_LENGTH = "HTTP/1.1".length();

    static StatusLine parse(byte[] line, int length) throws H1ParseException {
        if (length < VERSION_LENGTH + 4 || !startsWithHttp1(line) || line[VERSION_LENGTH] != HttpChars.SP) {
            throw H1ParseException.badRequest("invalid_status_line");
        }
        if (!isDigit(line[5]) || line[6] != '.' || !isDigit(line[7])) {
            throw H1ParseException.badRequest("invalid_status_line");
        }
        int status = status(line, VERSION_LENGTH + 1);
        int reasonStart = VERSION_LENGTH + 4;
        if (length > reasonStart && line[reasonStart] != HttpChars.SP) {
            throw H1ParseException.badRequest("invalid_status_line");
        }
        for (int i = reasonStart + 1; i < length; i++) {
            if (!HttpChars.isFieldValueByte(line[i])) {
                throw H1ParseException.badRequest("invalid_reason_phrase");
            }
        }
        String reason = length > reasonStart ? reason(line, reasonStart + 1, length, status) : "";
        return new StatusLine(Math.min(line[7] - '0', 1), status, reason);
    }

    /** The standard phrase's own String when the line carries it (most do): no copy per response. */
    private static String reason(byte[] line, int from, int to, int status) {
        String standard = StatusReasons.phrase(status);
        return FieldValueCache.sameBytes(standard, line, from, to) ? standard
                : new String(line, from, to - from, ISO_8859_1);
    }

    private static boolean startsWithHttp1(byte[] line) throws H1ParseException {
        boolean http = line[0] == 'H' && line[1] == 'T' && line[2] == 'T' && line[3] == 'P' && line[4] == '/';
        if (http && isDigit(line[5]) && line[5] != '1') {
            throw H1ParseException.badRequest("unsupported_version");
        }
        return http;
    }

    private static int status(byte[] line, int at) throws H1ParseException {
        if (!isDigit(line[at]) || !isDigit(line[at + 1]) || !isDigit(line[at + 2])) {
            throw H1ParseException.badRequest("invalid_status");
        }
        int status = (line[at] - '0') * 100 + (line[at + 1] - '0') * 10 + (line[at + 2] - '0');
        if (status < STATUS_MIN || status > STATUS_MAX) {
            throw H1ParseException.badRequest("invalid_status");
        }
        return status;
    }

    private static boolean isDigit(byte b) {
        return b >= '0' && b <= '9';
    }
}
