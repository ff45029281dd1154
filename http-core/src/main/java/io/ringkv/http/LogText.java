package io.ringkv.http;

/**
 * Makes text a peer chose safe to put in a log line: a request's method, path, header values, a
 * GOAWAY's debug data, an exception message that quotes them.
 *
 * <p>A log line is read by people and parsed by tools. A CR or LF from a peer would start a line
 * the node never wrote (log forging); an escape sequence (ESC, or the C1 control CSI that a
 * field's obs-text byte 0x9B decodes to) would drive the operator's terminal; a NEL (0x85) is a
 * line break to some viewers; a megabyte of path would bury the lines around it. So everything
 * outside printable ASCII becomes {@code \xNN} (or {@code \\uNNNN} above 0xFF), a backslash
 * becomes {@code \\} so that an escape in the output always means one was made, and the text is
 * cut after {@link #MAX_CHARS} characters with a note of how many were left out.
 *
 * <p>Stateless and thread-safe.
 */
public final class LogText {
    /** Characters of the original kept; a request target or field rarely needs more to be recognised. */
    public static final int MAX_CHARS = 256;

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private LogText() {
    }

    /** {@code value} escaped and bounded as the class comment says; "null" for null. */
    public static String escape(Object value) {
        String text = String.valueOf(value);
        int kept = Math.min(text.length(), MAX_CHARS);
        StringBuilder out = null;
        for (int i = 0; i < kept; i++) {
            char c = text.charAt(i);
            if (c >= 0x20 && c < 0x7f && c != '\\') {
                if (out != null) {
                    out.append(c);
                }
                continue;
            }
            if (out == null) {
                out = new StringBuilder(kept + 16).append(text, 0, i);
            }
            if (c == '\\') {
                out.append("\\\\");
            } else if (c <= 0xff) {
                out.append("\\x").append(HEX[c >> 4]).append(HEX[c & 0xf]);
            } else {
                out.append("\\u").append(HEX[c >> 12]).append(HEX[(c >> 8) & 0xf]).append(HEX[(c >> 4) & 0xf])
                        .append(HEX[c & 0xf]);
            }
        }
        if (kept < text.length()) {
            if (out == null) {
                out = new StringBuilder(kept + 24).append(text, 0, kept);
            }
            out.append("...[").append(text.length() - kept).append(" more chars]");
        }
        return out == null ? text : out.toString();
    }

    /**
     * A log argument that escapes {@code value} only when the line is written, so a debug line
     * that is off costs one small object, not the escaping. For SLF4J's {@code {}} placeholders.
     */
    public static Object of(Object value) {
        return new Lazy(value);
    }

    private record Lazy(Object value) {
        @Override
        public String toString() {
            return escape(value);
        }
    }
}
