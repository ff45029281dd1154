package io.ringkv.http.server;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import io.ringkv.http.h1.H1Limits;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every parse error is answered with its status and "Connection: close", then the connection closes. */
class ParseErrorTest {
    private static final H1Limits SMALL = new H1Limits(256, 1024, 20, 1000);

    private final ServerFixture fixture = new ServerFixture();
    private final AtomicInteger handlerCalls = new AtomicInteger();
    private HttpServer server;

    @BeforeEach
    void start() throws Exception {
        server = fixture.start(ServerFixture.config().h1Limits(SMALL).build(), request -> {
            handlerCalls.incrementAndGet();
            return CompletableFuture.completedFuture(Response.of(200));
        });
    }

    @AfterEach
    void stop() throws Exception {
        fixture.closeAll();
    }

    static Stream<Arguments> malformedRequests() {
        return Stream.of(
                Arguments.of("garbage request line", "NOT HTTP AT ALL\r\n\r\n", 400),
                Arguments.of("missing Host", "GET / HTTP/1.1\r\n\r\n", 400),
                Arguments.of("obsolete line folding", "GET / HTTP/1.1\r\nHost: t\r\nX: a\r\n b\r\n\r\n", 400),
                Arguments.of("control character in a value", "GET / HTTP/1.1\r\nHost: t\r\nX: a\u0001b\r\n\r\n", 400),
                Arguments.of("Content-Length with Transfer-Encoding",
                        "POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
                Arguments.of("conflicting Content-Length",
                        "POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", 400),
                Arguments.of("bad chunk size", "POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400),
                Arguments.of("request line too long", "GET /" + "a".repeat(300) + " HTTP/1.1\r\nHost: t\r\n\r\n", 414),
                Arguments.of("header block too large", "GET / HTTP/1.1\r\nHost: t\r\nX: " + "b".repeat(1100) + "\r\n\r\n", 431),
                Arguments.of("declared body too large", "PUT / HTTP/1.1\r\nHost: t\r\nContent-Length: 5000\r\n\r\nxyz", 413),
                Arguments.of("chunked body too large", "PUT / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
                        + "3e8\r\n" + "c".repeat(1000) + "\r\n1\r\nd\r\n0\r\n\r\n", 413),
                Arguments.of("unsupported transfer coding", "PUT / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501),
                Arguments.of("unsupported HTTP version", "GET / HTTP/2.0\r\nHost: t\r\n\r\n", 505));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformedRequests")
    void answersTheErrorStatusAndClosesTheConnection(String name, String request, int status) throws Exception {
        RawClient client = fixture.client(server);
        client.send(request);
        RawClient.Reply reply = client.read();
        assertThat(reply.status(), is(status));
        assertThat(reply.header("Connection"), is("close"));
        assertThat(reply.text().isBlank(), is(false));
        assertThat(client.closedByServer(), is(true));
        assertThat(handlerCalls.get(), is(0));
    }

    @ParameterizedTest(name = "{0} after a good request")
    @MethodSource("malformedRequests")
    void answersTheGoodPipelinedRequestFirstThenTheError(String name, String request, int status) throws Exception {
        RawClient client = fixture.client(server);
        client.send(RawClient.get("/fine") + request);
        assertThat(client.read().status(), is(200));
        RawClient.Reply reply = client.read();
        assertThat(reply.status(), is(status));
        assertThat(client.closedByServer(), is(true));
    }
}
