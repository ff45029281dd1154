package io.ringkv.http.client;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ringkv.http.h2.ErrorCode;
import io.ringkv.http.h2.FrameGenerator;
import io.ringkv.http.h2.Http2Event;
import io.ringkv.http.hpack.HeaderField;
import io.ringkv.http.hpack.HpackEncoder;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpResponse.PushPromiseHandler;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Server push edge cases (RFC 9113 §6.6, §8.4) against {@link ScriptedH2Server}: what the client
 * answers to promises it declines, refuses or must not accept, and what happens to pushed
 * responses when their request is cancelled or the connection is lost.
 */
@Timeout(60)
class RingHttp2PushTest {
    private final List<HttpClient> clients = new ArrayList<>();

    @AfterEach
    void stopClients() throws Exception {
        for (HttpClient client : clients) {
            client.shutdownNow();
            assertThat(client.awaitTermination(Duration.ofSeconds(30)), is(true));
        }
    }

    private HttpClient client(boolean push) {
        HttpClient client = RingHttpClient.newBuilder().http2PriorKnowledge(true).http2ServerPush(push)
                .version(HttpClient.Version.HTTP_2).build();
        clients.add(client);
        return client;
    }

    private static List<HeaderField> promisedGet(ScriptedH2Server server, String path) {
        URI base = URI.create(server.base());
        return List.of(new HeaderField(":method", "GET"), new HeaderField(":scheme", "http"),
                new HeaderField(":path", path), new HeaderField(":authority", base.getAuthority()));
    }

    /** Promises {@code /pushed} and starts its response (left open), then answers the request with "main". */
    private static ScriptedH2Server pushingServer() throws IOException {
        AtomicReference<ScriptedH2Server> self = new AtomicReference<>();
        ScriptedH2Server server = new ScriptedH2Server((connection, protocol, streams) -> {
            int stream = streams.getLast();
            int promised = protocol.pushPromise(stream, promisedGet(self.get(), "/pushed"));
            protocol.sendHeaders(promised, List.of(new HeaderField(":status", "200")), false);
            protocol.sendData(promised, ByteBuffer.wrap("pushed-start".getBytes()), false);
            return ScriptedH2Server.respond(protocol, stream, "main");
        });
        self.set(server);
        return server;
    }

    @Test
    void declinedPromisesAreCancelledAndPromisesWithoutAHandlerRefused() throws Exception {
        HttpClient client = client(true);
        try (ScriptedH2Server server = pushingServer()) {
            List<URI> offered = new ArrayList<>();
            PushPromiseHandler<String> declining = (initiating, promised, acceptor) -> offered.add(promised.uri());
            HttpResponse<String> declined = client.sendAsync(HttpRequest.newBuilder(URI.create(server.base() + "/a"))
                    .build(), BodyHandlers.ofString(), declining).get(30, TimeUnit.SECONDS);
            assertThat(declined.body(), is("main"));
            assertThat(offered, is(List.of(URI.create(server.base() + "/pushed"))));
            HttpResponse<String> unhandled = client.send(HttpRequest.newBuilder(URI.create(server.base() + "/b"))
                    .build(), BodyHandlers.ofString());
            assertThat(unhandled.body(), is("main"));
            Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> server.eventsFromClient().size() >= 2);
            assertThat(server.eventsFromClient(), is(List.of(
                    new Http2Event.StreamReset(2, ErrorCode.CANCEL, true, "reset_by_peer"),
                    new Http2Event.StreamReset(4, ErrorCode.REFUSED_STREAM, true, "reset_by_peer"))));
            assertThat(server.connectionsAccepted(), is(1));
            assertThat(server.clientSettings().enablePush(), is(true));
        }
    }

    @Test
    void theAcceptorWorksOnceAndOnlyWhileTheHandlerRuns() throws Exception {
        HttpClient client = client(true);
        try (ScriptedH2Server server = pushingServer()) {
            AtomicReference<Function<BodyHandler<String>, CompletableFuture<HttpResponse<String>>>> kept =
                    new AtomicReference<>();
            AtomicReference<Throwable> secondAccept = new AtomicReference<>();
            PushPromiseHandler<String> twice = (initiating, promised, acceptor) -> {
                kept.set(acceptor);
                acceptor.apply(BodyHandlers.ofString());
                try {
                    acceptor.apply(BodyHandlers.ofString());
                } catch (IllegalStateException expected) {
                    secondAccept.set(expected);
                }
            };
            client.sendAsync(HttpRequest.newBuilder(URI.create(server.base() + "/a")).build(), BodyHandlers.ofString(),
                    twice).get(30, TimeUnit.SECONDS);
            assertThat(secondAccept.get(), instanceOf(IllegalStateException.class));

            PushPromiseHandler<String> late = (initiating, promised, acceptor) -> kept.set(acceptor);
            client.sendAsync(HttpRequest.newBuilder(URI.create(server.base() + "/b")).build(), BodyHandlers.ofString(),
                    late).get(30, TimeUnit.SECONDS);
            assertThrows(IllegalStateException.class, () -> kept.get().apply(BodyHandlers.ofString()));
        }
    }

    @Test
    void pushDisabledByTheBuilderMakesAPromiseAConnectionError() throws Exception {
        HttpClient client = client(false);
        AtomicReference<ScriptedH2Server> self = new AtomicReference<>();
        try (ScriptedH2Server server = new ScriptedH2Server((connection, protocol, streams) -> {
            int stream = streams.getLast();
            // The server's own protocol would refuse to push to this client: write the frame by hand.
            ByteBuffer block = new HpackEncoder().encode(promisedGet(self.get(), "/pushed"));
            List<ByteBuffer> frames = new ArrayList<>();
            frames.add(new FrameGenerator().pushPromise(stream, 2, block));
            if (connection == 0) {
                return frames;
            }
            return ScriptedH2Server.respond(protocol, stream, "never pushed to");
        })) {
            self.set(server);
            PushPromiseHandler<String> handler = (initiating, promised, acceptor) -> acceptor.apply(BodyHandlers.ofString());
            ExecutionException failed = assertThrows(ExecutionException.class, () -> client.sendAsync(
                    HttpRequest.newBuilder(URI.create(server.base() + "/a")).build(), BodyHandlers.ofString(), handler)
                    .get(30, TimeUnit.SECONDS));
            assertThat(failed.getCause(), instanceOf(IOException.class));
            assertThat(server.clientSettings().enablePush(), is(false));
            Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> !server.eventsFromClient().isEmpty());
            assertThat(server.eventsFromClient(), is(List.of(
                    new Http2Event.GoAwayReceived(0, ErrorCode.PROTOCOL_ERROR, "push_not_allowed"))));
        }
    }

    @Test
    void aPromiseOnAStreamTheServerEndedIsAConnectionError() throws Exception {
        HttpClient client = client(true);
        AtomicReference<ScriptedH2Server> self = new AtomicReference<>();
        try (ScriptedH2Server server = new ScriptedH2Server((connection, protocol, streams) -> {
            int stream = streams.getLast();
            List<ByteBuffer> frames = new ArrayList<>(ScriptedH2Server.respond(protocol, stream, "main"));
            if (connection == 0) {
                ByteBuffer block = new HpackEncoder().encode(promisedGet(self.get(), "/late"));
                frames.add(new FrameGenerator().pushPromise(stream, 2, block));
            }
            return frames;
        })) {
            self.set(server);
            PushPromiseHandler<String> handler = (initiating, promised, acceptor) -> acceptor.apply(BodyHandlers.ofString());
            HttpResponse<String> main = client.sendAsync(HttpRequest.newBuilder(URI.create(server.base() + "/a"))
                    .build(), BodyHandlers.ofString(), handler).get(30, TimeUnit.SECONDS);
            assertThat(main.body(), is("main"));
            Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> !server.eventsFromClient().isEmpty());
            assertThat(server.eventsFromClient(), is(List.of(
                    new Http2Event.GoAwayReceived(0, ErrorCode.PROTOCOL_ERROR, "push_promise_on_bad_stream"))));
            // The failed connection left the pool: the next request gets a new one.
            assertThat(client.send(HttpRequest.newBuilder(URI.create(server.base() + "/b")).build(),
                    BodyHandlers.ofString()).body(), is("main"));
            assertThat(server.connectionsAccepted(), is(2));
        }
    }

    @Test
    void cancellingTheRequestCancelsItsPushes() throws Exception {
        HttpClient client = client(true);
        AtomicReference<ScriptedH2Server> self = new AtomicReference<>();
        try (ScriptedH2Server server = new ScriptedH2Server((connection, protocol, streams) -> {
            int stream = streams.getLast();
            if (streams.size() > 1) {
                return ScriptedH2Server.respond(protocol, stream, "after");
            }
            int promised = protocol.pushPromise(stream, promisedGet(self.get(), "/pushed"));
            protocol.sendHeaders(promised, List.of(new HeaderField(":status", "200")), false);
            protocol.sendHeaders(stream, List.of(new HeaderField(":status", "200")), false);
            return protocol.drainOutput(); // both bodies stall
        })) {
            self.set(server);
            CompletableFuture<CompletableFuture<HttpResponse<String>>> pushed = new CompletableFuture<>();
            PushPromiseHandler<String> handler = (initiating, promised, acceptor) ->
                    pushed.complete(acceptor.apply(BodyHandlers.ofString()));
            CompletableFuture<HttpResponse<String>> main = client.sendAsync(
                    HttpRequest.newBuilder(URI.create(server.base() + "/a")).build(), BodyHandlers.ofString(), handler);
            CompletableFuture<HttpResponse<String>> pushedResponse = pushed.get(30, TimeUnit.SECONDS);
            main.cancel(true);
            ExecutionException failed = assertThrows(ExecutionException.class,
                    () -> pushedResponse.get(30, TimeUnit.SECONDS));
            assertThat(failed.getCause(), instanceOf(IOException.class));
            Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> server.eventsFromClient().size() >= 2);
            assertThat(server.eventsFromClient(), hasItem(new Http2Event.StreamReset(1, ErrorCode.CANCEL, true,
                    "reset_by_peer")));
            assertThat(server.eventsFromClient(), hasItem(new Http2Event.StreamReset(2, ErrorCode.CANCEL, true,
                    "reset_by_peer")));
            // The connection lives on.
            assertThat(client.sendAsync(HttpRequest.newBuilder(URI.create(server.base() + "/b")).build(),
                    BodyHandlers.ofString()).get(30, TimeUnit.SECONDS).body(), is("after"));
            assertThat(server.connectionsAccepted(), is(1));
        }
    }

    @Test
    void losingTheConnectionFailsPushedResponses() throws Exception {
        HttpClient client = client(true);
        AtomicReference<ScriptedH2Server> self = new AtomicReference<>();
        ScriptedH2Server server = new ScriptedH2Server((connection, protocol, streams) -> {
            int stream = streams.getLast();
            int promised = protocol.pushPromise(stream, promisedGet(self.get(), "/pushed"));
            protocol.sendHeaders(promised, List.of(new HeaderField(":status", "200")), false);
            protocol.sendHeaders(stream, List.of(new HeaderField(":status", "200")), false);
            return protocol.drainOutput();
        });
        self.set(server);
        CompletableFuture<CompletableFuture<HttpResponse<String>>> pushed = new CompletableFuture<>();
        PushPromiseHandler<String> handler = (initiating, promised, acceptor) ->
                pushed.complete(acceptor.apply(BodyHandlers.ofString()));
        CompletableFuture<HttpResponse<String>> main = client.sendAsync(
                HttpRequest.newBuilder(URI.create(server.base() + "/a")).build(), BodyHandlers.ofString(), handler);
        CompletableFuture<HttpResponse<String>> pushedResponse = pushed.get(30, TimeUnit.SECONDS);
        server.close();
        ExecutionException pushFailure = assertThrows(ExecutionException.class,
                () -> pushedResponse.get(30, TimeUnit.SECONDS));
        assertThat(pushFailure.getCause(), instanceOf(IOException.class));
        ExecutionException mainFailure = assertThrows(ExecutionException.class, () -> main.get(30, TimeUnit.SECONDS));
        assertThat(mainFailure.getCause(), instanceOf(IOException.class));
    }

    @Test
    void aPromiseForAnotherOriginIsRefusedAsAStreamError() throws Exception {
        HttpClient client = client(true);
        try (ScriptedH2Server server = new ScriptedH2Server((connection, protocol, streams) -> {
            int stream = streams.getLast();
            List<HeaderField> elsewhere = List.of(new HeaderField(":method", "GET"), new HeaderField(":scheme", "http"),
                    new HeaderField(":path", "/x"), new HeaderField(":authority", "elsewhere.example:80"));
            int promised = protocol.pushPromise(stream, elsewhere);
            protocol.sendHeaders(promised, List.of(new HeaderField(":status", "200")), false);
            return ScriptedH2Server.respond(protocol, stream, "main");
        })) {
            List<URI> offered = new ArrayList<>();
            PushPromiseHandler<String> handler = (initiating, promised, acceptor) -> {
                offered.add(promised.uri());
                acceptor.apply(BodyHandlers.ofString());
            };
            HttpResponse<String> main = client.sendAsync(HttpRequest.newBuilder(URI.create(server.base() + "/a"))
                    .build(), BodyHandlers.ofString(), handler).get(30, TimeUnit.SECONDS);
            assertThat(main.body(), is("main"));
            assertThat(offered, is(List.of()));
            Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> !server.eventsFromClient().isEmpty());
            assertThat(server.eventsFromClient(), is(List.of(
                    new Http2Event.StreamReset(2, ErrorCode.PROTOCOL_ERROR, true, "reset_by_peer"))));
        }
    }
}
