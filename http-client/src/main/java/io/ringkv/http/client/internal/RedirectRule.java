package io.ringkv.http.client.internal;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.util.Locale;
import java.util.Optional;

/**
 * Pure redirect decisions: whether a response is followed under a policy, and the request that
 * follows it. No I/O, no state.
 */
final class RedirectRule {
    private RedirectRule() {
    }

    /**
     * The request to send next, or empty when {@code head} is not to be followed.
     *
     * @throws IOException a redirect to follow without a Location, or with one that is not a URI
     *     reference: the JDK's client fails the call then (with an IOException too), rather than
     *     return the redirect
     */
    static Optional<ExchangeRequest> next(HttpClient.Redirect policy, ExchangeRequest request, ResponseHead head)
            throws IOException {
        if (policy == HttpClient.Redirect.NEVER || !isFollowable(head.status())) {
            return Optional.empty();
        }
        Optional<String> location = head.fields().first("Location");
        if (location.isEmpty()) {
            throw new IOException("invalid redirection: " + head.status() + " from " + request.uri()
                    + " has no Location field");
        }
        URI target = resolve(request.uri(), location.get(), head.status());
        if (!allowed(policy, request.uri(), target)) {
            return Optional.empty();
        }
        return Optional.of(request.redirectedTo(target, method(head.status(), request.method())));
    }

    /**
     * RFC 9110 §15.4: 301, 302, 303, 307 and 308 carry a Location to follow. 300 (a choice for
     * the user), 304 (a cache answer), 305 and 306 (deprecated, unused) are not followed.
     */
    static boolean isFollowable(int status) {
        return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
    }

    /**
     * RFC 9110 §15.4.4: 303 is answered with GET (HEAD stays HEAD). §15.4.2-3: for 301 and 302 user
     * agents may turn POST into GET, and all common ones do. 307/308 keep the method and body.
     */
    static String method(int status, String method) {
        if (status == 303) {
            return "HEAD".equals(method) ? "HEAD" : "GET";
        }
        if ((status == 301 || status == 302) && "POST".equals(method)) {
            return "GET";
        }
        return method;
    }

    /** NORMAL never follows from https to http; ALWAYS follows anything with an http(s) scheme. */
    static boolean allowed(HttpClient.Redirect policy, URI from, URI to) {
        String scheme = to.getScheme() == null ? "" : to.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            return false;
        }
        if (policy == HttpClient.Redirect.ALWAYS) {
            return true;
        }
        return !("https".equalsIgnoreCase(from.getScheme()) && scheme.equals("http"));
    }

    /** RFC 9110 §10.2.2: Location may be relative; it is resolved against the request target. */
    private static URI resolve(URI base, String location, int status) throws IOException {
        try {
            return base.resolve(new URI(location.trim()));
        } catch (java.net.URISyntaxException | IllegalArgumentException e) {
            throw new IOException("invalid redirection: " + status + " from " + base + " to \"" + location
                    + "\", which is not a URI reference (" + e.getMessage() + ")", e);
        }
    }
}
