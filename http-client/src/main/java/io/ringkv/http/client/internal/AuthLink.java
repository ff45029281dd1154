package io.ringkv.http.client.internal;

import java.io.IOException;
import java.net.Authenticator;
import java.net.InetSocketAddress;
import java.net.MalformedURLException;
import java.net.PasswordAuthentication;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Answers 401 (origin) and 407 (proxy) Basic challenges with credentials from the client's
 * {@link Authenticator} (RFC 9110 §11.6). At most {@link #ATTEMPTS_MAX} retries per call. As the
 * JDK does, the challenge response is returned to the application when the request carried its
 * own Authorization / Proxy-Authorization, when the challenge offers no Basic, or when Basic is
 * disabled for that kind of proxy ({@link ProxyAuthPolicy}; by default for CONNECT tunnels); an
 * authenticator that has no credentials, and a 401 or 407 without any challenge, fail the call
 * with an {@link IOException}.
 *
 * <p>Proxy credentials go into the request's Proxy-Authorization field; the codecs send it only to
 * a forwarding proxy, and {@link NetworkLink} moves it onto the CONNECT of a tunnel, so the origin
 * never sees it.
 *
 * <p>Threading: stateless; the authenticator is called on the client executor.
 */
final class AuthLink implements Link {
    /**
     * The JDK client's default bound (its jdk.httpclient.auth.retrylimit): after the first answer,
     * this many more challenges are answered; the next one fails the call.
     */
    static final int ATTEMPTS_MAX = 3;
    /** The scheme as the JDK names it to the authenticator: lower case, as its header parser returns it. */
    static final String BASIC_AS_PARSED = "basic";

    private final Authenticator authenticator;
    private final ProxySelector proxies;

    /** @param proxies the client's selector, {@code null} for none: a proxy's challenge names the proxy */
    AuthLink(Authenticator authenticator, ProxySelector proxies) {
        this.authenticator = authenticator;
        this.proxies = proxies;
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
            Optional<BasicChallenge> challenge;
            try {
                challenge = answerable(interim, proxy);
            } catch (IOException noChallenge) {
                interim.exchange().discardBody();
                return CompletableFuture.failedFuture(noChallenge);
            }
            if (challenge.isEmpty()) {
                return CompletableFuture.completedFuture(interim);
            }
            interim.exchange().discardBody();
            if (retries > ATTEMPTS_MAX) {
                return CompletableFuture.failedFuture(new IOException(
                        "too many authentication attempts. Limit: " + ATTEMPTS_MAX));
            }
            PasswordAuthentication password;
            try {
                password = ask(interim, proxy, challenge.get());
            } catch (IOException e) {
                return CompletableFuture.failedFuture(e);
            }
            if (password == null) {
                return CompletableFuture.failedFuture(new IOException("No credentials provided"));
            }
            ExchangeRequest retry = request.withField(proxy ? "Proxy-Authorization" : "Authorization",
                    BasicChallenge.credentials(password.getUserName(), password.getPassword()));
            return attempt(retry, chain, retries + 1, interim.asPrevious());
        });
    }

    /**
     * The Basic challenge to answer, or empty when the response goes back to the application as it is.
     *
     * @throws IOException the 401 or 407 carries no challenge at all (RFC 9110 §11.6.1 and §11.7.1
     *     require one); the JDK's client fails the call then, with this message
     */
    private static Optional<BasicChallenge> answerable(Interim interim, boolean proxy) throws IOException {
        String own = proxy ? "Proxy-Authorization" : "Authorization";
        if (interim.request().userRequest().headers().firstValue(own).isPresent()) {
            return Optional.empty(); // the application manages these credentials itself
        }
        String challengeField = proxy ? "Proxy-Authenticate" : "WWW-Authenticate";
        List<String> challenges = interim.head().fields().all(challengeField);
        if (challenges.isEmpty()) {
            throw new IOException(challengeField + " header missing for response code " + interim.head().status());
        }
        Optional<BasicChallenge> challenge = BasicChallenge.find(challenges);
        if (challenge.isEmpty() || !proxy) {
            return challenge;
        }
        boolean allowed = interim.exchange() instanceof ProxyRefusal
                ? ProxyAuthPolicy.SYSTEM.tunnelAllows("Basic") : ProxyAuthPolicy.SYSTEM.proxyAllows("Basic");
        return allowed ? challenge : Optional.empty();
    }

    /** As the JDK: a proxy is named by its own address, with protocol "http"; an origin by the request URI. */
    private PasswordAuthentication ask(Interim interim, boolean proxy, BasicChallenge challenge) throws IOException {
        URI uri = interim.request().uri();
        InetSocketAddress proxyAddress = proxy ? ProxyChoice.of(proxies, uri) : null;
        Route origin = Route.of(uri, null);
        try {
            if (proxyAddress != null) {
                return authenticator.requestPasswordAuthenticationInstance(proxyAddress.getHostString(), null,
                        proxyAddress.getPort(), "http", challenge.realm(), BASIC_AS_PARSED, uri.toURL(),
                        Authenticator.RequestorType.PROXY);
            }
            return authenticator.requestPasswordAuthenticationInstance(origin.host(), null, origin.port(),
                    origin.scheme(), challenge.realm(), BASIC_AS_PARSED, uri.toURL(),
                    proxy ? Authenticator.RequestorType.PROXY : Authenticator.RequestorType.SERVER);
        } catch (MalformedURLException e) {
            throw new IOException("cannot name " + uri + " to the authenticator", e);
        }
    }
}
