package io.ringkv.http.client;

import java.util.List;

/**
 * What one of ringkv's clients holds open at one moment, from {@link RingHttpClient#stats}: its
 * connections and the requests in flight on them, per origin and protocol. Immutable.
 *
 * <p>The figures are read from the client's live state without stopping it, so they are each
 * exact but not taken at one instant: a connection opening or closing while the snapshot is made
 * may be in it or not.
 *
 * @param connectionsOpened connections the client has opened since it was built, all origins
 *                          together (a connection switched to HTTP/2 by {@code Upgrade: h2c}
 *                          counts once); never decreases
 * @param routes            one entry per origin, proxy and protocol version with a connection open
 *                          now, ordered by scheme, host, port, version; empty when none is open
 */
public record ClientStats(long connectionsOpened, List<RouteStats> routes) {

    public ClientStats {
        routes = List.copyOf(routes);
    }
}
