package io.ringkv.http.client.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.CookieHandler;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Adds the cookies the {@link CookieHandler} holds for the target, and gives it the fields of
 * every response (including redirects) to store new ones (RFC 6265 §5.3, §5.4).
 *
 * <p>Threading: stateless; the handler is called on an application thread or the client executor.
 */
final class CookieLink implements Link {
    private final CookieHandler handler;

    CookieLink(CookieHandler handler) {
        this.handler = handler;
    }

    @Override
    public CompletableFuture<Interim> intercept(ExchangeRequest request, Chain chain) {
        ExchangeRequest withCookies;
        try {
            withCookies = addCookies(request);
        } catch (IOException e) {
            return CompletableFuture.failedFuture(e);
        }
        return chain.proceed(withCookies).thenApply(interim -> {
            try {
                handler.put(interim.request().uri(), HeaderMaps.toResponseMap(interim.head().fields()));
            } catch (IOException e) {
                interim.exchange().discardBody();
                throw new UncheckedIOException(e);
            }
            return interim;
        });
    }

    private ExchangeRequest addCookies(ExchangeRequest request) throws IOException {
        Map<String, List<String>> cookies = handler.get(request.uri(), HeaderMaps.toMap(request.fields()));
        ExchangeRequest result = request;
        for (Map.Entry<String, List<String>> entry : cookies.entrySet()) {
            String name = entry.getKey();
            List<String> values = entry.getValue();
            if (values == null || values.isEmpty()
                    || !(name.equalsIgnoreCase("Cookie") || name.equalsIgnoreCase("Cookie2"))) {
                continue;
            }
            // RFC 6265 §5.4: one Cookie field, pairs separated by "; ".
            result = result.withField(name, String.join("; ", values));
        }
        return result;
    }
}
