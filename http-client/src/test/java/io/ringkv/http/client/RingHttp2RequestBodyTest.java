package io.ringkv.http.client;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.is;

import io.ringkv.http.h2.Http2Event;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** How request bodies are framed on the wire over HTTP/2 (RFC 9113 §8.1). */
@Timeout(60)
class RingHttp2RequestBodyTest {

    /** The DATA frames the client sent: "length" plus " END_STREAM" when the flag was set. */
    private static List<String> dataFrames(ScriptedH2Server server) {
        return server.eventsFromClient().stream()
                .filter(Http2Event.DataReceived.class::isInstance)
                .map(Http2Event.DataReceived.class::cast)
                .map(data -> data.data().remaining() + (data.endStream() ? " END_STREAM" : ""))
                .toList();
    }

    private static String post(HttpClient client, ScriptedH2Server server, HttpRequest.BodyPublisher body)
            throws Exception {
        return client.sendAsync(HttpRequest.newBuilder(URI.create(server.base() + "/upload")).POST(body).build(),
                BodyHandlers.ofString()).get(30, TimeUnit.SECONDS).body();
    }

    @Test
    void aBodyOfKnownLengthEndsTheStreamWithItsLastDataFrame() throws Exception {
        HttpClient client = RingHttpClient.newBuilder().http2PriorKnowledge(true)
                .version(HttpClient.Version.HTTP_2).build();
        try (ScriptedH2Server server = new ScriptedH2Server(
                (connection, protocol, streams) -> ScriptedH2Server.respond(protocol, streams.getLast(), "ok"))) {
            assertThat(post(client, server, BodyPublishers.ofString("hello")), is("ok"));
            assertThat(dataFrames(server), contains("5 END_STREAM"));
        } finally {
            client.shutdownNow();
            assertThat(client.awaitTermination(Duration.ofSeconds(30)), is(true));
        }
    }

    @Test
    void aBodyOfUnknownLengthEndsTheStreamWithAnEmptyDataFrame() throws Exception {
        HttpClient client = RingHttpClient.newBuilder().http2PriorKnowledge(true)
                .version(HttpClient.Version.HTTP_2).build();
        try (ScriptedH2Server server = new ScriptedH2Server(
                (connection, protocol, streams) -> ScriptedH2Server.respond(protocol, streams.getLast(), "ok"))) {
            HttpRequest.BodyPublisher unknownLength = BodyPublishers.ofInputStream(
                    () -> new java.io.ByteArrayInputStream("hello".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
            assertThat(post(client, server, unknownLength), is("ok"));
            assertThat(dataFrames(server), contains("5", "0 END_STREAM"));
        } finally {
            client.shutdownNow();
            assertThat(client.awaitTermination(Duration.ofSeconds(30)), is(true));
        }
    }
}
