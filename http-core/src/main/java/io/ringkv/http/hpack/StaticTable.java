package io.ringkv.http.hpack;

/**
 * The static table, RFC 7541 Appendix A. Index 1 is the first entry. An array, not a list: the
 * encoder reads it on every field. Never written after class initialisation; shared.
 */
final class StaticTable {
    private static final HeaderField[] ENTRIES = {
            f(":authority", ""), f(":method", "GET"), f(":method", "POST"), f(":path", "/"),
            f(":path", "/index.html"), f(":scheme", "http"), f(":scheme", "https"), f(":status", "200"),
            f(":status", "204"), f(":status", "206"), f(":status", "304"), f(":status", "400"),
            f(":status", "404"), f(":status", "500"), f("accept-charset", ""),
            f("accept-encoding", "gzip, deflate"), f("accept-language", ""), f("accept-ranges", ""),
            f("accept", ""), f("access-control-allow-origin", ""), f("age", ""), f("allow", ""),
            f("authorization", ""), f("cache-control", ""), f("content-disposition", ""),
            f("content-encoding", ""), f("content-language", ""), f("content-length", ""),
            f("content-location", ""), f("content-range", ""), f("content-type", ""), f("cookie", ""),
            f("date", ""), f("etag", ""), f("expect", ""), f("expires", ""), f("from", ""), f("host", ""),
            f("if-match", ""), f("if-modified-since", ""), f("if-none-match", ""), f("if-range", ""),
            f("if-unmodified-since", ""), f("last-modified", ""), f("link", ""), f("location", ""),
            f("max-forwards", ""), f("proxy-authenticate", ""), f("proxy-authorization", ""), f("range", ""),
            f("referer", ""), f("refresh", ""), f("retry-after", ""), f("server", ""), f("set-cookie", ""),
            f("strict-transport-security", ""), f("transfer-encoding", ""), f("user-agent", ""), f("vary", ""),
            f("via", ""), f("www-authenticate", "")};

    static final int LENGTH = ENTRIES.length;

    private StaticTable() {
    }

    private static HeaderField f(String name, String value) {
        return new HeaderField(name, value);
    }

    /** The entry at a 1-based index in 1..{@link #LENGTH}. */
    static HeaderField get(int index) {
        return ENTRIES[index - 1];
    }
}
