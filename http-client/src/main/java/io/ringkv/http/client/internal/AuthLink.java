package io.ringkv.http.client.internal;

import java.io.IOException;
import java.net.Authenticator;
import java.net.MalformedURLException;
import java.net.PasswordAuthentication;
import java.net.URI;
import java.net.http.HttpResponse;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Answers 401 (origin) and 407 (proxy) Basic challenges with credentials from the client's
 * {@link Authenticator} (RFC 9110 §11.6). At most {@link #ATTEMPTS_MAX} retries per call; when the
 * authenticator has nothing to offer, the challenge response is returned to the application.
 *
 * <p>Threading: stateless; the authenticator is called on the client executor.
 */
final class AuthLink implements Link {
    /** The JDK client's default bound (its jdk.httpclient.auth.retrylimit). */
    static final int ATTEMPTS_MAX = 3;

    private final Authenticator authenticator;

    AuthLink(Authenticator authenticator) {
        this.authenticator = authenticator;
    }

    @Override
    public CompletableFuture<Interim> intercept(ExchangeRequest request, Chain chain) {
        return attempt(request, chain, 0, null);
    }

    private CompletableFuture<Interim> attempt(ExchangeRequest request, Chain chain, int retries,
            HttpResponse<Void> previous) {
        return chain.proceed(request).thenCompose(answer -> {
            Interim interim = answer.withPrevious(previous);
            int status = interim.head().status();
            if (status != 401 && status != 407) {
                return CompletableFuture.completedFuture(interim);
            }
            boolean proxy = status == 407;
            Optional<String> credentials = credentialsFor(interim, proxy);
            if (credentials.isEmpty()) {
                return CompletableFuture.completedFuture(interim);
            }
            interim.exchange().discardBody();
            if (retries >= ATTEMPTS_MAX) {
                return CompletableFuture.failedFuture(new IOException(
                        "too many authentication attempts. Limit: " + ATTEMPTS_MAX));
            }
            ExchangeRequest retry = request.withField(proxy ? "Proxy-Authorization" : "Authorization",
                    credentials.get());
            return attempt(retry, chain, retries + 1, interim.asPrevious());
        });
    }

    private Optional<String> credentialsFor(Interim interim, boolean proxy) {
        String challengeField = proxy ? "Proxy-Authenticate" : "WWW-Authenticate";
        Optional<BasicChallenge> challenge = BasicChallenge.find(interim.head().fields().all(challengeField));
        if (challenge.isEmpty()) {
            return Optional.empty();
        }
        URI uri = interim.request().uri();
        Route route = Route.of(uri, null);
        PasswordAuthentication password;
        try {
            password = authenticator.requestPasswordAuthenticationInstance(route.host(), null, route.port(),
                    route.scheme(), challenge.get().realm(), "Basic", uri.toURL(),
                    proxy ? Authenticator.RequestorType.PROXY : Authenticator.RequestorType.SERVER);
        } catch (MalformedURLException e) {
            return Optional.empty();
        }
        if (password == null) {
            return Optional.empty();
        }
        return Optional.of(BasicChallenge.credentials(password.getUserName(), password.getPassword()));
    }
}
