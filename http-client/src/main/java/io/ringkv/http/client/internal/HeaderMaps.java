package io.ringkv.http.client.internal;

import io.ringkv.http.Headers;
import java.net.http.HttpHeaders;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

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

    static HttpHeaders toHttpHeaders(Headers fields) {
        return HttpHeaders.of(toMap(fields), (name, value) -> true);
    }
}
