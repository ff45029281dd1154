package io.ringkv.http.server;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import io.ringkv.http.server.Http2PriorKnowledgeTest.H2Peer;
import io.ringkv.net.EventLoop;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A request the handler's head admission marks {@link HeadAdmission#onLoop} is handled on the
 * event loop that read it; every other request on the handler executor. Over HTTP/1.1 and HTTP/2,
 * with a body and without.
 */
class HandlerOnLoopTest {
    private final ServerFixture fixture = new ServerFixture();

    @AfterEach
    void stop() throws Exception {
        fixture.closeAll();
    }

    /** Answers where it ran; requests under /fast/ run on the loop. */
    private static final class Handler implements HttpHandler, HeadAdmission {
        @Override
        public CompletionStage<Response> handle(Request request) {
            String where = EventLoop.inAnyLoop() ? "loop" : "executor";
            return CompletableFuture.completedFuture(Response.text(200, where + " " + request.body().length));
        }

        @Override
        public Optional<Response> admit(Head head) {
            return Optional.empty();
        }

        @Override
        public boolean onLoop(Head head) {
            return head.path().startsWith("/fast/");
        }
    }

    @Test
    void overHttp1OnlyTheMarkedRequestsRunOnTheLoop() throws Exception {
        HttpServer server = fixture.start(ServerFixture.config().build(), new Handler());
        assertThat(fixture.client(server).send(RawClient.get("/fast/a")).read().text(), is("loop 0\n"));
        assertThat(fixture.client(server).send(RawClient.get("/slow/a")).read().text(), is("executor 0\n"));
        String put = "PUT /fast/b HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello";
        assertThat(fixture.client(server).send(put).read().text(), is("loop 5\n"));
    }

    @Test
    void overHttp2OnlyTheMarkedStreamsRunOnTheLoop() throws Exception {
        HttpServer server = fixture.start(ServerFixture.config().build(), new Handler());
        try (H2Peer peer = new H2Peer(server.port())) {
            int fast = peer.request("GET", "/fast/a", null);
            int slow = peer.request("GET", "/slow/a", null);
            int body = peer.request("PUT", "/fast/b", "hello".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            Map<Integer, Http2PriorKnowledgeTest.Answer> answers = peer.awaitAnswers(3);
            assertThat(answers.get(fast).text(), is("loop 0\n"));
            assertThat(answers.get(slow).text(), is("executor 0\n"));
            assertThat(answers.get(body).text(), is("loop 5\n"));
        }
    }
}
