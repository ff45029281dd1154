package io.ringkv.http.client;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.endsWith;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublisher;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * RFC 9112 §9.3.1: a request that fails on a reused HTTP/1.1 connection before any response byte
 * is sent once more on a new connection, if it is idempotent and its body can be sent again.
 * The server closes the kept-alive connection after reading the second request, without
 * answering: the race a pooled connection loses when the server's idle timeout fires.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RingClientStaleConnectionTest {
    private ScriptedH1Server server;
    private HttpClient client;

    @AfterEach
    void stop() throws Exception {
        if (client != null) {
            client.shutdownNow();
            assertThat(client.awaitTermination(Duration.ofSeconds(30)), is(true));
        }
        server.close();
    }

    /** Connection 0 answers one request, reads the next and closes; later connections answer all. */
    private void startServerClosingAfterSecondRequest() throws IOException {
        server = new ScriptedH1Server((index, peer) -> {
            if (index == 0) {
                peer.readRequest();
                peer.respond("first");
                peer.readRequest();
                peer.close();
                return;
            }
            while (peer.readRequest() != null) {
                peer.respond("fresh");
            }
        });
        // One connection per host: the second request must wait for connection 0 and reuse it,
        // instead of racing its return to the pool and maybe opening a fresh one.
        client = RingHttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectionsPerHost(1).build();
    }

    private String send(String method, BodyPublisher body) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create(server.base() + "/x")).method(method, body).build(),
                BodyHandlers.ofString()).body();
    }

    @Test
    void retriesGetOnANewConnectionWhenTheReusedOneClosesBeforeAnswering() throws Exception {
        startServerClosingAfterSecondRequest();
        assertThat(send("GET", BodyPublishers.noBody()), is("first"));
        assertThat(send("GET", BodyPublishers.noBody()), is("fresh"));
        assertThat(server.connectionsAccepted(), is(2));
        assertThat(server.requests(), hasSize(3));
    }

    @Test
    void retriesPutAndSendsItsBodyAgain() throws Exception {
        startServerClosingAfterSecondRequest();
        send("GET", BodyPublishers.noBody());
        assertThat(send("PUT", BodyPublishers.ofString("payload")), is("fresh"));
        List<String> requests = server.requests();
        assertThat(requests.get(1), endsWith("\r\n\r\npayload"));
        assertThat(requests.get(2), endsWith("\r\n\r\npayload"));
    }

    @Test
    void retriesAPutWhoseBodyIsAnUncopiedArray() throws Exception {
        startServerClosingAfterSecondRequest();
        send("GET", BodyPublishers.noBody());
        byte[] payload = "uncopied".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        assertThat(send("PUT", RingBodyPublishers.ofByteArrayNoCopy(payload)), is("fresh"));
        List<String> requests = server.requests();
        assertThat(requests.get(1), endsWith("\r\n\r\nuncopied"));
        assertThat(requests.get(2), endsWith("\r\n\r\nuncopied"));
        assertThat(server.connectionsAccepted(), is(2));
    }

    @Test
    void doesNotRetryPost() throws Exception {
        startServerClosingAfterSecondRequest();
        send("GET", BodyPublishers.noBody());
        IOException error = assertThrows(IOException.class, () -> send("POST", BodyPublishers.ofString("once")));
        assertThat(error.getClass().getName(), not(containsString("Stale")));
        assertThat(server.connectionsAccepted(), is(1));
    }

    @Test
    void doesNotRetryAPutWhoseBodyPublisherMayNotBeSubscribedTwice() throws Exception {
        startServerClosingAfterSecondRequest();
        send("GET", BodyPublishers.noBody());
        BodyPublisher body = BodyPublishers.fromPublisher(new OneShotPublisher("data"), 4);
        assertThrows(IOException.class, () -> send("PUT", body));
        assertThat(server.connectionsAccepted(), is(1));
    }

    @Test
    void bytesOnAnIdleConnectionRetireItAndTheNextRequestGoesOnAFreshOne() throws Exception {
        java.util.concurrent.CountDownLatch retired = new java.util.concurrent.CountDownLatch(1);
        server = new ScriptedH1Server((index, peer) -> {
            if (index == 0) {
                peer.readRequest();
                peer.respond("first");
                // A parting 408 on a connection the client holds idle (RFC 9110 §15.5.9).
                peer.write("HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
                if (peer.awaitClientClose()) {
                    retired.countDown();
                }
                return;
            }
            while (peer.readRequest() != null) {
                peer.respond("fresh");
            }
        });
        client = RingHttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectionsPerHost(1).build();
        assertThat(send("GET", BodyPublishers.noBody()), is("first"));
        assertThat(retired.await(30, TimeUnit.SECONDS), is(true));
        assertThat(send("GET", BodyPublishers.noBody()), is("fresh"));
        assertThat(server.connectionsAccepted(), is(2));
    }

    @Test
    void secondRequestSucceedsWhenTheServerClosesRightAfterTheFirstResponse() throws Exception {
        server = new ScriptedH1Server((index, peer) -> {
            peer.readRequest();
            peer.respond("answer " + index);
            peer.close();
        });
        // One connection per host: the second request must wait for connection 0 and reuse it,
        // instead of racing its return to the pool and maybe opening a fresh one.
        client = RingHttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectionsPerHost(1).build();
        assertThat(send("GET", BodyPublishers.noBody()), is("answer 0"));
        assertThat(send("GET", BodyPublishers.noBody()), is("answer 1"));
    }

    @Test
    void staleSignalNeverEscapesWhenTheRetryFailsToo() throws Exception {
        server = new ScriptedH1Server((index, peer) -> {
            peer.readRequest();
            if (index == 0) {
                peer.respond("first");
                peer.readRequest();
            }
            peer.close();
        });
        // One connection per host: the second request must wait for connection 0 and reuse it,
        // instead of racing its return to the pool and maybe opening a fresh one.
        client = RingHttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectionsPerHost(1).build();
        send("GET", BodyPublishers.noBody());
        IOException error = assertThrows(IOException.class, () -> send("GET", BodyPublishers.noBody()));
        assertThat(error, not(instanceOf(Class.forName("io.ringkv.http.client.internal.StaleConnectionException"))));
        assertThat(server.connectionsAccepted(), is(2));
    }

    /** Emits its text to the first subscriber only; later subscribers get an error. */
    private record OneShotPublisher(String text, AtomicBoolean used) implements Flow.Publisher<ByteBuffer> {
        OneShotPublisher(String text) {
            this(text, new AtomicBoolean());
        }

        @Override
        public void subscribe(Flow.Subscriber<? super ByteBuffer> subscriber) {
            boolean first = used.compareAndSet(false, true);
            subscriber.onSubscribe(new Flow.Subscription() {
                private boolean done;

                @Override
                public void request(long n) {
                    if (done) {
                        return;
                    }
                    done = true;
                    if (!first) {
                        subscriber.onError(new IllegalStateException("subscribed twice"));
                        return;
                    }
                    subscriber.onNext(ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII)));
                    subscriber.onComplete();
                }

                @Override
                public void cancel() {
                    done = true;
                }
            });
        }
    }
}
