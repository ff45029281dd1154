package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublisher;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;

/**
 * The requests a protocol-parameterised node test sends to its node: through the protocol's client
 * ({@link TestClients}), with the test's keys ({@link SharedNodeKeys}) in every entity target, and
 * each answer checked to have come over the protocol under test.
 *
 * <p>Threading: one instance per test, used by its thread.
 */
final class NodeRequests implements AutoCloseable {
    private final Node node;
    private final SharedNodeKeys keys;
    private final HttpClient.Version version;
    private final HttpClient client;

    /** @param protocol {@code "H2C"} or {@code "HTTP_1_1"} */
    NodeRequests(Node node, SharedNodeKeys keys, String protocol) {
        this.node = node;
        this.keys = keys;
        this.version = protocol.equals("H2C") ? HttpClient.Version.HTTP_2 : HttpClient.Version.HTTP_1_1;
        this.client = TestClients.forProtocol(protocol);
    }

    /** The client itself, for requests to another node or without the test's keys. */
    HttpClient client() {
        return client;
    }

    /** {@code method target} with {@code body} (none when null) and header name/value pairs; the answer as UTF-8 text. */
    HttpResponse<String> text(String method, String target, String body, String... headers) throws IOException, InterruptedException {
        return send(method, target, body == null ? BodyPublishers.noBody() : BodyPublishers.ofString(body),
                BodyHandlers.ofString(StandardCharsets.UTF_8), headers);
    }

    /** As {@link #text}, the answer as bytes. */
    HttpResponse<byte[]> bytes(String method, String target, byte[] body, String... headers) throws IOException, InterruptedException {
        return send(method, target, body == null ? BodyPublishers.noBody() : BodyPublishers.ofByteArray(body),
                BodyHandlers.ofByteArray(), headers);
    }

    private <T> HttpResponse<T> send(String method, String target, BodyPublisher body, BodyHandler<T> answer, String... headers)
            throws IOException, InterruptedException {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(node.url() + keys.target(target))).method(method, body);
        for (int i = 0; i < headers.length; i += 2) {
            builder.header(headers[i], headers[i + 1]);
        }
        HttpResponse<T> response = client.send(builder.build(), answer);
        assertThat(response.version(), is(version));
        return response;
    }

    @Override
    public void close() {
        client.close();
    }
}
