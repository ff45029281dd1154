package io.ringkv.http.client.internal;

import io.ringkv.http.hpack.HeaderField;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The request a server promised to answer (RFC 9113 §8.4), as a {@link java.net.http.HttpResponse.PushPromiseHandler}
 * sees it: method and URI from the PUSH_PROMISE's pseudo-header fields ({@code :scheme},
 * {@code :authority}, {@code :path}); its headers are the promise's fields, pseudo-header fields
 * included, without those an application may not set (as the JDK client shows them). Like the
 * JDK's, it carries the initiating request's timeout, version and expect-continue flag and no body.
 * Immutable; equal to any {@link HttpRequest} with the same method, URI and headers (the
 * key of {@link java.net.http.HttpResponse.PushPromiseHandler#of}'s map).
 *
 * @see java.net.http.HttpResponse.PushPromiseHandler
 */
final class PushedRequest extends HttpRequest {
    /** Fields an {@link HttpRequest.Builder} refuses; the JDK leaves them out of promised requests too. */
    private static final java.util.Set<String> RESTRICTED = java.util.Set.of(
            "connection", "content-length", "expect", "host", "upgrade");

    private final String method;
    private final URI uri;
    private final HttpHeaders headers;
    private final HttpRequest initiating;

    private PushedRequest(String method, URI uri, HttpHeaders headers, HttpRequest initiating) {
        this.method = method;
        this.uri = uri;
        this.headers = headers;
        this.initiating = initiating;
    }

    /**
     * The promised request from a field block http-core validated (pseudo-header fields first).
     *
     * @throws IllegalArgumentException if the fields do not make an absolute URI
     */
    static PushedRequest of(List<HeaderField> fields, HttpRequest initiating) {
        String method = null;
        String scheme = null;
        String authority = null;
        String path = null;
        Map<String, List<String>> shown = new LinkedHashMap<>();
        for (HeaderField field : fields) {
            switch (field.name()) {
                case ":method" -> method = field.value();
                case ":scheme" -> scheme = field.value();
                case ":authority" -> authority = field.value();
                case ":path" -> path = field.value();
                default -> { }
            }
            if (!RESTRICTED.contains(field.name())) {
                shown.computeIfAbsent(field.name(), name -> new ArrayList<>()).add(field.value());
            }
        }
        if (method == null || scheme == null || authority == null || path == null) {
            throw new IllegalArgumentException("promised request lacks :method, :scheme, :authority or :path");
        }
        URI uri;
        try {
            uri = new URI(scheme + "://" + authority + path);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("promised request has no valid URI: " + e.getMessage(), e);
        }
        if (uri.getHost() == null) {
            throw new IllegalArgumentException("promised request has no host: " + uri);
        }
        return new PushedRequest(method, uri, HttpHeaders.of(shown, (name, value) -> true), initiating);
    }

    @Override
    public Optional<BodyPublisher> bodyPublisher() {
        return Optional.empty();
    }

    @Override
    public String method() {
        return method;
    }

    @Override
    public Optional<Duration> timeout() {
        return initiating.timeout();
    }

    @Override
    public boolean expectContinue() {
        return initiating.expectContinue();
    }

    @Override
    public URI uri() {
        return uri;
    }

    @Override
    public Optional<HttpClient.Version> version() {
        return initiating.version();
    }

    @Override
    public HttpHeaders headers() {
        return headers;
    }

    @Override
    public String toString() {
        return uri + " " + method;
    }
}
