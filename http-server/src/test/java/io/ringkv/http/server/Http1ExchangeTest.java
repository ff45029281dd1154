package io.ringkv.http.server;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Keep-alive, pipelining, bodies, HEAD, HTTP/1.0 and Connection: close over real sockets. */
class Http1ExchangeTest {
    private final ServerFixture fixture = new ServerFixture();

    @AfterEach
    void stop() throws Exception {
        fixture.closeAll();
    }

    /** Answers "METHOD path?query body" so tests can see what the handler got. */
    private static final HttpHandler ECHO = request -> CompletableFuture.completedFuture(
            Response.text(200, request.method() + " " + request.path() + "?" + request.query() + " "
                    + new String(request.body(), StandardCharsets.UTF_8)));

    @Test
    void servesSeveralRequestsOnOneKeptAliveConnection() throws Exception {
        RawClient client = fixture.client(fixture.start(ECHO));
        for (int i = 0; i < 3; i++) {
            RawClient.Reply reply = client.send(RawClient.get("/r" + i + "?n=" + i)).read();
            assertThat(reply.status(), is(200));
            assertThat(reply.text(), is("GET /r" + i + "?n=" + i + " \n"));
            assertThat(reply.header("Connection"), is(nullValue()));
        }
    }

    @Test
    void pipelinedResponsesComeBackInRequestOrderEvenWhenTheLaterOneIsReadyFirst() throws Exception {
        CompletableFuture<Response> slow = new CompletableFuture<>();
        CountDownLatch fastAnswered = new CountDownLatch(1);
        RawClient client = fixture.client(fixture.start(request -> {
            if (request.path().equals("/slow")) {
                return slow;
            }
            fastAnswered.countDown();
            return CompletableFuture.completedFuture(Response.text(200, "fast"));
        }));
        client.send(RawClient.get("/slow") + RawClient.get("/fast"));
        assertThat(fastAnswered.await(20, TimeUnit.SECONDS), is(true));
        slow.complete(Response.text(200, "slow"));
        assertThat(client.read().text(), is("slow\n"));
        assertThat(client.read().text(), is("fast\n"));
    }

    @Test
    void manyPipelinedRequestsInOneWriteAllGetAnsweredInOrder() throws Exception {
        RawClient client = fixture.client(fixture.start(ECHO));
        StringBuilder batch = new StringBuilder();
        int count = 100; // more than the pipelining depth, so reading pauses and resumes
        for (int i = 0; i < count; i++) {
            batch.append(RawClient.get("/p" + i));
        }
        client.send(batch.toString());
        for (int i = 0; i < count; i++) {
            assertThat(client.read().text(), is("GET /p" + i + "? \n"));
        }
    }

    @Test
    void requestBodiesReachTheHandlerWithContentLengthAndChunked() throws Exception {
        RawClient client = fixture.client(fixture.start(ECHO));
        client.send("PUT /v0/entity?id=a HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello");
        assertThat(client.read().text(), is("PUT /v0/entity?id=a hello\n"));
        client.send("PUT /c HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n");
        assertThat(client.read().text(), is("PUT /c? abcde\n"));
    }

    @Test
    void headResponseHasTheLengthOfGetButNoBody() throws Exception {
        RawClient client = fixture.client(fixture.start(request ->
                CompletableFuture.completedFuture(Response.of(200, new byte[1234]))));
        client.send("HEAD /x HTTP/1.1\r\nHost: t\r\n\r\n" + RawClient.get("/x"));
        RawClient.Reply head = client.read(true);
        assertThat(head.status(), is(200));
        assertThat(head.header("Content-Length"), is("1234"));
        // The GET reply parses right after the head: no stray body bytes were sent for HEAD.
        RawClient.Reply get = client.read();
        assertThat(get.body().length, is(1234));
    }

    @Test
    void connectionCloseRequestIsAnsweredThenClosed() throws Exception {
        RawClient client = fixture.client(fixture.start(ECHO));
        client.send("GET /bye HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
        RawClient.Reply reply = client.read();
        assertThat(reply.status(), is(200));
        assertThat(reply.header("Connection"), is("close"));
        assertThat(client.closedByServer(), is(true));
    }

    @Test
    void http10RequestIsAnsweredAndClosedUnlessKeepAliveIsAsked() throws Exception {
        HttpServer server = fixture.start(ECHO);
        RawClient plain = fixture.client(server);
        plain.send("GET /old HTTP/1.0\r\n\r\n");
        assertThat(plain.read().text(), is("GET /old? \n"));
        assertThat(plain.closedByServer(), is(true));

        RawClient keepAlive = fixture.client(server);
        keepAlive.send("GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
        RawClient.Reply first = keepAlive.read();
        assertThat(first.header("Connection"), is("keep-alive"));
        keepAlive.send("GET /b HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
        assertThat(keepAlive.read().text(), is("GET /b? \n"));
    }

    @Test
    void handlerExceptionAndExceptionalStageBecome500AndTheConnectionStaysUsable() throws Exception {
        RawClient client = fixture.client(fixture.start(request -> switch (request.path()) {
            case "/throw" -> throw new IllegalStateException("handler bug (expected by the test)");
            case "/fail" -> CompletableFuture.failedFuture(new IllegalStateException("stage failed (expected)"));
            default -> CompletableFuture.completedFuture(Response.of(204));
        }));
        assertThat(client.send(RawClient.get("/throw")).read().status(), is(500));
        assertThat(client.send(RawClient.get("/fail")).read().status(), is(500));
        assertThat(client.send(RawClient.get("/ok")).read().status(), is(204));
    }

    @Test
    void handlerRunsOnTheExecutorNeverOnAnEventLoop() throws Exception {
        List<String> threads = new CopyOnWriteArrayList<>();
        RawClient client = fixture.client(fixture.start(request -> {
            threads.add(Thread.currentThread().getName().replaceAll("-\\d+$", ""));
            return CompletableFuture.completedFuture(Response.of(200));
        }));
        client.send(RawClient.get("/")).read();
        assertThat(threads, contains("ringkv-handler"));
    }

    @Test
    void jdkHttpClientRoundTripsAPutAndAGet() throws Exception {
        HttpServer server = fixture.start(ECHO);
        try (HttpClient jdk = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
            URI uri = URI.create("http://127.0.0.1:" + server.port() + "/v0/entity?id=k");
            HttpResponse<String> put = jdk.send(HttpRequest.newBuilder(uri)
                    .PUT(HttpRequest.BodyPublishers.ofString("value")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(put.statusCode(), is(200));
            assertThat(put.body(), is("PUT /v0/entity?id=k value\n"));
            HttpResponse<String> get = jdk.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(get.body(), is("GET /v0/entity?id=k \n"));
        }
    }

    @Test
    void bindingAPortInUseFailsWithBindException() throws Exception {
        HttpServer first = fixture.start(ECHO);
        try {
            fixture.start(ServerFixture.config().port(first.port()).build(), ECHO);
            throw new AssertionError("expected a BindException");
        } catch (java.net.BindException expected) {
            assertThat(first.port() > 0, is(true));
        }
    }
}
