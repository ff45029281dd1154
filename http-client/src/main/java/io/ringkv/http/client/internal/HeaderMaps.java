package io.ringkv.http.client.internal;

import io.ringkv.http.Headers;
import java.net.http.HttpHeaders;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.UnaryOperator;

/** Conversions between the codec's ordered {@link Headers} and the JDK's map views. */
final class HeaderMaps {
    private HeaderMaps() {
    }

    /** Case-insensitive map, values in wire order, names as on the wire: what CookieHandler.get is given. */
    static Map<String, List<String>> toMap(Headers fields) {
        return toMap(fields, UnaryOperator.identity());
    }

    /**
     * A response's fields as the application sees them: names in lower case, as the JDK's client
     * reports them (HTTP/2 names are lower case on the wire; it lowers HTTP/1.1 ones), so code
     * that walks {@code map().keySet()} sees the same names with either client.
     */
    static HttpHeaders toHttpHeaders(Headers fields) {
        return HttpHeaders.of(toResponseMap(fields), (name, value) -> true);
    }

    /** As {@link #toHttpHeaders} names them; for the CookieHandler's {@code put} too. */
    static Map<String, List<String>> toResponseMap(Headers fields) {
        return toMap(fields, name -> name.toLowerCase(Locale.ROOT)); // the same instance when already lower case
    }

    private static Map<String, List<String>> toMap(Headers fields, UnaryOperator<String> names) {
        Map<String, List<String>> map = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        for (int i = 0; i < fields.size(); i++) {
            map.computeIfAbsent(names.apply(fields.name(i)), name -> new ArrayList<>(1)).add(fields.value(i));
        }
        return map;
    }
}
