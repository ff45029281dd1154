package io.ringkv.http.client.internal;

import io.ringkv.http.client.ClientStats;
import io.ringkv.http.client.RouteStats;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The client's open connections, for {@link ClientStats}: a connection joins when its socket opens
 * and leaves when it closes, and a snapshot asks each one what it carries. Only opening and closing
 * a connection touch this; sending a request does not, so the request path pays nothing for the
 * statistics, and a snapshot reads state the connections keep anyway (a volatile field, a
 * concurrent map's size).
 *
 * <p>Threading: thread-safe and lock-free. Connections join and leave on their event loop; a
 * snapshot may be taken on any thread, concurrently with both.
 */
final class OpenConnections {

    /** A connection as the statistics see it. Its answers may be read from any thread. */
    interface Member {
        Route route();

        HttpClient.Version version();

        /** Requests on this connection whose response has not fully arrived. */
        int exchangesInFlight();
    }

    private static final Comparator<RouteStats> ORDER = Comparator.comparing(RouteStats::scheme)
            .thenComparing(RouteStats::host).thenComparingInt(RouteStats::port)
            .thenComparing(RouteStats::version)
            .thenComparing(stats -> stats.proxy() == null ? "" : stats.proxy().toString());

    private final Set<Member> open = ConcurrentHashMap.newKeySet();
    private final LongAdder opened = new LongAdder();

    /** A new socket is open. */
    void opened(Member connection) {
        opened.increment();
        open.add(connection);
    }

    /**
     * A socket already open (and counted) has a new handler, after {@code Upgrade: h2c}; the one it
     * had leaves with {@link #closed}.
     */
    void adopted(Member connection) {
        open.add(connection);
    }

    /** The socket closed, or was handed to another handler (a no-op for a connection that never joined). */
    void closed(Member connection) {
        open.remove(connection);
    }

    ClientStats snapshot() {
        Map<Key, int[]> counts = new HashMap<>();
        for (Member connection : open) {
            Route route = connection.route();
            int[] count = counts.computeIfAbsent(new Key(route.scheme(), route.host(), route.port(), route.proxy(),
                    connection.version()), key -> new int[2]);
            count[0]++;
            count[1] += connection.exchangesInFlight();
        }
        List<RouteStats> routes = new ArrayList<>(counts.size());
        counts.forEach((key, count) -> routes.add(new RouteStats(key.scheme, key.host, key.port, key.proxy, key.version,
                count[0], count[1])));
        routes.sort(ORDER);
        return new ClientStats(opened.sum(), routes);
    }

    /**
     * What a snapshot groups by: a {@link Route} without its proxy credentials, which tell two
     * pools apart but are nothing a statistic may show.
     */
    private record Key(String scheme, String host, int port, InetSocketAddress proxy, HttpClient.Version version) {
    }
}
