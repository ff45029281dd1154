package io.ringkv.http.client.internal;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Optional;
import javax.net.ssl.SSLSession;

/** The {@link HttpResponse} handed to applications. Immutable. */
record ResponseImpl<T>(int statusCode, HttpRequest request, HttpResponse<T> previous,
        HttpHeaders headers, T body, SSLSession session, URI uri, HttpClient.Version version)
        implements HttpResponse<T> {

    @SuppressWarnings("unchecked")
    static <T> ResponseImpl<T> of(Interim interim, T body) {
        return new ResponseImpl<>(interim.head().status(), interim.request().asHttpRequest(),
                (HttpResponse<T>) (HttpResponse<?>) interim.previous(),
                HeaderMaps.toHttpHeaders(interim.head().fields()), body,
                interim.exchange() == null ? null : interim.exchange().sslSession().orElse(null),
                interim.request().uri(), interim.head().version());
    }

    @Override
    public Optional<HttpResponse<T>> previousResponse() {
        return Optional.ofNullable(previous);
    }

    @Override
    public Optional<SSLSession> sslSession() {
        return Optional.ofNullable(session);
    }

    @Override
    public String toString() {
        return "(" + request.method() + " " + uri + ") " + statusCode;
    }
}
