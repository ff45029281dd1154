package io.ringkv.http.client.internal;

import java.util.concurrent.CompletableFuture;

/**
 * One link of the request chain (redirects, authentication, cookies, network). A link may rewrite
 * the request, call {@link Chain#proceed} (more than once only when it retries, within a bound it
 * names), and inspect or replace what comes back.
 *
 * <p>Threading: {@code intercept} is called on an application thread or the client executor; the
 * futures returned by {@code proceed} complete on the client executor, so a link may call user
 * code (a CookieHandler, an Authenticator) in its continuations.
 */
@FunctionalInterface
public interface Link {

    CompletableFuture<Interim> intercept(ExchangeRequest request, Chain chain);
}
