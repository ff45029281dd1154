package io.ringkv.http.client.internal;

import io.ringkv.http.Headers;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublisher;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The request one attempt sends: the user's {@link HttpRequest} as rewritten by the chain
 * (a redirect changes the URI and maybe the method, cookies and credentials add fields).
 * Immutable; each rewrite returns a new instance.
 *
 * @param userRequest the request the application passed to send/sendAsync
 * @param method      the method to send
 * @param uri         the target, absolute
 * @param fields      user fields plus those links added; never codec-managed ones (Host, framing)
 * @param body        the body, or {@code null} for none
 * @param version     the protocol version asked for (request's, else client's)
 * @param bodyToArray the application reads the response body with the JDK's
 *                    {@code BodyHandlers.ofByteArray()}: the exchange copies the body into a
 *                    {@link ByteArrayBody} from the head on (see {@link BodyPipe#copyFromNowOn})
 */
public record ExchangeRequest(HttpRequest userRequest, String method, URI uri, Headers fields,
        BodyPublisher body, HttpClient.Version version, boolean bodyToArray) {

    static ExchangeRequest of(HttpRequest request, HttpClient.Version clientVersion) {
        return of(request, clientVersion, false);
    }

    /**
     * @param bodyToArray see the record's parameter of that name
     */
    static ExchangeRequest of(HttpRequest request, HttpClient.Version clientVersion, boolean bodyToArray) {
        Map<String, List<String>> map = request.headers().map();
        // Sized to the request's names (most have one value each), not padded: the links that
        // add fields copy them first (withField). A request without fields shares the one
        // immutable empty section: fields are never changed in place.
        Headers fields = map.isEmpty() ? Headers.NONE : new Headers(map.size());
        if (!map.isEmpty()) {
            for (Map.Entry<String, List<String>> field : map.entrySet()) {
                for (String value : field.getValue()) {
                    fields.add(field.getKey(), value);
                }
            }
        }
        return new ExchangeRequest(request, request.method(), request.uri(), fields,
                request.bodyPublisher().orElse(null), request.version().orElse(clientVersion), bodyToArray);
    }

    /** Whether the application asked for {@code Expect: 100-continue} (RFC 9110 §10.1.1). */
    public boolean expectContinue() {
        return userRequest.expectContinue();
    }

    /** The body's length in bytes: 0 for none, -1 for unknown (sent chunked in HTTP/1.1). */
    public long contentLength() {
        return body == null ? 0 : body.contentLength();
    }

    /** The same request with one field replaced (or added). */
    public ExchangeRequest withField(String name, String value) {
        Headers copy = copyFields();
        copy.set(name, value);
        return new ExchangeRequest(userRequest, method, uri, copy, body, version, bodyToArray);
    }

    /** The request sent after a redirect: new target, possibly new method; no body if it is GET. */
    public ExchangeRequest redirectedTo(URI target, String newMethod) {
        BodyPublisher newBody = newMethod.equals(method) ? body : null;
        Headers copy = copyFields();
        if (newBody == null) {
            copy.remove("Content-Type");
        }
        return new ExchangeRequest(userRequest, newMethod, target, copy, newBody, version, bodyToArray);
    }

    /**
     * This request as the application sees it in {@link java.net.http.HttpResponse#request()}: the
     * user's own instance when unchanged, else a copy with the new target and method.
     */
    public HttpRequest asHttpRequest() {
        if (uri.equals(userRequest.uri()) && method.equals(userRequest.method())) {
            return userRequest;
        }
        HttpRequest.Builder copy = HttpRequest.newBuilder(userRequest, (name, value) -> true).uri(uri);
        if (body == null) {
            // As the JDK's client shows a redirected request: GET(), DELETE() and HEAD() leave
            // bodyPublisher() empty, any other method carries noBody().
            switch (method) {
                case "GET" -> copy.GET();
                case "DELETE" -> copy.DELETE();
                case "HEAD" -> copy.HEAD();
                default -> copy.method(method, HttpRequest.BodyPublishers.noBody());
            }
        } else {
            copy.method(method, body);
        }
        return copy.build();
    }

    private Headers copyFields() {
        Headers copy = new Headers(fields.size() + 2);
        for (int i = 0; i < fields.size(); i++) {
            copy.add(fields.name(i), fields.value(i));
        }
        return copy;
    }
}
