package io.ringkv.http.client.internal;

import io.ringkv.http.Headers;
import java.net.http.HttpHeaders;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** Conversions between the codec's ordered {@link Headers} and the JDK's map views. */
final class HeaderMaps {
    private HeaderMaps() {
    }

    /** Case-insensitive map, values in wire order, as CookieHandler and HttpHeaders expect. */
    static Map<String, List<String>> toMap(Headers fields) {
        Map<String, List<String>> map = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        for (int i = 0; i < fields.size(); i++) {
            map.computeIfAbsent(fields.name(i), name -> new ArrayList<>(1)).add(fields.value(i));
        }
        return map;
    }

    /**
     * A response's fields as the application sees them: names in lower case, as the JDK's client
     * reports them (HTTP/2 names are lower case on the wire; it lowers HTTP/1.1 ones), so code
     * that walks {@code map().keySet()} sees the same names with either client.
     */
    static HttpHeaders toHttpHeaders(Headers fields) {
        return HttpHeaders.of(toResponseMap(fields), (name, value) -> true);
    }

    /** As {@link #toMap}, names in lower case (see {@link #toHttpHeaders}); for the CookieHandler too. */
    static Map<String, List<String>> toResponseMap(Headers fields) {
        Map<String, List<String>> map = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        for (int i = 0; i < fields.size(); i++) {
            map.computeIfAbsent(lowerCase(fields.name(i)), name -> new ArrayList<>(1)).add(fields.value(i));
        }
        return map;
    }

    /** The common names as servers spell them, lowered once: most responses lower nothing anew. */
    private static final Map<String, String> LOWERED = Stream.of("Content-Length", "Content-Type", "Date",
                    "Server", "Connection", "Keep-Alive", "Transfer-Encoding", "Set-Cookie", "Cache-Control",
                    "Location", "ETag", "Last-Modified", "Vary", "Content-Encoding", "Expires", "Accept-Ranges",
                    "Age", "Pragma", "WWW-Authenticate", "Proxy-Authenticate", "Retry-After", "Content-Range")
            .collect(Collectors.toUnmodifiableMap(name -> name, name -> name.toLowerCase(Locale.ROOT)));

    static String lowerCase(String name) {
        String known = LOWERED.get(name);
        return known != null ? known : name.toLowerCase(Locale.ROOT);
    }
}
