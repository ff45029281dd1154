package io.ringkv.http.client;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** RFC 9113 §6.7: PING keeps idle pooled HTTP/2 connections honest. */
@Timeout(60)
class RingHttp2PingTest {
    private static final Duration PING_INTERVAL = Duration.ofMillis(100);
    private static final Duration PING_TIMEOUT = Duration.ofMillis(200);

    private ScriptedH2Server server;
    private HttpClient client;

    @BeforeEach
    void start() throws Exception {
        server = new ScriptedH2Server((connection, protocol, streams) ->
                ScriptedH2Server.respond(protocol, streams.getLast(), "answer " + connection));
        client = RingHttpClient.newBuilder().http2PriorKnowledge(true).version(HttpClient.Version.HTTP_2)
                .http2PingInterval(PING_INTERVAL).http2PingTimeout(PING_TIMEOUT).build();
    }

    @AfterEach
    void stop() throws Exception {
        client.shutdownNow();
        assertThat(client.awaitTermination(Duration.ofSeconds(30)), is(true));
        server.close();
    }

    private String get() throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create(server.base() + "/p")).build(),
                BodyHandlers.ofString()).body();
    }

    @Test
    void closesAnIdleConnectionWhosePeerStopsAnsweringAndUsesANewOne() throws Exception {
        assertThat(get(), is("answer 0"));
        server.mute(0);
        Awaitility.await().atMost(20, TimeUnit.SECONDS).until(() -> server.connectionsClosedByClient() == 1);
        assertThat(get(), is("answer 1"));
        assertThat(server.connectionsAccepted(), is(2));
    }

    @Test
    void keepsAnIdleConnectionThatAnswersPings() throws Exception {
        assertThat(get(), is("answer 0"));
        Awaitility.await().atMost(20, TimeUnit.SECONDS).until(() -> server.pingAcksSent() >= 3);
        assertThat(get(), is("answer 0"));
        assertThat(server.connectionsAccepted(), is(1));
        assertThat(server.connectionsClosedByClient(), is(0));
    }
}
