package io.ringkv.http.client;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.Authenticator;
import java.net.CookieManager;
import java.net.PasswordAuthentication;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublisher;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The behaviours the HTTP/1.1 suite checks in depth, run over every protocol against Jetty 12:
 * HTTP/1.1, h2c, HTTP/1.1 over TLS and h2 over TLS (ALPN), for both clients (the subclasses). Covers
 * redirects, cookies, 401, timeouts, cancellation, 1 MiB bodies both ways, 100-continue, bodiless
 * responses, user-written subscribers and publishers with back-pressure, and every
 * {@link BodyHandlers} / {@link BodyPublishers} factory of Java 21.
 *
 * <p>The JDK reaches h2c only by {@code Upgrade: h2c} on a first request without body; every test
 * therefore starts with a warm-up GET, after which both clients speak the protocol under test.
 */
@Timeout(120)
abstract class CrossProtocolCompatibilitySuite extends TlsClientSuiteFixture {
    static final int MEGABYTE = 1024 * 1024;

    /** A protocol under test and how to reach Jetty with it. */
    enum Protocol {
        HTTP_1_1(HttpClient.Version.HTTP_1_1, false),
        H2C(HttpClient.Version.HTTP_2, false),
        HTTP_1_1_TLS(HttpClient.Version.HTTP_1_1, true),
        H2_TLS(HttpClient.Version.HTTP_2, true);

        final HttpClient.Version version;
        final boolean tls;

        Protocol(HttpClient.Version version, boolean tls) {
            this.version = version;
            this.tls = tls;
        }
    }

    @TempDir
    Path files;

    Protocol protocol;

    /** The builder under test for {@code protocol} (ours adds prior knowledge for h2c). */
    abstract HttpClient.Builder newBuilder(Protocol protocol);

    /**
     * Whether requests beyond the server's SETTINGS_MAX_CONCURRENT_STREAMS wait for a stream. Ours
     * does; the JDK client (25) fails them with {@code IOException("too many concurrent streams")}.
     */
    abstract boolean queuesBeyondTheStreamLimit();

    /** Starts Jetty for {@code under}; the client is built by {@link #client}. */
    void start(Protocol under) throws Exception {
        protocol = under;
        server = switch (under) {
            case HTTP_1_1 -> new JettyTestServer();
            case H2C -> JettyTestServer.h2c(JettyTestServer.H2_STREAMS_MAX_DEFAULT);
            case HTTP_1_1_TLS, H2_TLS -> JettyTestServer.tls(keyStore, TestCertificates.PASSWORD, true);
        };
    }

    URI uri(String pathAndQuery) {
        return URI.create((protocol.tls ? "https://localhost:" : "http://127.0.0.1:") + server.port() + pathAndQuery);
    }

    HttpClient client() throws Exception {
        return client(newBuilder(protocol));
    }

    /** Builds, then settles the protocol with a warm-up GET (the JDK's h2c Upgrade happens here). */
    HttpClient client(HttpClient.Builder builder) throws Exception {
        builder.version(protocol.version);
        if (protocol.tls) {
            builder.sslContext(trusting);
        }
        HttpClient client = builder.build();
        clients.add(client);
        HttpResponse<byte[]> warmUp = client.send(HttpRequest.newBuilder(uri("/bytes?n=1")).build(),
                BodyHandlers.ofByteArray());
        assertThat(warmUp.statusCode(), is(200));
        return client;
    }

    <T> HttpResponse<T> send(HttpClient client, HttpRequest request, HttpResponse.BodyHandler<T> handler)
            throws Exception {
        HttpResponse<T> response = client.send(request, handler);
        assertThat("protocol", response.version(), is(protocol.version));
        return response;
    }

    HttpRequest.Builder request(String pathAndQuery) {
        return HttpRequest.newBuilder(uri(pathAndQuery));
    }

    // ---- redirects -------------------------------------------------------------------------

    @ParameterizedTest
    @EnumSource(Protocol.class)
    void redirectNeverReturnsTheRedirect(Protocol under) throws Exception {
        start(under);
        HttpResponse<String> response = send(client(newBuilder(under).followRedirects(HttpClient.Redirect.NEVER)),
                request("/redirect?code=302").build(), BodyHandlers.ofString());
        assertThat(response.statusCode(), is(302));
        assertThat(response.headers().firstValue("location").orElseThrow(), is("/echo"));
    }

    @ParameterizedTest
    @EnumSource(Protocol.class)
    void redirectNormal303TurnsPostIntoGetAnd307KeepsIt(Protocol under) throws Exception {
        start(under);
        HttpClient client = client(newBuilder(under).followRedirects(HttpClient.Redirect.NORMAL));
        HttpResponse<String> seeOther = send(client, request("/redirect?hops=3&code=303")
                .POST(BodyPublishers.ofString("payload")).build(), BodyHandlers.ofString());
        assertThat(seeOther.statusCode(), is(200));
        assertThat(seeOther.headers().firstValue("X-Method").orElseThrow(), is("GET"));
        assertThat(seeOther.body(), is(""));
        assertThat(seeOther.previousResponse().orElseThrow().statusCode(), is(303));
        // The request behind the final response: a GET without a body publisher, as if built with GET().
        assertThat(seeOther.request().method(), is("GET"));
        assertThat(seeOther.request().bodyPublisher().isPresent(), is(false));
        HttpResponse<String> temporary = send(client, request("/redirect?hops=2&code=307")
                .POST(BodyPublishers.ofString("payload")).build(), BodyHandlers.ofString());
        assertThat(temporary.headers().firstValue("X-Method").orElseThrow(), is("POST"));
        assertThat(temporary.body(), is("payload"));
        assertThat(temporary.request().bodyPublisher().orElseThrow().contentLength(), is(7L));
    }

    @ParameterizedTest
    @EnumSource(Protocol.class)
    void redirectAlwaysFollows(Protocol under) throws Exception {
        start(under);
        HttpResponse<String> response = send(client(newBuilder(under).followRedirects(HttpClient.Redirect.ALWAYS)),
                request("/redirect?hops=2").build(), BodyHandlers.ofString());
        assertThat(response.statusCode(), is(200));
        assertThat(response.request().uri().getPath(), is("/echo"));
    }

    @ParameterizedTest
    @EnumSource(Protocol.class)
    void redirectsPastTheBoundReturnTheLastRedirect(Protocol under) throws Exception {
        start(under);
        HttpResponse<String> response = send(client(newBuilder(under).followRedirects(HttpClient.Redirect.NORMAL)),
                request("/redirect?hops=50").build(), BodyHandlers.ofString());
        assertThat(response.statusCode(), is(302));
        int followed = 0;
        for (HttpResponse<?> at = response; at.previousResponse().isPresent(); at = at.previousResponse().get()) {
            followed++;
        }
        assertThat(followed, is(HttpClientCompatibilitySuite.REDIRECTS_FOLLOWED_MAX));
    }

    // ---- cookies, authentication -----------------------------------------------------------

    @ParameterizedTest
    @EnumSource(Protocol.class)
    void cookiesGoThroughTheCookieHandler(Protocol under) throws Exception {
        start(under);
        CookieManager cookies = new CookieManager();
        HttpClient client = client(newBuilder(under).cookieHandler(cookies));
        send(client, request("/cookie/set").build(), BodyHandlers.ofString());
        assertThat(cookies.getCookieStore().getCookies().size(), is(1));
        assertThat(send(client, request("/cookie/get").build(), BodyHandlers.ofString()).body(), is("flavour=oat"));
    }

    @ParameterizedTest
    @EnumSource(Protocol.class)
    void authenticatorAnswersA401(Protocol under) throws Exception {
        start(under);
        List<String> asked = new CopyOnWriteArrayList<>();
        HttpClient client = client(newBuilder(under).authenticator(new Authenticator() {
            @Override
            protected PasswordAuthentication getPasswordAuthentication() {
                asked.add(getRequestorType() + " " + getRequestingScheme() + " " + getRequestingPrompt());
                return new PasswordAuthentication(JettyTestServer.USER, JettyTestServer.PASSWORD.toCharArray());
            }
        }));
        HttpResponse<String> response = send(client, request("/auth").build(), BodyHandlers.ofString());
        assertThat(response.statusCode(), is(200));
        assertThat(response.body(), is("welcome"));
        assertThat(asked, contains("SERVER basic ringkv"));
        assertThat(response.previousResponse().orElseThrow().statusCode(), is(401));
    }

    @ParameterizedTest
    @EnumSource(Protocol.class)
    void a401IsReturnedWithoutAnAuthenticator(Protocol under) throws Exception {
        start(under);
        HttpResponse<String> response = send(client(), request("/auth").build(), BodyHandlers.ofString());
        assertThat(response.statusCode(), is(401));
        assertThat(response.body(), is("who are you"));
    }

    // ---- timeouts, cancellation ------------------------------------------------------------

    @ParameterizedTest
    @EnumSource(Protocol.class)
    void requestTimeoutAgainstAStallingServerIsHttpTimeoutException(Protocol under) throws Exception {
        start(under);
        HttpClient client = client();
        HttpRequest stall = request("/stall").timeout(Duration.ofMillis(300)).build();
        assertThrows(HttpTimeoutException.class, () -> client.send(stall, BodyHandlers.ofString()));
        assertThat("the client still works", send(client, request("/bytes?n=10").build(),
                BodyHandlers.ofByteArray()).body(), equalTo(Bodies.pattern(10)));
    }

    @ParameterizedTest
    @EnumSource(Protocol.class)
    void connectTimeoutIsHttpConnectTimeoutException(Protocol under) throws Exception {
        protocol = under;
        try (ServerSocket full = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
                HttpClientCompatibilitySuite.BacklogFiller filler = HttpClientCompatibilitySuite.BacklogFiller.fill(full)) {
            assumeTrue(filler.isFull(), "the OS accepted every connection");
            HttpClient.Builder builder = newBuilder(under).connectTimeout(Duration.ofMillis(300)).version(under.version);
            if (under.tls) {
                builder.sslContext(trusting);
            }
            HttpClient client = builder.build();
            clients.add(client);
            URI target = URI.create((under.tls ? "https" : "http") + "://127.0.0.1:" + full.getLocalPort() + "/");
            assertThrows(HttpConnectTimeoutException.class,
                    () -> client.send(HttpRequest.newBuilder(target).build(), BodyHandlers.ofString()));
        }
    }

    @ParameterizedTest
    @EnumSource(Protocol.class)
    void cancellingTheFutureAbortsTheExchange(Protocol under) throws Exception {
        start(under);
        HttpClient client = client();
        CompletableFuture<HttpResponse<String>> future = client.sendAsync(request("/stall").build(),
                BodyHandlers.ofString());
        Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> server.stalledCount() == 1);
        future.cancel(true);
        RuntimeException error = assertThrows(RuntimeException.class, future::join);
        Throwable cancellation = error instanceof CompletionException ? error.getCause() : error;
        assertThat(cancellation, instanceOf(CancellationException.class));
        assertThat("the client still works", send(client, request("/bytes?n=10").build(),
                BodyHandlers.ofByteArray()).body(), equalTo(Bodies.pattern(10)));
    }

    // ---- bodies ----------------------------------------------------------------------------

    @ParameterizedTest
    @EnumSource(Protocol.class)
    void megabyteBodiesBothWaysFixedAndUnknownLength(Protocol under) throws Exception {
        start(under);
        HttpClient client = client();
        byte[] data = Bodies.pattern(MEGABYTE);
        assertThat(send(client, request("/bytes?n=" + MEGABYTE).build(), BodyHandlers.ofByteArray()).body(),
                equalTo(data));
        assertThat(send(client, request("/chunked?n=" + MEGABYTE).build(), BodyHandlers.ofByteArray()).body(),
                equalTo(data));
        HttpResponse<byte[]> fixed = send(client, request("/echo").POST(BodyPublishers.ofByteArray(data)).build(),
                BodyHandlers.ofByteArray());
        assertThat(fixed.body(), equalTo(data));
        assertThat(fixed.headers().firstValue("X-Request-Content-Length").orElseThrow(), is(Integer.toString(MEGABYTE)));
        HttpResponse<byte[]> unknown = send(client, request("/echo").PUT(BodyPublishers.fromPublisher(
                BodyPublishers.ofByteArray(data))).build(), BodyHandlers.ofByteArray());
        assertThat(unknown.body(), equalTo(data));
        assertThat(unknown.headers().firstValue("X-Request-Transfer-Encoding").orElseThrow(),
                is(under.version == HttpClient.Version.HTTP_1_1 ? "chunked" : "none"));
    }

    @ParameterizedTest
    @EnumSource(Protocol.class)
    void sendsTheBodyWithExpectContinue(Protocol under) throws Exception {
        start(under);
        HttpResponse<String> response = send(client(), request("/echo").expectContinue(true)
                .POST(BodyPublishers.ofString("after continue")).build(), BodyHandlers.ofString());
        assertThat(response.statusCode(), is(200));
        assertThat(response.body(), is("after continue"));
    }

    @ParameterizedTest
    @EnumSource(Protocol.class)
    void headAnd204And304HaveNoBody(Protocol under) throws Exception {
        start(under);
        HttpClient client = client();
        HttpResponse<byte[]> head = send(client, request("/bytes?n=500").HEAD().build(), BodyHandlers.ofByteArray());
        assertThat(head.statusCode(), is(200));
        assertThat(head.body().length, is(0));
        for (int code : new int[] {204, 304}) {
            HttpResponse<String> response = send(client, request("/status?code=" + code).build(), BodyHandlers.ofString());
            assertThat(response.statusCode(), is(code));
            assertThat(response.body(), is(""));
        }
        assertThat("the connection lives on", send(client, request("/bytes?n=3").build(),
                BodyHandlers.ofByteArray()).body(), equalTo(Bodies.pattern(3)));
    }

    /**
     * Over h2 only: HTTP/1.1 (cleartext) is in the HTTP/1.1 suite, h2c in the HTTP/2 one; over
     * HTTP/1.1 with TLS the JDK would open 500 TLS connections, which costs more than it shows.
     */
    @ParameterizedTest
    @EnumSource(value = Protocol.class, names = "H2_TLS")
    void fiveHundredConcurrentAsyncRequestsOverTls(Protocol under) throws Exception {
        start(under);
        HttpClient client = client();
        List<CompletableFuture<HttpResponse<byte[]>>> futures = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            futures.add(client.sendAsync(request("/bytes?n=" + (i % 50)).build(), BodyHandlers.ofByteArray()));
        }
        int refused = 0;
        for (int i = 0; i < 500; i++) {
            try {
                assertThat(futures.get(i).get(60, TimeUnit.SECONDS).body(), equalTo(Bodies.pattern(i % 50)));
            } catch (java.util.concurrent.ExecutionException e) {
                assertThat(e.getCause(), instanceOf(java.io.IOException.class));
                refused++;
            }
        }
        if (queuesBeyondTheStreamLimit()) {
            assertThat("every request succeeds", refused, is(0));
        }
    }

    @ParameterizedTest
    @EnumSource(Protocol.class)
    void userSubscriberBackPressureIsHonoured(Protocol under) throws Exception {
        start(under);
        HttpClientCompatibilitySuite.SlowSubscriber subscriber = new HttpClientCompatibilitySuite.SlowSubscriber();
        HttpResponse<Void> response = client().sendAsync(request("/bytes?n=" + 4 * MEGABYTE).build(),
                BodyHandlers.fromSubscriber(subscriber)).get(60, TimeUnit.SECONDS);
        assertThat(response.statusCode(), is(200));
        assertThat(subscriber.bytes, is((long) 4 * MEGABYTE));
        assertThat("never more items than requested", subscriber.overflow, is(false));
    }

    @ParameterizedTest
    @EnumSource(Protocol.class)
    void userPublisherIsDrivenByDemand(Protocol under) throws Exception {
        start(under);
        HttpClient client = client();
        for (boolean knownLength : new boolean[] {true, false}) {
            DemandPublisher publisher = new DemandPublisher(64, 16 * 1024);
            BodyPublisher body = knownLength ? BodyPublishers.fromPublisher(publisher, publisher.length())
                    : BodyPublishers.fromPublisher(publisher);
            HttpResponse<byte[]> response = send(client, request("/echo").POST(body).build(), BodyHandlers.ofByteArray());
            assertThat(response.body(), equalTo(publisher.expected()));
            assertThat(publisher.requests.get(), greaterThan(0L));
        }
    }

    static Stream<Arguments> handlers() {
        return Arrays.stream(Protocol.values()).flatMap(p -> Stream.of("ofByteArray", "ofString", "ofStringCharset",
                "ofFile", "ofFileWithOptions", "ofFileDownload", "ofInputStream", "ofLines", "ofPublisher", "discarding",
                "replacing", "ofByteArrayConsumer", "fromSubscriber", "fromSubscriberFinisher", "fromLineSubscriber",
                "fromLineSubscriberFinisher", "buffering").map(name -> Arguments.of(p, name)));
    }

    @ParameterizedTest(name = "{0} BodyHandlers.{1}")
    @MethodSource("handlers")
    void everyBodyHandlerFactory(Protocol under, String factory) throws Exception {
        start(under);
        HttpClient client = client();
        int size = 100_000;
        byte[] data = Bodies.pattern(size);
        HttpRequest get = request("/bytes?n=" + size).build();
        HttpRequest lines = request("/echo").POST(BodyPublishers.ofString("one\ntwo\r\nthree")).build();
        switch (factory) {
            case "ofByteArray" -> assertThat(send(client, get, BodyHandlers.ofByteArray()).body(), equalTo(data));
            case "ofString" -> assertThat(send(client, request("/echo").POST(BodyPublishers.ofString("héllo wörld"))
                    .build(), BodyHandlers.ofString()).body(), is("héllo wörld"));
            case "ofStringCharset" -> assertThat(send(client, request("/echo").POST(BodyPublishers.ofString("café",
                    StandardCharsets.ISO_8859_1)).build(), BodyHandlers.ofString(StandardCharsets.ISO_8859_1)).body(),
                    is("café"));
            case "ofFile" -> {
                Path file = files.resolve("body.bin");
                assertThat(send(client, get, BodyHandlers.ofFile(file)).body(), is(file));
                assertThat(Files.readAllBytes(file), equalTo(data));
            }
            case "ofFileWithOptions" -> {
                Path file = files.resolve("body-options.bin");
                send(client, get, BodyHandlers.ofFile(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE));
                assertThat(Files.readAllBytes(file), equalTo(data));
            }
            case "ofFileDownload" -> {
                Path file = send(client, request("/download?n=" + size).build(), BodyHandlers.ofFileDownload(files,
                        StandardOpenOption.CREATE, StandardOpenOption.WRITE)).body();
                assertThat(file.getFileName().toString(), is("download.bin"));
                assertThat(Files.readAllBytes(file), equalTo(data));
            }
            case "ofInputStream" -> {
                try (InputStream in = send(client, get, BodyHandlers.ofInputStream()).body()) {
                    assertThat(in.readAllBytes(), equalTo(data));
                }
            }
            case "ofLines" -> {
                try (Stream<String> stream = send(client, lines, BodyHandlers.ofLines()).body()) {
                    assertThat(stream.toList(), contains("one", "two", "three"));
                }
            }
            case "ofPublisher" -> {
                Flow.Publisher<List<ByteBuffer>> publisher = send(client, get, BodyHandlers.ofPublisher()).body();
                assertThat(Collecting.from(publisher).get(60, TimeUnit.SECONDS), equalTo(data));
            }
            case "discarding" -> {
                HttpResponse<Void> response = send(client, get, BodyHandlers.discarding());
                assertThat(response.statusCode(), is(200));
                assertThat(response.body(), is(nullValue()));
            }
            case "replacing" -> assertThat(send(client, get, BodyHandlers.replacing("instead")).body(), is("instead"));
            case "ofByteArrayConsumer" -> {
                ByteArrayOutputStream collected = new ByteArrayOutputStream();
                CompletableFuture<Void> ended = new CompletableFuture<>();
                send(client, get, BodyHandlers.ofByteArrayConsumer(piece -> {
                    if (piece.isPresent()) {
                        collected.writeBytes(piece.get());
                    } else {
                        ended.complete(null);
                    }
                }));
                ended.get(60, TimeUnit.SECONDS);
                assertThat(collected.toByteArray(), equalTo(data));
            }
            case "fromSubscriber" -> {
                Collecting subscriber = new Collecting();
                send(client, get, BodyHandlers.fromSubscriber(subscriber));
                assertThat(subscriber.result.get(60, TimeUnit.SECONDS), equalTo(data));
            }
            case "fromSubscriberFinisher" -> {
                Collecting subscriber = new Collecting();
                assertThat(send(client, get, BodyHandlers.fromSubscriber(subscriber, Collecting::bytesNow)).body(),
                        equalTo(data));
            }
            case "fromLineSubscriber" -> {
                LineCollector subscriber = new LineCollector();
                send(client, lines, BodyHandlers.fromLineSubscriber(subscriber));
                assertThat(subscriber.done.get(60, TimeUnit.SECONDS), contains("one", "two", "three"));
            }
            case "fromLineSubscriberFinisher" -> {
                LineCollector subscriber = new LineCollector();
                List<String> got = send(client, request("/echo").POST(BodyPublishers.ofString("a\nb\nc")).build(),
                        BodyHandlers.fromLineSubscriber(subscriber, s -> s.lines, "\n")).body();
                assertThat(got, contains("a", "b", "c"));
            }
            case "buffering" -> assertThat(send(client, get, BodyHandlers.buffering(BodyHandlers.ofByteArray(), 1000))
                    .body(), equalTo(data));
            default -> throw new IllegalArgumentException(factory);
        }
    }

    static Stream<Arguments> publishers() {
        return Arrays.stream(Protocol.values()).flatMap(p -> Stream.of("noBody", "ofString", "ofStringCharset",
                "ofByteArray", "ofByteArrayRange", "ofByteArrays", "ofInputStream", "ofFile", "fromPublisher",
                "fromPublisherWithLength", "concat").map(name -> Arguments.of(p, name)));
    }

    @ParameterizedTest(name = "{0} BodyPublishers.{1}")
    @MethodSource("publishers")
    void everyBodyPublisherFactory(Protocol under, String factory) throws Exception {
        start(under);
        HttpClient client = client();
        byte[] data = Bodies.pattern(100_000);
        byte[] expected = data;
        BodyPublisher body;
        switch (factory) {
            case "noBody" -> {
                body = BodyPublishers.noBody();
                expected = new byte[0];
            }
            case "ofString" -> {
                body = BodyPublishers.ofString("héllo");
                expected = "héllo".getBytes(StandardCharsets.UTF_8);
            }
            case "ofStringCharset" -> {
                body = BodyPublishers.ofString("héllo", StandardCharsets.ISO_8859_1);
                expected = "héllo".getBytes(StandardCharsets.ISO_8859_1);
            }
            case "ofByteArray" -> body = BodyPublishers.ofByteArray(data);
            case "ofByteArrayRange" -> {
                body = BodyPublishers.ofByteArray(data, 10, 5000);
                expected = Arrays.copyOfRange(data, 10, 5010);
            }
            case "ofByteArrays" -> body = BodyPublishers.ofByteArrays(List.of(Arrays.copyOfRange(data, 0, 40_000),
                    Arrays.copyOfRange(data, 40_000, data.length)));
            case "ofInputStream" -> body = BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(data));
            case "ofFile" -> body = BodyPublishers.ofFile(Files.write(files.resolve("upload.bin"), data));
            case "fromPublisher" -> body = BodyPublishers.fromPublisher(BodyPublishers.ofByteArray(data));
            case "fromPublisherWithLength" -> body = BodyPublishers.fromPublisher(BodyPublishers.ofByteArray(data),
                    data.length);
            case "concat" -> body = BodyPublishers.concat(BodyPublishers.ofByteArray(data, 0, 50_000),
                    BodyPublishers.noBody(), BodyPublishers.ofByteArray(data, 50_000, 50_000));
            default -> throw new IllegalArgumentException(factory);
        }
        HttpResponse<byte[]> response = send(client, request("/echo").POST(body).build(), BodyHandlers.ofByteArray());
        assertThat(response.statusCode(), is(200));
        assertThat(response.body(), equalTo(expected));
    }

    /** Collects a body's bytes; completes {@link #result} at the end. */
    static final class Collecting implements Flow.Subscriber<List<ByteBuffer>> {
        final CompletableFuture<byte[]> result = new CompletableFuture<>();
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        static CompletableFuture<byte[]> from(Flow.Publisher<List<ByteBuffer>> publisher) {
            Collecting subscriber = new Collecting();
            publisher.subscribe(subscriber);
            return subscriber.result;
        }

        byte[] bytesNow() {
            return result.join();
        }

        @Override
        public void onSubscribe(Flow.Subscription subscription) {
            subscription.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(List<ByteBuffer> item) {
            for (ByteBuffer buffer : item) {
                byte[] piece = new byte[buffer.remaining()];
                buffer.get(piece);
                bytes.writeBytes(piece);
            }
        }

        @Override
        public void onError(Throwable throwable) {
            result.completeExceptionally(throwable);
        }

        @Override
        public void onComplete() {
            result.complete(bytes.toByteArray());
        }
    }

    /** Collects lines, one requested at a time. */
    static final class LineCollector implements Flow.Subscriber<String> {
        final List<String> lines = new CopyOnWriteArrayList<>();
        final CompletableFuture<List<String>> done = new CompletableFuture<>();
        private Flow.Subscription subscription;

        @Override
        public void onSubscribe(Flow.Subscription subscription) {
            this.subscription = subscription;
            subscription.request(1);
        }

        @Override
        public void onNext(String item) {
            lines.add(item);
            subscription.request(1);
        }

        @Override
        public void onError(Throwable throwable) {
            done.completeExceptionally(throwable);
        }

        @Override
        public void onComplete() {
            done.complete(List.copyOf(lines));
        }
    }

    /**
     * A user-written request body: {@code items} buffers of {@code itemBytes}, each emitted only
     * against outstanding demand, on the thread that requested it, so the body arrives whole only
     * if the client keeps requesting; counts the request calls.
     */
    static final class DemandPublisher implements Flow.Publisher<ByteBuffer> {
        final AtomicLong requests = new AtomicLong();
        private final int items;
        private final int itemBytes;

        DemandPublisher(int items, int itemBytes) {
            this.items = items;
            this.itemBytes = itemBytes;
        }

        long length() {
            return (long) items * itemBytes;
        }

        byte[] expected() {
            return Bodies.pattern((int) length());
        }

        @Override
        public void subscribe(Flow.Subscriber<? super ByteBuffer> subscriber) {
            byte[] all = expected();
            subscriber.onSubscribe(new Flow.Subscription() {
                private long demand;
                private int next;
                private boolean emitting;
                private boolean cancelled;

                @Override
                public void request(long n) {
                    requests.incrementAndGet();
                    synchronized (this) {
                        demand = demand + n < 0 ? Long.MAX_VALUE : demand + n;
                        if (emitting) {
                            return; // the loop below, further up the stack, sees the new demand
                        }
                        emitting = true;
                    }
                    while (true) {
                        int item;
                        synchronized (this) {
                            if (cancelled || next > items || (demand == 0 && next < items)) {
                                emitting = false;
                                return; // cancelled, completed already, or no demand left
                            }
                            if (next == items) {
                                next++;
                                emitting = false;
                                break;
                            }
                            demand--;
                            item = next++;
                        }
                        subscriber.onNext(ByteBuffer.wrap(all, item * itemBytes, itemBytes).slice());
                    }
                    subscriber.onComplete();
                }

                @Override
                public synchronized void cancel() {
                    cancelled = true;
                }
            });
        }
    }
}
