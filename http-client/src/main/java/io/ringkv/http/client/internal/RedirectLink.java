package io.ringkv.http.client.internal;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Follows redirects under the client's policy, at most {@link #REDIRECTS_MAX} hops per call; the
 * redirect after that is returned to the application as the response, as the JDK client (25)
 * does.
 *
 * <p>Threading: stateless; continuations run on the client executor.
 */
final class RedirectLink implements Link {
    /**
     * Redirects followed per call. The JDK's jdk.httpclient.redirects.retrylimit is 5, and it
     * follows one fewer than that (measured by the compatibility suite).
     */
    static final int REDIRECTS_MAX = 4;

    private final HttpClient.Redirect policy;

    RedirectLink(HttpClient.Redirect policy) {
        this.policy = policy;
    }

    @Override
    public CompletableFuture<Interim> intercept(ExchangeRequest request, Chain chain) {
        return follow(request, chain, 0, null);
    }

    private CompletableFuture<Interim> follow(ExchangeRequest request, Chain chain, int hops,
            HttpResponse<Void> previous) {
        return chain.proceed(request).thenCompose(answer -> {
            Interim interim = answer.withPrevious(previous);
            Optional<ExchangeRequest> next;
            try {
                next = RedirectRule.next(policy, request, interim.head());
            } catch (IOException broken) {
                interim.exchange().discardBody(); // the connection stays usable for other calls
                return CompletableFuture.failedFuture(broken);
            }
            if (next.isEmpty()) {
                return CompletableFuture.completedFuture(interim);
            }
            if (hops >= REDIRECTS_MAX) {
                return CompletableFuture.completedFuture(interim);
            }
            interim.exchange().discardBody();
            return follow(next.get(), chain, hops + 1, interim.asPrevious());
        });
    }
}
