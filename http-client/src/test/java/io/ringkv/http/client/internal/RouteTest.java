package io.ringkv.http.client.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RouteTest {
    private static final List<URI> URIS = List.of(
            URI.create("http://example.com/a"), URI.create("HTTP://example.com/b?q"),
            URI.create("http://example.com:80/"), URI.create("http://example.com:8080/"),
            URI.create("https://example.com/"), URI.create("https://example.com:443/x"),
            URI.create("http://other.example/"), URI.create("http://[::1]:8080/"),
            URI.create("http://[::2]:8080/"), URI.create("https://[::1]/"));
    private static final List<InetSocketAddress> PROXIES = new ArrayList<>();

    static {
        PROXIES.add(null);
        PROXIES.add(InetSocketAddress.createUnresolved("proxy", 3128));
        PROXIES.add(InetSocketAddress.createUnresolved("proxy2", 3128));
    }

    private static final List<String> AUTHORIZATIONS = new ArrayList<>();

    static {
        AUTHORIZATIONS.add(null);
        AUTHORIZATIONS.add("Basic a");
        AUTHORIZATIONS.add("Basic b");
    }

    /** The memo in NetworkLink relies on it: matches answers exactly whether of would give an equal route. */
    @Test
    void matchesExactlyWhenOfGivesAnEqualRoute() {
        int matched = 0;
        for (URI first : URIS) {
            for (InetSocketAddress firstProxy : PROXIES) {
                for (String firstAuth : AUTHORIZATIONS) {
                    Route route = Route.of(first, firstProxy, firstAuth);
                    for (URI second : URIS) {
                        for (InetSocketAddress secondProxy : PROXIES) {
                            for (String secondAuth : AUTHORIZATIONS) {
                                Route other = Route.of(second, secondProxy, secondAuth);
                                boolean equal = route.equals(other);
                                assertEquals(equal, route.matches(second, secondProxy, secondAuth),
                                        route + " against " + second + " " + secondProxy + " " + secondAuth);
                                if (equal) {
                                    assertEquals(route.hashCode(), other.hashCode());
                                    matched++;
                                }
                            }
                        }
                    }
                }
            }
        }
        // Not only the identical triples: default ports, scheme case and dropped credentials match too.
        assertTrue(matched > URIS.size() * PROXIES.size() * AUTHORIZATIONS.size(), "matched " + matched);
    }

    @Test
    void authorityShowsThePortOnlyWhenNotTheDefault() {
        assertEquals("example.com", Route.of(URI.create("http://example.com:80/"), null).authority());
        assertEquals("example.com:8080", Route.of(URI.create("http://example.com:8080/"), null).authority());
        assertEquals("example.com:80", Route.of(URI.create("https://example.com:80/"), null).authority());
        assertEquals("[::1]:8080", Route.of(URI.create("http://[::1]:8080/"), null).authority());
        assertEquals("::1", Route.of(URI.create("https://[::1]/"), null).host());
    }
}
