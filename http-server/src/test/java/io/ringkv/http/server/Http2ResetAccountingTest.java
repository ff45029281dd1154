package io.ringkv.http.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ringkv.http.h2.DataFrame;
import io.ringkv.http.h2.ErrorCode;
import io.ringkv.http.h2.Frame;
import io.ringkv.http.h2.GoAwayFrame;
import io.ringkv.http.h2.HeadersFrame;
import io.ringkv.http.h2.PingFrame;
import io.ringkv.http.h2.RstStreamFrame;
import io.ringkv.http.h2.WindowUpdateFrame;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Resets count, whoever sends them. A stream reset while its handler runs (by the client's
 * RST_STREAM, or by ours because of a frame the client sent: "MadeYouReset", CVE-2025-8671)
 * keeps its in-flight permit until the handler has answered, so resetting streams cannot make
 * the server run more handlers than its budget; and the resets a client makes the server send
 * count against the same per-connection budget as its own (Rapid Reset, CVE-2023-44487).
 */
class Http2ResetAccountingTest {
    private final ServerFixture fixture = new ServerFixture();

    @AfterEach
    void tearDown() throws Exception {
        fixture.closeAll();
    }

    /** How the held stream comes to be reset while its handler runs. */
    enum Reset {
        /** The client's own RST_STREAM(CANCEL). */
        CLIENT_RST_STREAM,
        /** WINDOW_UPDATE with increment 0: a stream error, so the server sends RST_STREAM. */
        WINDOW_UPDATE_ZERO,
        /** DATA after the request's END_STREAM: STREAM_CLOSED, the server sends RST_STREAM. */
        DATA_AFTER_END_STREAM
    }

    @ParameterizedTest
    @EnumSource(Reset.class)
    void aResetStreamKeepsItsPermitUntilItsHandlerAnswers(Reset how) throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger calls = new AtomicInteger();
        HttpServer server = fixture.start(ServerFixture.config().inFlightMax(1).build(), request -> {
            calls.incrementAndGet();
            entered.countDown();
            try {
                // Holds an executor thread, as a handler doing real work would.
                release.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return CompletableFuture.completedFuture(Response.text(200, "late"));
        });
        try (RawH2 client = new RawH2(server.port())) {
            client.open();
            client.send(client.request(1, "GET", "/held", true));
            assertTrue(entered.await(30, TimeUnit.SECONDS), "the request reached its handler");
            assertEquals(1, server.inFlight());
            switch (how) {
                case CLIENT_RST_STREAM -> client.send(new RstStreamFrame(1, ErrorCode.CANCEL));
                case WINDOW_UPDATE_ZERO -> client.send(new WindowUpdateFrame(1, 0));
                case DATA_AFTER_END_STREAM -> client.send(new DataFrame(1, ByteBuffer.wrap(new byte[] {1}), false));
            }
            if (how != Reset.CLIENT_RST_STREAM) {
                Frame reset = client.readUntil(f -> f instanceof RstStreamFrame r && r.streamId() == 1);
                assertNotNull(reset, "the server reset stream 1");
            }
            // Written after the reset was answered (or sent), so handled after it: the ACK means
            // the server has dealt with the reset.
            client.send(new PingFrame(7, false));
            assertNotNull(client.readUntil(f -> f instanceof PingFrame p && p.ack()), "PING answered");

            assertEquals(1, server.inFlight(), how + ": the handler still runs, so its permit is still taken");
            try (Http2PriorKnowledgeTest.H2Peer other = new Http2PriorKnowledgeTest.H2Peer(server.port())) {
                int id = other.request("GET", "/second", null);
                assertEquals("503", other.awaitAnswers(1).get(id).status(), "the budget is full: 503");
            }
            assertEquals(1, calls.get(), "no second handler ran");

            release.countDown();
            Poll.until("the permit returns once the handler has answered", () -> server.inFlight() == 0);
            try (Http2PriorKnowledgeTest.H2Peer later = new Http2PriorKnowledgeTest.H2Peer(server.port())) {
                int id = later.request("GET", "/third", null);
                assertEquals("200", later.awaitAnswers(1).get(id).status(), "the permit is free again");
            }
        } finally {
            release.countDown();
        }
    }

    /**
     * A request the server refuses at once (503: the budget is full) on a stream that the same
     * read also made the server reset (WINDOW_UPDATE with increment 0 right after its HEADERS):
     * the refusal finds the stream gone and is dropped. Before, it was sent on a stream http-core
     * had already closed, which threw on the event loop and aborted the whole connection.
     */
    @Test
    void anImmediateAnswerOnAStreamResetInTheSameReadKeepsTheConnection() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        HttpServer server = fixture.start(ServerFixture.config().inFlightMax(1).build(), request -> {
            entered.countDown();
            try {
                release.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return CompletableFuture.completedFuture(Response.text(200, "late"));
        });
        try (RawH2 holder = new RawH2(server.port()); RawH2 client = new RawH2(server.port())) {
            holder.open();
            holder.send(holder.request(1, "GET", "/held", true));
            assertTrue(entered.await(30, TimeUnit.SECONDS), "the first request holds the only permit");
            client.open();
            // One write, so one read on the server: the HEADERS is refused with 503 while http-core
            // has already reset its stream because of the WINDOW_UPDATE behind it.
            client.write(client.encode(client.request(1, "GET", "/refused", true), new WindowUpdateFrame(1, 0),
                    new PingFrame(5, false)));
            Frame answer = client.readUntil(f -> f instanceof PingFrame p && p.ack() || f instanceof GoAwayFrame);
            assertTrue(answer instanceof PingFrame, "the connection outlives the reset stream; got " + answer);
            client.send(client.request(3, "GET", "/next", true));
            Frame next = client.readUntil(f -> f instanceof HeadersFrame h && h.streamId() == 3
                    || f instanceof GoAwayFrame);
            assertTrue(next instanceof HeadersFrame, "stream 3 is answered (503, the budget is still full); got " + next);
        } finally {
            release.countDown();
        }
    }

    /**
     * One connection opens streams and makes the server reset each (WINDOW_UPDATE with increment
     * 0 on the open stream), far past the 200 resets a second http-core allows: GOAWAY
     * (ENHANCE_YOUR_CALM) and close, while another connection is served.
     */
    @Test
    void resetsTheClientMakesTheServerSendCountAgainstTheRapidResetBudget() throws Exception {
        HttpServer server = fixture.start(Http2PriorKnowledgeTest.echo());
        try (RawH2 attacker = new RawH2(server.port());
             Http2PriorKnowledgeTest.H2Peer bystander = new Http2PriorKnowledgeTest.H2Peer(server.port())) {
            attacker.open();
            ByteArrayOutputStream flood = new ByteArrayOutputStream();
            for (int i = 0; i < 1_000; i++) {
                int id = 2 * i + 1;
                flood.writeBytes(attacker.encode(attacker.request(id, "POST", "/made-you-reset", false),
                        new WindowUpdateFrame(id, 0)));
            }
            // After the flood: its ACK says the server read all of it without ending the connection.
            flood.writeBytes(attacker.encode(new PingFrame(99, false)));
            try {
                attacker.write(flood.toByteArray());
            } catch (IOException closedEarly) {
                // the server may close before the whole flood is written; its GOAWAY is still read
            }
            Frame end = attacker.readUntil(f -> f instanceof GoAwayFrame || f instanceof PingFrame p && p.ack());
            assertTrue(end instanceof GoAwayFrame g && g.error() == ErrorCode.ENHANCE_YOUR_CALM,
                    "GOAWAY(ENHANCE_YOUR_CALM) before the PING after the flood was answered; got " + end);
            assertNull(attacker.readUntil(f -> false), "the server closes the connection");
            int id = bystander.request("GET", "/unaffected", null);
            assertEquals("GET /unaffected 0\n", bystander.awaitAnswers(1).get(id).text());
        }
    }
}
