package io.ringkv.http.client.internal;

import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpResponse;

/** What a {@link HttpResponse.BodyHandler} sees before the body. Immutable. */
record ResponseInfoImpl(int statusCode, HttpHeaders headers, HttpClient.Version version)
        implements HttpResponse.ResponseInfo {

    ResponseInfoImpl(ResponseHead head) {
        this(head.status(), HeaderMaps.toHttpHeaders(head.fields()), head.version());
    }
}
