package io.ringkv.http.client.internal;

import io.ringkv.http.Headers;
import io.ringkv.http.hpack.HeaderField;
import java.net.http.HttpClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** Request field blocks for HTTP/2 and response heads from them (RFC 9113 §8.3). Pure. */
final class H2Fields {
    /** RFC 9113 §8.2.2: connection-specific fields must not appear in HTTP/2. */
    private static final Set<String> CONNECTION_SPECIFIC = Set.of(
            "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "host");

    private H2Fields() {
    }

    // Fields most requests carry, shared (a HeaderField is immutable) instead of built per request.
    private static final HeaderField METHOD_GET = new HeaderField(":method", "GET");
    private static final HeaderField SCHEME_HTTP = new HeaderField(":scheme", "http");
    private static final HeaderField SCHEME_HTTPS = new HeaderField(":scheme", "https");
    private static final HeaderField USER_AGENT = new HeaderField("user-agent", RequestHeadBuilder.USER_AGENT);

    /** Pseudo-header fields first (§8.3.1), then the request's own fields, lower-cased (§8.2.1). */
    static List<HeaderField> request(ExchangeRequest request, Route route) {
        Headers own = request.fields();
        List<HeaderField> fields = new ArrayList<>(own.size() + 7);
        fields.add(request.method().equals("GET") ? METHOD_GET : new HeaderField(":method", request.method()));
        fields.add(route.secure() ? SCHEME_HTTPS : SCHEME_HTTP);
        fields.add(route.authorityField());
        fields.add(new HeaderField(":path", RequestHeadBuilder.target(request, route)));
        // RFC 9113 §8.1.1: content-length is optional; like the JDK, none for an empty body.
        if (request.body() != null && request.contentLength() > 0) {
            fields.add(new HeaderField("content-length", Long.toString(request.contentLength())));
        }
        if (!own.contains("User-Agent")) {
            fields.add(USER_AGENT);
        }
        for (int i = 0; i < own.size(); i++) {
            String name = own.name(i).toLowerCase(Locale.ROOT);
            if (!CONNECTION_SPECIFIC.contains(name) && !name.equals("expect")
                    && (route.forwardedByProxy() || !RequestHeadBuilder.isProxyField(name))) {
                fields.add(new HeaderField(name, own.value(i)));
            }
        }
        return fields;
    }

    /** The :status pseudo-header field, or -1 when absent (http-core validated the block already). */
    static int status(List<HeaderField> fields) {
        for (int i = 0; i < fields.size(); i++) { // indexed: no iterator per response
            HeaderField field = fields.get(i);
            if (field.name().equals(":status")) {
                return Integer.parseInt(field.value());
            }
        }
        return -1;
    }

    /** A final response head: the regular fields, without pseudo-headers (as the JDK reports them). */
    static ResponseHead head(int status, List<HeaderField> fields) {
        Headers regular = new Headers(fields.size());
        for (int i = 0; i < fields.size(); i++) {
            HeaderField field = fields.get(i);
            if (!field.name().startsWith(":")) {
                regular.add(field.name(), field.value());
            }
        }
        return new ResponseHead(status, regular, HttpClient.Version.HTTP_2);
    }
}
