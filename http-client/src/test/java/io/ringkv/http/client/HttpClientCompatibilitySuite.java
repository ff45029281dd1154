package io.ringkv.http.client;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.equalToIgnoringCase;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.net.Authenticator;
import java.net.CookieManager;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.PasswordAuthentication;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Flow;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * One behaviour suite written against {@code java.net.http}, run once with the JDK's client and
 * once with ringkv's (see the subclasses), against the same Jetty 12 server over HTTP/1.1.
 * Each test states only what both clients must do alike.
 */
abstract class HttpClientCompatibilitySuite {
    static final int MEGABYTE = 1024 * 1024;
    /** Redirects either client follows before returning the next one as the response. */
    static final int REDIRECTS_FOLLOWED_MAX = 4;

    JettyTestServer server;
    final ClientsUnderTest clients = new ClientsUnderTest();

    /** The builder under test, with no settings applied. */
    abstract HttpClient.Builder newBuilder();

    @BeforeEach
    void startServer() throws Exception {
        server = new JettyTestServer();
    }

    @AfterEach
    void stopEverything() throws Exception {
        clients.close();
        server.close();
    }

    HttpClient client(HttpClient.Builder builder) {
        HttpClient client = builder.version(HttpClient.Version.HTTP_1_1).build();
        clients.add(client);
        return client;
    }

    HttpClient client() {
        return client(newBuilder());
    }

    URI uri(String pathAndQuery) {
        return URI.create(server.base() + pathAndQuery);
    }

    @Test
    void getsAFixedLengthBody() throws Exception {
        HttpResponse<byte[]> response = client().send(
                HttpRequest.newBuilder(uri("/bytes?n=1000")).build(), BodyHandlers.ofByteArray());
        assertThat(response.statusCode(), is(200));
        assertThat(response.body(), equalTo(Bodies.pattern(1000)));
        assertThat(response.headers().firstValue("content-length").orElseThrow(), is("1000"));
        assertThat(response.version(), is(HttpClient.Version.HTTP_1_1));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 100_000, MEGABYTE})
    void getsAChunkedBody(int size) throws Exception {
        HttpResponse<byte[]> response = client().send(
                HttpRequest.newBuilder(uri("/chunked?n=" + size)).build(), BodyHandlers.ofByteArray());
        assertThat(response.statusCode(), is(200));
        assertThat(response.body(), equalTo(Bodies.pattern(size)));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 5, MEGABYTE})
    void postsAFixedLengthBodyAndReadsItBack(int size) throws Exception {
        byte[] data = Bodies.pattern(size);
        HttpResponse<byte[]> response = client().send(HttpRequest.newBuilder(uri("/echo"))
                .POST(BodyPublishers.ofByteArray(data)).build(), BodyHandlers.ofByteArray());
        assertThat(response.statusCode(), is(200));
        assertThat(response.body(), equalTo(data));
        assertThat(response.headers().firstValue("X-Method").orElseThrow(), is("POST"));
        assertThat(response.headers().firstValue("X-Request-Content-Length").orElseThrow(), is(Integer.toString(size)));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 5, MEGABYTE})
    void postsAnUncopiedRangeOfAnArrayAndReadsItBack(int size) throws Exception {
        byte[] data = Bodies.pattern(size + 10);
        HttpResponse<byte[]> response = client().send(HttpRequest.newBuilder(uri("/echo"))
                .POST(RingBodyPublishers.ofByteArrayNoCopy(data, 3, size)).build(), BodyHandlers.ofByteArray());
        assertThat(response.statusCode(), is(200));
        assertThat(response.body(), equalTo(java.util.Arrays.copyOfRange(data, 3, 3 + size)));
        assertThat(response.headers().firstValue("X-Request-Content-Length").orElseThrow(), is(Integer.toString(size)));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 5, MEGABYTE})
    void putsABodyOfUnknownLengthChunked(int size) throws Exception {
        byte[] data = Bodies.pattern(size);
        HttpRequest.BodyPublisher unknownLength = BodyPublishers.fromPublisher(BodyPublishers.ofByteArray(data));
        HttpResponse<byte[]> response = client().send(HttpRequest.newBuilder(uri("/echo"))
                .PUT(unknownLength).build(), BodyHandlers.ofByteArray());
        assertThat(response.body(), equalTo(data));
        assertThat(response.headers().firstValue("X-Method").orElseThrow(), is("PUT"));
        assertThat(response.headers().firstValue("X-Request-Transfer-Encoding").orElseThrow(), is("chunked"));
    }

    @Test
    void reusesTheConnectionForSequentialRequests() throws Exception {
        HttpClient client = client();
        for (int i = 0; i < 20; i++) {
            HttpResponse<String> response = client.send(HttpRequest.newBuilder(uri("/echo"))
                    .POST(BodyPublishers.ofString("n" + i)).build(), BodyHandlers.ofString());
            assertThat(response.body(), is("n" + i));
        }
    }

    @Test
    void sendsTheBodyAfter100Continue() throws Exception {
        HttpResponse<String> response = client().send(HttpRequest.newBuilder(uri("/echo")).expectContinue(true)
                .POST(BodyPublishers.ofString("after continue")).build(), BodyHandlers.ofString());
        assertThat(response.body(), is("after continue"));
        assertThat(response.headers().firstValue("X-Request-Expect").orElseThrow(), equalToIgnoringCase("100-continue"));
    }

    @Test
    void headHasNoBody() throws Exception {
        HttpResponse<byte[]> response = client().send(HttpRequest.newBuilder(uri("/bytes?n=500"))
                .HEAD().build(), BodyHandlers.ofByteArray());
        assertThat(response.statusCode(), is(200));
        assertThat(response.body().length, is(0));
        assertThat(response.headers().firstValue("content-length").orElseThrow(), is("500"));
    }

    @ParameterizedTest
    @ValueSource(ints = {204, 304, 404, 500})
    void reportsStatusesWithTheirBodies(int code) throws Exception {
        HttpClient client = client();
        HttpResponse<String> response = client.send(
                HttpRequest.newBuilder(uri("/status?code=" + code)).build(), BodyHandlers.ofString());
        assertThat(response.statusCode(), is(code));
        assertThat(response.body(), is(code == 204 || code == 304 ? "" : "status " + code));
        // The connection stays usable after a body-less response.
        assertThat(client.send(HttpRequest.newBuilder(uri("/bytes?n=3")).build(),
                BodyHandlers.ofByteArray()).body(), equalTo(Bodies.pattern(3)));
    }

    @Test
    void redirectPolicyNeverReturnsTheRedirect() throws Exception {
        HttpResponse<String> response = client(newBuilder().followRedirects(HttpClient.Redirect.NEVER)).send(
                HttpRequest.newBuilder(uri("/redirect?code=302")).build(), BodyHandlers.ofString());
        assertThat(response.statusCode(), is(302));
        assertThat(response.headers().firstValue("location").orElseThrow(), is("/echo"));
    }

    @ParameterizedTest
    @ValueSource(ints = {301, 302, 303, 307, 308})
    void redirectPolicyNormalFollowsAChain(int code) throws Exception {
        HttpClient client = client(newBuilder().followRedirects(HttpClient.Redirect.NORMAL));
        HttpResponse<String> response = client.send(HttpRequest.newBuilder(uri("/redirect?hops=3&code=" + code))
                .POST(BodyPublishers.ofString("payload")).build(), BodyHandlers.ofString());
        assertThat(response.statusCode(), is(200));
        assertThat(response.uri().getPath(), is("/echo"));
        boolean keepsMethod = code == 307 || code == 308;
        assertThat(response.headers().firstValue("X-Method").orElseThrow(), is(keepsMethod ? "POST" : "GET"));
        assertThat(response.body(), is(keepsMethod ? "payload" : ""));
        assertThat(response.previousResponse().orElseThrow().statusCode(), is(code));
    }

    @Test
    void redirectPolicyAlwaysFollowsToo() throws Exception {
        HttpResponse<String> response = client(newBuilder().followRedirects(HttpClient.Redirect.ALWAYS)).send(
                HttpRequest.newBuilder(uri("/redirect?hops=2")).build(), BodyHandlers.ofString());
        assertThat(response.statusCode(), is(200));
        assertThat(response.request().uri().getPath(), is("/echo"));
    }

    /**
     * Past its redirect bound the JDK client (25) hands back the last redirect rather than failing;
     * ours does the same, with the same bound.
     */
    @Test
    void tooManyRedirectsReturnTheLastRedirect() throws Exception {
        HttpClient client = client(newBuilder().followRedirects(HttpClient.Redirect.NORMAL));
        HttpResponse<String> response = client.send(
                HttpRequest.newBuilder(uri("/redirect?hops=50")).build(), BodyHandlers.ofString());
        assertThat(response.statusCode(), is(302));
        int followed = 0;
        for (HttpResponse<?> at = response; at.previousResponse().isPresent(); at = at.previousResponse().get()) {
            followed++;
        }
        assertThat(followed, is(REDIRECTS_FOLLOWED_MAX));
    }

    @Test
    void storesAndSendsCookies() throws Exception {
        HttpClient client = client(newBuilder().cookieHandler(new CookieManager()));
        client.send(HttpRequest.newBuilder(uri("/cookie/set")).build(), BodyHandlers.ofString());
        HttpResponse<String> response = client.send(HttpRequest.newBuilder(uri("/cookie/get")).build(),
                BodyHandlers.ofString());
        assertThat(response.body(), is("flavour=oat"));
    }

    @Test
    void answersABasicChallengeWithTheAuthenticator() throws Exception {
        HttpClient client = client(newBuilder().authenticator(new Authenticator() {
            @Override
            protected PasswordAuthentication getPasswordAuthentication() {
                return new PasswordAuthentication(JettyTestServer.USER, JettyTestServer.PASSWORD.toCharArray());
            }
        }));
        HttpResponse<String> response = client.send(HttpRequest.newBuilder(uri("/auth")).build(),
                BodyHandlers.ofString());
        assertThat(response.statusCode(), is(200));
        assertThat(response.body(), is("welcome"));
    }

    /** A 401 without WWW-Authenticate (RFC 9110 §11.6.1 requires one) fails the call when an authenticator is set. */
    @Test
    void a401WithoutAChallengeFailsTheCallWhenAnAuthenticatorIsSet() throws Exception {
        try (ScriptedH1Server server = new ScriptedH1Server((index, peer) -> {
            while (peer.readRequest() != null) {
                peer.write("HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n");
            }
        })) {
            HttpRequest request = HttpRequest.newBuilder(URI.create(server.base() + "/")).build();
            HttpClient withAuthenticator = client(newBuilder().authenticator(new Authenticator() {
                @Override
                protected PasswordAuthentication getPasswordAuthentication() {
                    return new PasswordAuthentication("u", "p".toCharArray());
                }
            }));
            ExecutionException failure = assertThrows(ExecutionException.class,
                    () -> withAuthenticator.sendAsync(request, BodyHandlers.ofString()).get(30, TimeUnit.SECONDS));
            assertThat(failure.getCause(), instanceOf(IOException.class));
            assertThat(failure.getCause().getMessage(), is("WWW-Authenticate header missing for response code 401"));
            assertThat(client().send(request, BodyHandlers.ofString()).statusCode(), is(401));
        }
    }

    @Test
    void returnsThe401WithoutAnAuthenticator() throws Exception {
        HttpResponse<String> response = client().send(HttpRequest.newBuilder(uri("/auth")).build(),
                BodyHandlers.ofString());
        assertThat(response.statusCode(), is(401));
        assertThat(response.body(), is("who are you"));
    }

    @Test
    void requestTimeoutAgainstAStallingServerIsHttpTimeoutException() {
        HttpRequest request = HttpRequest.newBuilder(uri("/stall")).timeout(Duration.ofMillis(300)).build();
        assertThrows(HttpTimeoutException.class, () -> client().send(request, BodyHandlers.ofString()));
    }

    @Test
    void asyncTimeoutCompletesTheFutureWithHttpTimeoutException() {
        HttpRequest request = HttpRequest.newBuilder(uri("/stall")).timeout(Duration.ofMillis(300)).build();
        CompletionException error = assertThrows(CompletionException.class,
                () -> client().sendAsync(request, BodyHandlers.ofString()).join());
        assertThat(error.getCause(), instanceOf(HttpTimeoutException.class));
    }

    @Test
    void connectTimeoutIsHttpConnectTimeoutException() throws Exception {
        try (ServerSocket full = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
                BacklogFiller filler = BacklogFiller.fill(full)) {
            org.junit.jupiter.api.Assumptions.assumeTrue(filler.isFull(), "the OS accepted every connection");
            HttpClient client = client(newBuilder().connectTimeout(Duration.ofMillis(300)));
            URI target = URI.create("http://127.0.0.1:" + full.getLocalPort() + "/");
            assertThrows(HttpConnectTimeoutException.class,
                    () -> client.send(HttpRequest.newBuilder(target).build(), BodyHandlers.ofString()));
        }
    }

    @Test
    void refusedConnectionIsConnectException() throws Exception {
        int port;
        try (ServerSocket closed = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = closed.getLocalPort();
        }
        URI target = URI.create("http://127.0.0.1:" + port + "/");
        assertThrows(java.net.ConnectException.class,
                () -> client().send(HttpRequest.newBuilder(target).build(), BodyHandlers.ofString()));
    }

    /**
     * The JDK's client fails a connect to a name that does not resolve with a ConnectException.
     * The build resolves names from a hosts file (jdk.net.hosts.file), so no DNS query is sent.
     */
    @Test
    void unresolvableHostIsConnectException() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(System.getProperty("jdk.net.hosts.file") != null,
                "names would be looked up in DNS");
        HttpClient client = client();
        for (String scheme : List.of("http", "https")) {
            HttpRequest request = HttpRequest.newBuilder(URI.create(scheme + "://no-such-host.invalid/")).build();
            assertThrows(java.net.ConnectException.class, () -> client.send(request, BodyHandlers.ofString()));
            ExecutionException async = assertThrows(ExecutionException.class,
                    () -> client.sendAsync(request, BodyHandlers.ofString()).get(30, TimeUnit.SECONDS));
            assertThat(async.getCause(), instanceOf(java.net.ConnectException.class));
        }
    }

    /**
     * The JDK's client takes response heads up to jdk.http.maxHeaderSize (384 KiB unless set), with
     * no bound on the number of fields, and fails larger ones with a ProtocolException.
     */
    @Test
    void takesResponseHeadsUpToTheJdkBound() throws Exception {
        String value = "v".repeat(1000);
        for (int fields : new int[] {250, 450}) {
            StringBuilder head = new StringBuilder("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n");
            for (int i = 0; i < fields; i++) {
                head.append("X-Field-").append(i).append(": ").append(value).append("\r\n");
            }
            String answer = head.append("\r\nok").toString();
            try (ScriptedH1Server server = new ScriptedH1Server((index, peer) -> {
                if (peer.readRequest() != null) {
                    peer.write(answer);
                    peer.close();
                }
            })) {
                CompletableFuture<HttpResponse<String>> call = client().sendAsync(
                        HttpRequest.newBuilder(URI.create(server.base() + "/")).build(), BodyHandlers.ofString());
                if (fields == 250) { // about 257 KB: within the bound
                    HttpResponse<String> response = call.get(30, TimeUnit.SECONDS);
                    assertThat(response.body(), is("ok"));
                    assertThat(response.headers().firstValue("X-Field-249").orElseThrow(), is(value));
                    assertThat(response.headers().map().keySet().stream()
                            .filter(name -> name.startsWith("x-field-")).count(), is(250L));
                } else { // about 463 KB: over it
                    ExecutionException failure = assertThrows(ExecutionException.class, () -> call.get(30, TimeUnit.SECONDS));
                    assertThat(failure.getCause(), instanceOf(java.net.ProtocolException.class));
                }
            }
        }
    }

    /**
     * What a user agent must or should take (RFC 9112 §5.2 obsolete line folding, RFC 9110 §15 a
     * status code above 599) and how the fields are named: in lower case, as the JDK reports them.
     */
    @Test
    void takesFoldedFieldsAndOddStatusCodesAndNamesFieldsInLowerCase() throws Exception {
        String answer = "HTTP/1.1 999 Odd\r\nX-Folded: a\r\n b\r\nContent-Length: 2\r\n\r\nok";
        try (ScriptedH1Server server = new ScriptedH1Server((index, peer) -> {
            if (peer.readRequest() != null) {
                peer.write(answer);
                peer.close();
            }
        })) {
            HttpResponse<String> response = client().sendAsync(HttpRequest.newBuilder(URI.create(server.base() + "/")).build(),
                    BodyHandlers.ofString()).get(30, TimeUnit.SECONDS);
            assertThat(response.statusCode(), is(999));
            assertThat(response.body(), is("ok"));
            assertThat(response.headers().allValues("x-folded"), contains("a b"));
            assertThat(List.copyOf(response.headers().map().keySet()), contains("content-length", "x-folded"));
        }
    }

    /**
     * A body handler that throws fails the call: sendAsync with that exception, send with an
     * IOException that has it as cause (one that returns null: see RingClientCompatibilityTest).
     */
    @Test
    void aBodyHandlerThatFailsFailsTheCall() throws Exception {
        HttpClient client = client();
        HttpRequest request = HttpRequest.newBuilder(uri("/bytes?n=5")).build();
        IllegalStateException refusal = new IllegalStateException("handler says no");
        HttpResponse.BodyHandler<String> refusing = info -> {
            throw refusal;
        };
        ExecutionException async = assertThrows(ExecutionException.class,
                () -> client.sendAsync(request, refusing).get(30, TimeUnit.SECONDS));
        assertThat(async.getCause(), is(refusal));
        IOException sync = assertThrows(IOException.class, () -> client.send(request, refusing));
        assertThat(sync.getCause(), is(refusal));
        assertThat(client.send(request, BodyHandlers.ofString()).body().length(), is(5));
    }

    /** A redirect to follow whose Location is missing or no URI: the call fails, it does not return the redirect. */
    @Test
    void aRedirectWithoutAUsableLocationFailsTheCall() throws Exception {
        for (String location : List.of("", "Location: http://[bad\r\n")) {
            String answer = "HTTP/1.1 302 Found\r\n" + location + "Content-Length: 0\r\n\r\n";
            try (ScriptedH1Server server = new ScriptedH1Server((index, peer) -> {
                while (peer.readRequest() != null) {
                    peer.write(answer);
                }
            })) {
                HttpClient client = client(newBuilder().followRedirects(HttpClient.Redirect.NORMAL));
                HttpRequest request = HttpRequest.newBuilder(URI.create(server.base() + "/")).build();
                ExecutionException async = assertThrows(ExecutionException.class,
                        () -> client.sendAsync(request, BodyHandlers.ofString()).get(30, TimeUnit.SECONDS), answer);
                assertThat(answer, async.getCause(), instanceOf(IOException.class));
                assertThrows(IOException.class, () -> client.send(request, BodyHandlers.ofString()), answer);
            }
        }
    }

    /** {@code HttpClient.Builder.localAddress}: the connection comes from that address. */
    @Test
    void connectsFromTheBuildersLocalAddress() throws Exception {
        InetAddress source = InetAddress.getByName("127.0.0.2"); // loopback too, on Linux the whole 127/8 is local
        org.junit.jupiter.api.Assumptions.assumeTrue(bindable(source), "127.0.0.2 is not a local address here");
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            listener.setSoTimeout(30_000);
            HttpClient client = client(newBuilder().localAddress(source));
            CompletableFuture<HttpResponse<Void>> call = client.sendAsync(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + listener.getLocalPort() + "/")).build(), BodyHandlers.discarding());
            try (java.net.Socket accepted = listener.accept()) {
                assertThat(accepted.getInetAddress(), is(source));
            } finally {
                call.cancel(true);
            }
        }
    }

    /** A local address the machine does not have: the connect fails, nothing is sent. */
    @Test
    void aLocalAddressThatCannotBeBoundFailsTheRequest() throws Exception {
        InetAddress foreign = InetAddress.getByName("192.0.2.1"); // TEST-NET-1 (RFC 5737)
        org.junit.jupiter.api.Assumptions.assumeFalse(bindable(foreign), "this machine may bind 192.0.2.1");
        HttpClient client = client(newBuilder().localAddress(foreign));
        assertThrows(IOException.class, () -> client.send(HttpRequest.newBuilder(uri("/bytes?n=1")).build(),
                BodyHandlers.ofString()));
    }

    private static boolean bindable(InetAddress address) {
        try (java.net.Socket probe = new java.net.Socket()) {
            probe.bind(new java.net.InetSocketAddress(address, 0));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * A status line or field that does not parse: both clients fail the exchange with a
     * ProtocolException, from sendAsync and (a new one, with it as cause) from send.
     */
    @Test
    void malformedResponseIsProtocolException() throws Exception {
        for (String answer : List.of("HTTP/1.1 abc OK\r\n\r\n", "garbage\r\n\r\n",
                "HTTP/1.1 200 OK\r\nBad Header: v\r\nContent-Length: 0\r\n\r\n")) {
            try (ScriptedH1Server broken = new ScriptedH1Server((index, peer) -> {
                while (peer.readRequest() != null) {
                    peer.write(answer);
                    peer.close();
                    return;
                }
            })) {
                HttpClient client = client();
                HttpRequest request = HttpRequest.newBuilder(URI.create(broken.base() + "/")).build();
                ExecutionException async = assertThrows(ExecutionException.class,
                        () -> client.sendAsync(request, BodyHandlers.ofString()).get(30, TimeUnit.SECONDS), answer);
                assertThat(answer, async.getCause(), instanceOf(java.net.ProtocolException.class));
                IOException sync = assertThrows(IOException.class, () -> client.send(request, BodyHandlers.ofString()));
                assertThat(answer, sync, instanceOf(java.net.ProtocolException.class));
                assertThat(answer, sync.getCause(), instanceOf(java.net.ProtocolException.class));
            }
        }
    }

    @Test
    void cancellingTheFutureAbortsTheExchange() throws Exception {
        HttpClient client = client();
        CompletableFuture<HttpResponse<String>> future = client.sendAsync(
                HttpRequest.newBuilder(uri("/stall")).build(), BodyHandlers.ofString());
        Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> server.stalledCount() == 1);
        future.cancel(true);
        // The JDK completes the future with CompletionException(CancellationException); ours is a
        // plain cancelled future, whose join throws the CancellationException itself.
        RuntimeException error = assertThrows(RuntimeException.class, future::join);
        Throwable cancellation = error instanceof CompletionException ? error.getCause() : error;
        assertThat(cancellation, instanceOf(CancellationException.class));
        // The client still works afterwards.
        assertThat(client.send(HttpRequest.newBuilder(uri("/bytes?n=10")).build(),
                BodyHandlers.ofByteArray()).body(), equalTo(Bodies.pattern(10)));
    }

    @Test
    void honoursSubscriberBackPressure() throws Exception {
        SlowSubscriber subscriber = new SlowSubscriber();
        CompletableFuture<HttpResponse<Void>> future = client().sendAsync(
                HttpRequest.newBuilder(uri("/bytes?n=" + 4 * MEGABYTE)).build(),
                BodyHandlers.fromSubscriber(subscriber));
        HttpResponse<Void> response = future.get(60, TimeUnit.SECONDS);
        assertThat(response.statusCode(), is(200));
        assertThat(subscriber.bytes, is((long) 4 * MEGABYTE));
        assertThat("never more items than requested", subscriber.overflow, is(false));
    }

    @Test
    void fiveHundredConcurrentAsyncRequestsOnOneClient() {
        HttpClient client = client();
        List<CompletableFuture<HttpResponse<byte[]>>> futures = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            futures.add(client.sendAsync(HttpRequest.newBuilder(uri("/bytes?n=" + (i % 50))).build(),
                    BodyHandlers.ofByteArray()));
        }
        CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).join();
        for (int i = 0; i < 500; i++) {
            assertThat(futures.get(i).join().body(), equalTo(Bodies.pattern(i % 50)));
        }
    }

    @Test
    void refusesRequestsAfterShutdown() throws Exception {
        HttpClient client = client();
        client.shutdown();
        assertThat(client.awaitTermination(Duration.ofSeconds(10)), is(true));
        assertThat(client.isTerminated(), is(true));
        assertThrows(IOException.class, () -> client.send(HttpRequest.newBuilder(uri("/bytes?n=1")).build(),
                BodyHandlers.ofString()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"ftp://127.0.0.1/file", "http:/no-host"})
    void unsupportedUriIsIllegalArgumentAtSend(String target) {
        HttpClient client = client();
        HttpRequest request = new FixedUriRequest(URI.create(target));
        assertThrows(IllegalArgumentException.class, () -> client.send(request, BodyHandlers.ofString()));
        assertThrows(IllegalArgumentException.class, () -> client.sendAsync(request, BodyHandlers.ofString()));
    }

    /**
     * A GET for any URI, bypassing the JDK's request builder (which would reject unsupported
     * URIs itself), so the client's own check is what is tested.
     */
    static final class FixedUriRequest extends HttpRequest {
        private final URI uri;

        FixedUriRequest(URI uri) {
            this.uri = uri;
        }

        @Override
        public java.util.Optional<BodyPublisher> bodyPublisher() {
            return java.util.Optional.empty();
        }

        @Override
        public String method() {
            return "GET";
        }

        @Override
        public java.util.Optional<Duration> timeout() {
            return java.util.Optional.empty();
        }

        @Override
        public boolean expectContinue() {
            return false;
        }

        @Override
        public URI uri() {
            return uri;
        }

        @Override
        public java.util.Optional<HttpClient.Version> version() {
            return java.util.Optional.empty();
        }

        @Override
        public java.net.http.HttpHeaders headers() {
            return java.net.http.HttpHeaders.of(java.util.Map.of(), (name, value) -> true);
        }
    }

    /** Requests one item at a time, only after the previous one was counted. */
    static final class SlowSubscriber implements Flow.Subscriber<List<ByteBuffer>> {
        volatile long bytes;
        volatile boolean overflow;
        private Flow.Subscription subscription;
        private int outstanding;

        @Override
        public void onSubscribe(Flow.Subscription subscription) {
            this.subscription = subscription;
            outstanding = 1;
            subscription.request(1);
        }

        @Override
        public void onNext(List<ByteBuffer> item) {
            if (--outstanding < 0) {
                overflow = true;
            }
            long sum = bytes;
            for (ByteBuffer buffer : item) {
                sum += buffer.remaining();
            }
            bytes = sum;
            outstanding++;
            subscription.request(1);
        }

        @Override
        public void onError(Throwable throwable) {
        }

        @Override
        public void onComplete() {
        }
    }

    /** Fills a listening socket's accept queue so further connects hang (SYNs dropped). */
    static final class BacklogFiller implements AutoCloseable {
        static final int SOCKETS_MAX = 64;
        private final List<Socket> sockets = new ArrayList<>();
        private boolean full;

        static BacklogFiller fill(ServerSocket server) {
            BacklogFiller filler = new BacklogFiller();
            for (int i = 0; i < SOCKETS_MAX && !filler.full; i++) {
                Socket socket = new Socket();
                try {
                    socket.connect(new InetSocketAddress("127.0.0.1", server.getLocalPort()), 200);
                    filler.sockets.add(socket);
                } catch (SocketTimeoutException e) {
                    filler.full = true;
                    closeQuietly(socket);
                } catch (IOException e) {
                    closeQuietly(socket);
                    break;
                }
            }
            return filler;
        }

        boolean isFull() {
            return full;
        }

        @Override
        public void close() {
            sockets.forEach(BacklogFiller::closeQuietly);
        }

        private static void closeQuietly(Socket socket) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing a test socket; nothing to do
            }
        }
    }
}
