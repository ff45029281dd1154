package io.ringkv.http.server;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import io.ringkv.http.server.Http2PriorKnowledgeTest.H2Peer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The last slots of the in-flight budget are for requests the handler's head admission marks as
 * priority (a node's peer calls): with the ordinary share full, ordinary requests get 503 and
 * priority ones are still admitted, over HTTP/1.1 and HTTP/2, until the whole budget is full.
 * Before the reserve, a peer's call got the same 503 as a new client request.
 */
class InFlightReserveTest {
    private static final int BUDGET = 4;
    private static final int RESERVE = 2;

    private final ServerFixture fixture = new ServerFixture();
    private final CompletableFuture<Response> gate = new CompletableFuture<>();

    @AfterEach
    void stop() throws Exception {
        gate.complete(Response.text(200, "released"));
        fixture.closeAll();
    }

    /** Holds every request until the gate opens; requests under /peer/ are priority. */
    private final class Handler implements HttpHandler, HeadAdmission {
        @Override
        public CompletionStage<Response> handle(Request request) {
            return gate;
        }

        @Override
        public Optional<Response> admit(Head head) {
            return Optional.empty();
        }

        @Override
        public boolean priority(Head head) {
            return head.path().startsWith("/peer/");
        }
    }

    private HttpServer start() throws Exception {
        return fixture.start(ServerFixture.config().inFlightMax(BUDGET).inFlightReserve(RESERVE).build(), new Handler());
    }

    @Test
    void overHttp1PriorityRequestsTakeTheReserveOrdinaryOnesDoNot() throws Exception {
        HttpServer server = start();
        List<RawClient> held = new ArrayList<>();
        for (int i = 0; i < BUDGET - RESERVE; i++) {
            held.add(fixture.client(server).send(RawClient.get("/client/" + i)));
        }
        Poll.until("the ordinary share is full", () -> server.inFlight() == BUDGET - RESERVE);
        assertThat("an ordinary request past its share", fixture.client(server).send(RawClient.get("/client/late")).read().status(),
                is(503));

        for (int i = 0; i < RESERVE; i++) {
            held.add(fixture.client(server).send(RawClient.get("/peer/" + i)));
        }
        Poll.until("the reserve is taken", () -> server.inFlight() == BUDGET);
        assertThat("a priority request past the whole budget", fixture.client(server).send(RawClient.get("/peer/late")).read().status(),
                is(503));

        gate.complete(Response.text(200, "released"));
        for (RawClient client : held) {
            assertThat(client.read().status(), is(200));
        }
        Poll.until("the budget is free", () -> server.inFlight() == 0);
    }

    @Test
    void overHttp2APeerStreamIsAdmittedWhileClientStreamsAreRefused() throws Exception {
        HttpServer server = start();
        try (H2Peer clients = new H2Peer(server.port()); H2Peer peer = new H2Peer(server.port())) {
            for (int i = 0; i < BUDGET - RESERVE; i++) {
                clients.request("GET", "/client/" + i, null);
            }
            Poll.until("the ordinary share is full", () -> server.inFlight() == BUDGET - RESERVE);
            int refused = clients.request("GET", "/client/late", null);
            assertThat(clients.awaitAnswers(1).get(refused).status(), is("503"));

            int admitted = peer.request("GET", "/peer/0", null);
            Poll.until("the peer's stream holds a reserved slot", () -> server.inFlight() == BUDGET - RESERVE + 1);
            gate.complete(Response.text(200, "released"));
            assertThat(peer.awaitAnswers(1).get(admitted).status(), is("200"));
        }
    }
}
