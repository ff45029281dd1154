package io.ringkv.http.client;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * HTTP/2 by {@code Upgrade: h2c} (RFC 7540 §3.2) as our client does it without prior knowledge:
 * the offer on the wire, a server that ignores it, requests with a body, requests while the
 * offer is in flight, and broken switches. The success path against Jetty is covered by
 * {@link RingH2cUpgradeCompatibilityTest}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RingH2cUpgradeTest {
    private static final Pattern SETTINGS_FIELD = Pattern.compile("\r\nHTTP2-Settings: ([^\r\n]*)\r\n");

    private ScriptedH1Server scripted;
    private JettyTestServer jetty;
    private HttpClient client;

    @AfterEach
    void stop() throws Exception {
        if (client != null) {
            client.shutdownNow();
            assertThat(client.awaitTermination(Duration.ofSeconds(30)), is(true));
        }
        if (scripted != null) {
            scripted.close();
        }
        if (jetty != null) {
            jetty.close();
        }
    }

    private HttpClient client() {
        client = RingHttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build();
        return client;
    }

    /** Every connection answers every request over HTTP/1.1, as a server without h2c does. */
    private void startHttp11Server() throws IOException {
        scripted = new ScriptedH1Server((index, peer) -> {
            while (peer.readRequest() != null) {
                peer.respond("hello " + index);
            }
        });
    }

    private HttpResponse<String> get(String path) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create(scripted.base() + path)).build(), BodyHandlers.ofString());
    }

    @Test
    void theFirstRequestOffersTheUpgradeAndAServerThatIgnoresItIsNotAskedAgain() throws Exception {
        startHttp11Server();
        client();
        HttpResponse<String> first = get("/a");
        assertThat(first.version(), is(HttpClient.Version.HTTP_1_1));
        assertThat(first.body(), is("hello 0"));
        String offer = scripted.requests().get(0);
        assertThat(offer, containsString("\r\nConnection: Upgrade, HTTP2-Settings\r\n"));
        assertThat(offer, containsString("\r\nUpgrade: h2c\r\n"));
        Matcher settings = SETTINGS_FIELD.matcher(offer);
        assertThat("HTTP2-Settings present", settings.find(), is(true));
        String value = settings.group(1);
        assertThat(value, matchesPattern("[A-Za-z0-9_-]+")); // base64url, no padding
        assertThat(Base64.getUrlDecoder().decode(value).length % 6, is(0)); // whole settings

        for (int i = 0; i < 3; i++) {
            HttpResponse<String> later = get("/b");
            assertThat(later.version(), is(HttpClient.Version.HTTP_1_1));
            assertThat(later.body(), is("hello 0")); // the same, kept-alive connection
        }
        for (String request : scripted.requests().subList(1, 4)) {
            assertThat(request, not(containsString("Upgrade")));
            assertThat(request, not(containsString("HTTP2-Settings")));
        }
        assertThat(scripted.connectionsAccepted(), is(1));
    }

    @Test
    void aRequestWithABodyGoesAsHttp11WithoutTheOfferAndTheNextBodilessOneOffersIt() throws Exception {
        startHttp11Server();
        client();
        HttpResponse<String> post = client.send(HttpRequest.newBuilder(URI.create(scripted.base() + "/p"))
                .POST(BodyPublishers.ofString("data")).build(), BodyHandlers.ofString());
        assertThat(post.version(), is(HttpClient.Version.HTTP_1_1));
        assertThat(scripted.requests().get(0), not(containsString("Upgrade")));
        assertThat(scripted.requests().get(0), containsString("\r\n\r\ndata"));

        get("/g");
        assertThat(scripted.requests().get(1), containsString("\r\nUpgrade: h2c\r\n"));
        get("/g");
        assertThat(scripted.requests().get(2), not(containsString("Upgrade")));
    }

    @Test
    void requestsWhileTheOfferIsInFlightGoAsPlainHttp11() throws Exception {
        CountDownLatch offerReceived = new CountDownLatch(1);
        CountDownLatch answerOffer = new CountDownLatch(1);
        scripted = new ScriptedH1Server((index, peer) -> {
            String request;
            while ((request = peer.readRequest()) != null) {
                if (request.contains("Upgrade: h2c")) {
                    offerReceived.countDown();
                    try {
                        answerOffer.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
                peer.respond("hello " + index);
            }
        });
        client();
        CompletableFuture<HttpResponse<String>> offer = client.sendAsync(
                HttpRequest.newBuilder(URI.create(scripted.base() + "/offer")).build(), BodyHandlers.ofString());
        assertThat(offerReceived.await(30, TimeUnit.SECONDS), is(true));
        HttpResponse<String> meanwhile = get("/meanwhile");
        assertThat(meanwhile.version(), is(HttpClient.Version.HTTP_1_1));
        assertThat(meanwhile.body(), is("hello 1"));
        answerOffer.countDown();
        assertThat(offer.get(30, TimeUnit.SECONDS).body(), is("hello 0"));
        long offers = scripted.requests().stream().filter(r -> r.contains("Upgrade: h2c")).count();
        assertThat(offers, is(1L));
        get("/after");
        assertThat(scripted.requests().get(2), not(containsString("Upgrade")));
    }

    @Test
    void aConnectionThatClosesRightAfter101FailsTheRequestAndTheNextRequestOffersAgain() throws Exception {
        scripted = new ScriptedH1Server((index, peer) -> {
            if (index == 0) {
                peer.readRequest();
                peer.write("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n");
                peer.close();
                return;
            }
            while (peer.readRequest() != null) {
                peer.respond("hello " + index);
            }
        });
        client();
        IOException error = assertThrows(IOException.class, () -> get("/switch"));
        assertThat(error.getMessage(), containsString("HTTP/2 connection closed"));
        HttpResponse<String> next = get("/again");
        assertThat(next.version(), is(HttpClient.Version.HTTP_1_1));
        assertThat(next.body(), is("hello 1"));
        assertThat(scripted.requests().get(1), containsString("\r\nUpgrade: h2c\r\n"));
    }

    @Test
    void a101ToAnotherProtocolIsAProtocolException() throws Exception {
        scripted = new ScriptedH1Server((index, peer) -> {
            peer.readRequest();
            peer.write("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n");
            peer.readRequest(); // until the client closes
        });
        client();
        IOException error = assertThrows(IOException.class, () -> get("/switch"));
        assertThat(error.getCause(), instanceOf(java.net.ProtocolException.class)); // send copies it, as the JDK does
        assertThat(error.getMessage(), containsString("websocket"));
    }

    @Test
    void requestsWaitingForAStreamWhenTheUpgradedConnectionCloses_goAgainAndSucceed() throws Exception {
        jetty = JettyTestServer.h2c(1); // one stream per connection: later requests queue behind /stall
        client();
        HttpResponse<String> first = client.send(HttpRequest.newBuilder(URI.create(jetty.base() + "/echo")).build(),
                BodyHandlers.ofString());
        assertThat(first.version(), is(HttpClient.Version.HTTP_2));
        CompletableFuture<HttpResponse<String>> stalled = client.sendAsync(
                HttpRequest.newBuilder(URI.create(jetty.base() + "/stall")).build(), BodyHandlers.ofString());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (jetty.stalledCount() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat("the stalled request reached the server", jetty.stalledCount(), is(1));
        java.util.List<CompletableFuture<HttpResponse<String>>> waiting = new java.util.ArrayList<>();
        for (int i = 0; i < 3; i++) {
            waiting.add(client.sendAsync(HttpRequest.newBuilder(URI.create(jetty.base() + "/echo"))
                    .POST(BodyPublishers.ofString("w" + i)).build(), BodyHandlers.ofString()));
        }
        jetty.closeConnections();
        java.util.concurrent.ExecutionException sent = assertThrows(java.util.concurrent.ExecutionException.class,
                () -> stalled.get(30, TimeUnit.SECONDS));
        assertThat(sent.getCause(), instanceOf(IOException.class)); // it was sent: not run again
        for (int i = 0; i < 3; i++) {
            HttpResponse<String> response = waiting.get(i).get(30, TimeUnit.SECONDS);
            assertThat(response.statusCode(), is(200));
            assertThat(response.body(), is("w" + i));
        }
    }

    @Test
    void againstJettyAPostFirstStaysHttp11ThenAGetUpgradesAndLaterPostsUseHttp2() throws Exception {
        jetty = JettyTestServer.h2c(JettyTestServer.H2_STREAMS_MAX_DEFAULT);
        client();
        URI echo = URI.create(jetty.base() + "/echo");
        HttpResponse<String> post = client.send(HttpRequest.newBuilder(echo).POST(BodyPublishers.ofString("one")).build(),
                BodyHandlers.ofString());
        assertThat(post.version(), is(HttpClient.Version.HTTP_1_1));
        assertThat(post.body(), is("one"));
        HttpResponse<String> get = client.send(HttpRequest.newBuilder(echo).build(), BodyHandlers.ofString());
        assertThat(get.headers().map().toString(), get.version(), is(HttpClient.Version.HTTP_2));
        byte[] data = Bodies.pattern(1024 * 1024);
        HttpResponse<byte[]> big = client.send(HttpRequest.newBuilder(echo).POST(BodyPublishers.ofByteArray(data)).build(),
                BodyHandlers.ofByteArray());
        assertThat(big.version(), is(HttpClient.Version.HTTP_2));
        assertThat(big.body(), equalTo(data));
        assertThat(big.headers().firstValue("X-Client-Port").orElseThrow(),
                is(get.headers().firstValue("X-Client-Port").orElseThrow()));
    }
}
