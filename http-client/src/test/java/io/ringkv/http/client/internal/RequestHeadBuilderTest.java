package io.ringkv.http.client.internal;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.empty;

import io.ringkv.http.Headers;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The HTTP/1.1 header section. The requests here carry fields the JDK's request builder accepts
 * only under jdk.httpclient.allowRestrictedHeaders (a JVM-wide setting read once), so they are
 * made by a plain {@link HttpRequest} subclass instead.
 */
class RequestHeadBuilderTest {
    private static final URI ORIGIN = URI.create("http://origin.test:8080/path");

    @Test
    void addsHostAndFramingWhenTheApplicationDidNot() {
        Headers fields = fields(request("POST", 5, Map.of("X-Trace", List.of("1"))));

        assertThat(values(fields, "Host"), contains("origin.test:8080"));
        assertThat(values(fields, "Content-Length"), contains("5"));
        assertThat(values(fields, "X-Trace"), contains("1"));
    }

    @Test
    void fieldsTheApplicationSetReplaceTheClientsOwn() {
        Headers fields = fields(request("POST", 5, Map.of("Host", List.of("virtual.test"),
                "Content-Length", List.of("5"))));

        assertThat(values(fields, "Host"), contains("virtual.test"));
        assertThat(values(fields, "Content-Length"), contains("5"));
    }

    @Test
    void anApplicationTransferEncodingReplacesTheClientsChunked() {
        Headers fields = fields(request("PUT", -1, Map.of("Transfer-Encoding", List.of("chunked"))));

        assertThat(values(fields, "Transfer-Encoding"), contains("chunked"));
        assertThat(values(fields, "Content-Length"), empty());
    }

    private static Headers fields(HttpRequest request) {
        return RequestHeadBuilder.fields(ExchangeRequest.of(request, HttpClient.Version.HTTP_1_1),
                Route.of(request.uri(), null));
    }

    private static List<String> values(Headers fields, String name) {
        List<String> values = new ArrayList<>();
        for (int i = 0; i < fields.size(); i++) {
            if (fields.name(i).equalsIgnoreCase(name)) {
                values.add(fields.value(i));
            }
        }
        return values;
    }

    /** A request with a body of {@code length} bytes (-1: unknown) and the given fields, unchecked. */
    private static HttpRequest request(String method, long length, Map<String, List<String>> fields) {
        HttpRequest.BodyPublisher body = length < 0
                ? HttpRequest.BodyPublishers.fromPublisher(HttpRequest.BodyPublishers.ofString("abc"))
                : HttpRequest.BodyPublishers.ofByteArray(new byte[(int) length]);
        return new HttpRequest() {
            @Override
            public Optional<BodyPublisher> bodyPublisher() {
                return Optional.of(body);
            }

            @Override
            public String method() {
                return method;
            }

            @Override
            public Optional<Duration> timeout() {
                return Optional.empty();
            }

            @Override
            public boolean expectContinue() {
                return false;
            }

            @Override
            public URI uri() {
                return ORIGIN;
            }

            @Override
            public Optional<HttpClient.Version> version() {
                return Optional.empty();
            }

            @Override
            public HttpHeaders headers() {
                return HttpHeaders.of(fields, (name, value) -> true);
            }
        };
    }
}
