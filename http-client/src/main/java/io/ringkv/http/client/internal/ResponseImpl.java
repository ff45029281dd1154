package io.ringkv.http.client.internal;

import io.ringkv.http.Headers;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Optional;
import javax.net.ssl.SSLSession;

/**
 * The {@link HttpResponse} handed to applications.
 *
 * <p>Threading: immutable as seen from outside, safe to share. The {@link HttpHeaders} view is
 * built on the first {@link #headers()} call, since most callers (ringkv's own replica client,
 * anything that reads only status and body) never ask for it and building it costs a sorted map,
 * a list per field and lower-cased names on every response. Two threads asking at once may both
 * build it; either result is equal and {@link HttpHeaders} has only final fields, so the racy
 * publication is safe.
 */
final class ResponseImpl<T> implements HttpResponse<T> {
    private final int statusCode;
    private final HttpRequest request;
    private final HttpResponse<T> previous;
    private final Headers fields;
    private final T body;
    private final SSLSession session;
    private final URI uri;
    private final HttpClient.Version version;
    private HttpHeaders headers;

    private ResponseImpl(int statusCode, HttpRequest request, HttpResponse<T> previous, Headers fields, T body,
            SSLSession session, URI uri, HttpClient.Version version) {
        this.statusCode = statusCode;
        this.request = request;
        this.previous = previous;
        this.fields = fields;
        this.body = body;
        this.session = session;
        this.uri = uri;
        this.version = version;
    }

    @SuppressWarnings("unchecked")
    static <T> ResponseImpl<T> of(Interim interim, T body) {
        return new ResponseImpl<>(interim.head().status(), interim.request().asHttpRequest(),
                (HttpResponse<T>) (HttpResponse<?>) interim.previous(), interim.head().fields(), body,
                interim.exchange() == null ? null : interim.exchange().sslSession().orElse(null),
                interim.request().uri(), interim.head().version());
    }

    @Override
    public int statusCode() {
        return statusCode;
    }

    @Override
    public HttpRequest request() {
        return request;
    }

    @Override
    public Optional<HttpResponse<T>> previousResponse() {
        return Optional.ofNullable(previous);
    }

    @Override
    public HttpHeaders headers() {
        HttpHeaders built = headers;
        if (built == null) {
            // ResponseHead's fields are never modified once parsed, so building late sees what building early would.
            built = HeaderMaps.toHttpHeaders(fields);
            headers = built;
        }
        return built;
    }

    @Override
    public T body() {
        return body;
    }

    @Override
    public Optional<SSLSession> sslSession() {
        return Optional.ofNullable(session);
    }

    @Override
    public URI uri() {
        return uri;
    }

    @Override
    public HttpClient.Version version() {
        return version;
    }

    @Override
    public String toString() {
        return "(" + request.method() + " " + uri + ") " + statusCode;
    }
}
