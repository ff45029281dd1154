package io.ringkv.http.h1;

/** Byte classes of the HTTP grammar (RFC 9110 §5.6.2, §5.5; RFC 9112). Stateless. */
final class HttpChars {
    static final byte CR = '\r';
    static final byte LF = '\n';
    static final byte SP = ' ';
    static final byte HTAB = '\t';

    private static final boolean[] TCHAR = new boolean[256];

    static {
        // RFC 9110 §5.6.2: tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." /
        //                          "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA
        for (char c : "!#$%&'*+-.^_`|~".toCharArray()) {
            TCHAR[c] = true;
        }
        for (int c = '0'; c <= '9'; c++) {
            TCHAR[c] = true;
        }
        for (int c = 'a'; c <= 'z'; c++) {
            TCHAR[c] = true;
            TCHAR[c - 'a' + 'A'] = true;
        }
    }

    private HttpChars() {
    }

    static boolean isTchar(int b) {
        return TCHAR[b & 0xFF];
    }

    static boolean isWhitespace(int b) {
        return b == SP || b == HTAB;
    }

    /** RFC 9110 §5.5: field-vchar / SP / HTAB; obs-text (0x80-0xFF) kept. Rejects CTLs and DEL. */
    static boolean isFieldValueByte(int b) {
        int u = b & 0xFF;
        return u == HTAB || (u >= 0x20 && u != 0x7F);
    }

    /** Visible US-ASCII (0x21-0x7E): what a request-target may contain. */
    static boolean isVisibleAscii(int b) {
        return b >= 0x21 && b <= 0x7E;
    }

    /** The value of a hex digit, or -1. */
    static int hexValue(int b) {
        if (b >= '0' && b <= '9') {
            return b - '0';
        }
        if (b >= 'a' && b <= 'f') {
            return b - 'a' + 10;
        }
        if (b >= 'A' && b <= 'F') {
            return b - 'A' + 10;
        }
        return -1;
    }
}
