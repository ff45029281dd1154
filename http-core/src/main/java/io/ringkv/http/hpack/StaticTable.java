package io.ringkv.http.hpack;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The static table, RFC 7541 Appendix A. Index 1 is the first entry. Immutable; shared. */
final class StaticTable {
    private static final List<HeaderField> ENTRIES = List.of(
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
            f("via", ""), f("www-authenticate", ""));

    static final int LENGTH = ENTRIES.size();

    /** Name to the indexes (ascending) of the entries with that name. */
    private static final Map<String, int[]> BY_NAME = indexByName();

    private StaticTable() {
    }

    private static HeaderField f(String name, String value) {
        return new HeaderField(name, value);
    }

    private static Map<String, int[]> indexByName() {
        Map<String, int[]> byName = new HashMap<>();
        for (int i = 0; i < ENTRIES.size(); i++) {
            String name = ENTRIES.get(i).name();
            int[] old = byName.getOrDefault(name, new int[0]);
            int[] grown = java.util.Arrays.copyOf(old, old.length + 1);
            grown[old.length] = i + 1;
            byName.put(name, grown);
        }
        return byName;
    }

    /** The entry at a 1-based index in 1..{@link #LENGTH}. */
    static HeaderField get(int index) {
        return ENTRIES.get(index - 1);
    }

    /** The first index whose entry has this name, or 0. */
    static int indexOfName(String name) {
        int[] indexes = BY_NAME.get(name);
        return indexes == null ? 0 : indexes[0];
    }

    /** The index of the entry with this name and value, or 0. */
    static int indexOf(String name, String value) {
        int[] indexes = BY_NAME.get(name);
        if (indexes != null) {
            for (int index : indexes) {
                if (ENTRIES.get(index - 1).value().equals(value)) {
                    return index;
                }
            }
        }
        return 0;
    }
}
