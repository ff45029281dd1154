package io.ringkv.http.client.internal;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ringkv.http.client.ScriptedH2Server;
import io.ringkv.http.h2.Http2Config;
import io.ringkv.net.ChannelOptions;
import io.ringkv.net.Connection;
import io.ringkv.net.ConnectionHandler;
import io.ringkv.net.EventLoop;
import io.ringkv.net.EventLoopGroup;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodySubscriber;
import java.net.http.HttpResponse.BodySubscribers;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An HTTP/2 connection whose socket begins closing (the peer's FIN, a failed write) after
 * {@link H2Connection#open} decided it may open a stream, and before it enqueued the HEADERS:
 * the socket refuses the frames, so the server never saw the request, which then goes to a new
 * connection, like a stream refused by GOAWAY.
 *
 * <p>The moment is made exact by {@link ClosingAtEnqueue}, which stands between the loop's real
 * connection and the {@link H2Connection} (as NetTransport wires them, against
 * {@link ScriptedH2Server}) and, at a chosen enqueue, asks the real connection to close first.
 * Everything else is real: sockets, event loop, codec, exchange, the refusal by the socket.
 */
@Timeout(60)
class H2ConnectionClosingTest {
    private final List<Integer> requestsSeenOnConnection = new CopyOnWriteArrayList<>();
    private final List<ClosingAtEnqueue> sockets = new CopyOnWriteArrayList<>();
    /** At which enqueue after its SETTINGS exchange the first connection's socket closes. */
    private volatile int closeFirstSocketAtEnqueue;
    private EventLoopGroup loops;
    private ExecutorService executor;
    private ScriptedH2Server server;
    private H2Codec codec;

    @BeforeEach
    void start() throws IOException {
        loops = new EventLoopGroup(1, "h2-closing-test");
        executor = Executors.newFixedThreadPool(2);
        server = new ScriptedH2Server((connection, protocol, streams) -> {
            requestsSeenOnConnection.add(connection);
            return ScriptedH2Server.respond(protocol, streams.getLast(), "served by connection " + connection);
        });
        codec = new H2Codec(this::connect, route -> true, 2, Duration.ofSeconds(30));
    }

    @AfterEach
    void stop() throws IOException {
        codec.close();
        loops.close();
        server.close();
        executor.shutdownNow();
    }

    @Test
    void aRequestWhoseConnectionBeganClosingGoesToANewConnection() throws Exception {
        closeFirstSocketAtEnqueue = 1; // the request's HEADERS
        H2Exchange exchange = exchange(HttpRequest.newBuilder(URI.create(server.base() + "/a")).build());

        exchange.begin();

        assertThat(exchange.responseHead().get(30, TimeUnit.SECONDS).status(), is(200));
        assertThat(body(exchange), is("served by connection 1"));
        assertThat(sockets.get(0).refusedEnqueues(), is(1));
        assertThat(requestsSeenOnConnection, contains(1));
        assertThat(server.connectionsAccepted(), is(2));
    }

    @Test
    void aRequestBodyStopsAtOnceWhenItsConnectionBeganClosing() throws Exception {
        closeFirstSocketAtEnqueue = 2; // the HEADERS are queued; the first DATA meets the closing socket
        CountingPublisher items = new CountingPublisher(3, 10);
        H2Exchange exchange = exchange(HttpRequest.newBuilder(URI.create(server.base() + "/upload"))
                .POST(HttpRequest.BodyPublishers.fromPublisher(items, 30)).build());

        exchange.begin();

        ExecutionException failure = assertThrows(ExecutionException.class,
                () -> exchange.responseHead().get(30, TimeUnit.SECONDS));
        assertThat(failure.getCause(), instanceOf(IOException.class));
        // The dropped DATA was not taken for sent: no further item was asked for, the rest was cancelled.
        assertThat(items.requested(), is(1L));
        assertThat(items.cancelled(), is(true));
        assertThat(sockets.get(0).refusedEnqueues(), is(1));
        // The HEADERS left before the close (the server may have seen the stream): not retried.
        assertThat(requestsSeenOnConnection, empty());
        assertThat(server.connectionsAccepted(), is(1));
    }

    private H2Exchange exchange(HttpRequest request) {
        return new H2Exchange(ExchangeRequest.of(request, HttpClient.Version.HTTP_2), Route.of(request.uri(), null),
                codec, executor, null);
    }

    private static String body(H2Exchange exchange) throws Exception {
        BodySubscriber<String> subscriber = BodySubscribers.ofString(StandardCharsets.UTF_8);
        exchange.deliverBody(subscriber);
        return subscriber.getBody().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    /** As NetTransport's h2c connect, with the socket seen through a {@link ClosingAtEnqueue}. */
    private CompletableFuture<H2Connection> connect(Route route) {
        H2Connection connection = new H2Connection(route, codec, Http2Config.defaults(),
                new H2Liveness(Duration.ZERO, Duration.ofSeconds(10)), new OpenConnections());
        ClosingAtEnqueue socket = new ClosingAtEnqueue(connection);
        boolean first = sockets.isEmpty();
        sockets.add(socket);
        InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), route.port());
        return loops.connect(address, Duration.ofSeconds(10), ChannelOptions.defaults(), socket)
                .thenCompose(open -> connection.ready())
                .thenApply(ready -> {
                    // Before the codec hands the connection out: nothing was enqueued since SETTINGS.
                    if (first) {
                        socket.closeAtEnqueue(closeFirstSocketAtEnqueue);
                    }
                    return ready;
                });
    }

    /**
     * Passes a real connection through to its handler, except that the n-th enqueue after
     * {@link #closeAtEnqueue} first asks the real connection to close (flush, then shut down):
     * that enqueue then meets a closing socket, which refuses it.
     */
    private static final class ClosingAtEnqueue implements ConnectionHandler {
        private final ConnectionHandler target;
        private final AtomicInteger enqueuesBeforeClose = new AtomicInteger();
        private final AtomicInteger refused = new AtomicInteger();
        private volatile View view;

        ClosingAtEnqueue(ConnectionHandler target) {
            this.target = target;
        }

        void closeAtEnqueue(int n) {
            enqueuesBeforeClose.set(n);
        }

        int refusedEnqueues() {
            return refused.get();
        }

        @Override
        public void onOpen(Connection connection) {
            view = new View(connection);
            target.onOpen(view);
        }

        @Override
        public void onRead(Connection connection, ByteBuffer input) {
            target.onRead(view, input);
        }

        @Override
        public void onInputClosed(Connection connection) {
            target.onInputClosed(view);
        }

        @Override
        public void onWritable(Connection connection) {
            target.onWritable(view);
        }

        @Override
        public void onClosed(Connection connection, Throwable cause) {
            target.onClosed(view, cause);
        }

        private final class View implements Connection {
            private final Connection real;

            View(Connection real) {
                this.real = real;
            }

            @Override
            public boolean enqueue(ByteBuffer... group) {
                if (enqueuesBeforeClose.get() > 0 && enqueuesBeforeClose.decrementAndGet() == 0) {
                    real.closeAfterFlush();
                }
                boolean queued = real.enqueue(group);
                if (!queued) {
                    refused.incrementAndGet();
                }
                return queued;
            }

            @Override
            public EventLoop loop() {
                return real.loop();
            }

            @Override
            public ByteBuffer retain(ByteBuffer slice) {
                return real.retain(slice);
            }

            @Override
            public InetSocketAddress remoteAddress() {
                return real.remoteAddress();
            }

            @Override
            public InetSocketAddress localAddress() {
                return real.localAddress();
            }

            @Override
            public boolean write(ByteBuffer... group) {
                return real.write(group);
            }

            @Override
            public boolean writeUrgent(ByteBuffer... group) {
                return real.writeUrgent(group);
            }

            @Override
            public void flush() {
                real.flush();
            }

            @Override
            public long queuedBytes() {
                return real.queuedBytes();
            }

            @Override
            public boolean isWritable() {
                return real.isWritable();
            }

            @Override
            public void suspendReads() {
                real.suspendReads();
            }

            @Override
            public void resumeReads() {
                real.resumeReads();
            }

            @Override
            public void closeAfterFlush() {
                real.closeAfterFlush();
            }

            @Override
            public void abort(Throwable cause) {
                real.abort(cause);
            }

            @Override
            public boolean isOpen() {
                return real.isOpen();
            }
        }
    }

    /**
     * {@code count} items of {@code size} bytes, each only on demand; counts what was asked for.
     * Requests arrive one at a time (Reactive Streams §2.7); one made from inside {@code onNext}
     * only adds demand, which the outer call's loop then serves.
     */
    private static final class CountingPublisher implements Flow.Publisher<ByteBuffer> {
        private final int count;
        private final int size;
        private final AtomicLong requested = new AtomicLong();
        private volatile boolean cancelled;

        CountingPublisher(int count, int size) {
            this.count = count;
            this.size = size;
        }

        long requested() {
            return requested.get();
        }

        boolean cancelled() {
            return cancelled;
        }

        @Override
        public void subscribe(Flow.Subscriber<? super ByteBuffer> subscriber) {
            subscriber.onSubscribe(new Flow.Subscription() {
                private final AtomicLong demand = new AtomicLong();
                private volatile int sent;
                private volatile boolean delivering;
                private volatile boolean completed;

                @Override
                public void request(long n) {
                    requested.addAndGet(n);
                    demand.addAndGet(n);
                    if (delivering) {
                        return;
                    }
                    delivering = true;
                    try {
                        while (demand.get() > 0 && sent < count && !cancelled) {
                            demand.decrementAndGet();
                            sent++;
                            subscriber.onNext(ByteBuffer.wrap(new byte[size]));
                        }
                        if (sent == count && !cancelled && !completed) {
                            completed = true;
                            subscriber.onComplete();
                        }
                    } finally {
                        delivering = false;
                    }
                }

                @Override
                public void cancel() {
                    cancelled = true;
                }
            });
        }
    }
}
