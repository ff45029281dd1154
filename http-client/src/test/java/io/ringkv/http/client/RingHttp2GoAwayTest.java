package io.ringkv.http.client;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsInAnyOrder;
import static org.hamcrest.Matchers.is;

import io.ringkv.http.h2.ErrorCode;
import io.ringkv.http.h2.FrameGenerator;
import io.ringkv.http.h2.GoAwayFrame;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** RFC 9113 §6.8: streams above a GOAWAY's last-stream-id were not processed and are retried elsewhere. */
@Timeout(60)
class RingHttp2GoAwayTest {

    @Test
    void streamsAboveTheGoAwayLastStreamIdAreRetriedOnANewConnection() throws Exception {
        // Connection 0 waits for two requests, answers stream 1 and sends GOAWAY(last=1); later ones answer all.
        ScriptedH2Server.Script script = (connection, protocol, streams) -> {
            if (connection > 0) {
                return ScriptedH2Server.respond(protocol, streams.getLast(), "retried");
            }
            if (streams.size() < 2) {
                return List.of();
            }
            List<ByteBuffer> frames = new ArrayList<>(ScriptedH2Server.respond(protocol, streams.getFirst(), "first"));
            frames.add(new FrameGenerator().generate(new GoAwayFrame(streams.getFirst(), ErrorCode.NO_ERROR.code,
                    ByteBuffer.allocate(0))));
            return frames;
        };
        HttpClient client = RingHttpClient.newBuilder().http2PriorKnowledge(true)
                .version(HttpClient.Version.HTTP_2).build();
        try (ScriptedH2Server server = new ScriptedH2Server(script)) {
            List<CompletableFuture<HttpResponse<String>>> futures = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                futures.add(client.sendAsync(HttpRequest.newBuilder(URI.create(server.base() + "/r" + i)).build(),
                        BodyHandlers.ofString()));
            }
            List<String> bodies = new ArrayList<>();
            for (CompletableFuture<HttpResponse<String>> future : futures) {
                bodies.add(future.get(30, TimeUnit.SECONDS).body());
            }
            assertThat(bodies, containsInAnyOrder("first", "retried"));
            assertThat(server.connectionsAccepted(), is(2));
        } finally {
            client.shutdownNow();
            assertThat(client.awaitTermination(Duration.ofSeconds(30)), is(true));
        }
    }
}
