package io.ringkv.bench.client;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicReference;
import org.eclipse.jetty.alpn.server.ALPNServerConnectionFactory;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.http2.server.HTTP2CServerConnectionFactory;
import org.eclipse.jetty.http2.server.HTTP2ServerConnectionFactory;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.ScheduledExecutorScheduler;

/**
 * The Jetty 12 server every client talks to: on 127.0.0.1, HTTP/1.1 plus HTTP/2 on one port
 * (cleartext: h2c by prior knowledge or by {@code Upgrade: h2c}; TLS: h2 or http/1.1 by ALPN).
 * GET answers {@code getBytes} bytes of a fixed payload; POST reads the whole body and answers
 * {@link #POST_ANSWER}.
 *
 * <p>All of the server's threads (its pool and its scheduler) live in {@link #THREAD_GROUP} and
 * the pool is fixed-size (min = max, started up front), so that {@link ClientMeter} can tell the
 * client's threads and allocations from the server's.
 *
 * <p>Threading: start and stop on one thread; the handler runs on Jetty's threads.
 */
public final class BenchServer implements AutoCloseable {
    public static final ThreadGroup THREAD_GROUP = new ThreadGroup("bench-server");
    public static final String POST_ANSWER = "ok";
    /** Fixed pool: enough for 64 HTTP/1.1 connections' selectors, acceptors and handlers. */
    private static final int POOL_THREADS = 24;
    private static final int POOL_IDLE_MILLIS = 600_000;
    private static final int H2_STREAMS_MAX = 128;

    private static final ByteBuffer POST_ANSWER_BYTES =
            ByteBuffer.wrap(POST_ANSWER.getBytes(StandardCharsets.US_ASCII)).asReadOnlyBuffer();

    private final Server server;
    private final ServerConnector connector;
    private final ByteBuffer getPayload;
    private final boolean tls;

    public BenchServer(int getBytes, SelfSignedCertificate certificate) throws Exception {
        byte[] payload = new byte[getBytes];
        for (int i = 0; i < payload.length; i++) {
            payload[i] = (byte) ('a' + i % 26);
        }
        this.getPayload = ByteBuffer.wrap(payload).asReadOnlyBuffer();
        this.tls = certificate != null;
        QueuedThreadPool pool = new QueuedThreadPool(POOL_THREADS, POOL_THREADS, POOL_IDLE_MILLIS, -1, null, THREAD_GROUP);
        pool.setName("bench-server");
        server = new Server(pool, new ScheduledExecutorScheduler("bench-server-scheduler", true, null, THREAD_GROUP), null);
        connector = tls ? tlsConnector(certificate) : cleartextConnector();
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        server.setHandler(new Handler.Abstract.NonBlocking() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                answer(request, response, callback);
                return true;
            }
        });
        startInServerGroup();
    }

    private ServerConnector cleartextConnector() {
        HttpConfiguration http = new HttpConfiguration();
        HTTP2CServerConnectionFactory h2c = new HTTP2CServerConnectionFactory(http);
        h2c.setMaxConcurrentStreams(H2_STREAMS_MAX);
        return new ServerConnector(server, new HttpConnectionFactory(http), h2c);
    }

    private ServerConnector tlsConnector(SelfSignedCertificate certificate) {
        HttpConfiguration http = new HttpConfiguration();
        http.addCustomizer(new SecureRequestCustomizer(false));
        SslContextFactory.Server ssl = new SslContextFactory.Server();
        ssl.setKeyStorePath(certificate.keyStore().toString());
        ssl.setKeyStorePassword(SelfSignedCertificate.PASSWORD);
        ssl.setKeyStoreType("PKCS12");
        HTTP2ServerConnectionFactory h2 = new HTTP2ServerConnectionFactory(http);
        h2.setMaxConcurrentStreams(H2_STREAMS_MAX);
        ALPNServerConnectionFactory alpn = new ALPNServerConnectionFactory("h2", "http/1.1");
        alpn.setDefaultProtocol("http/1.1");
        return new ServerConnector(server, new SslConnectionFactory(ssl, alpn.getProtocol()), alpn, h2,
                new HttpConnectionFactory(http));
    }

    /** Starts Jetty from a thread of {@link #THREAD_GROUP}, so anything it spawns inherits the group. */
    private void startInServerGroup() throws Exception {
        AtomicReference<Exception> failure = new AtomicReference<>();
        Thread starter = new Thread(THREAD_GROUP, () -> {
            try {
                server.start();
            } catch (Exception e) {
                failure.set(e);
            }
        }, "bench-server-start");
        starter.start();
        starter.join();
        if (failure.get() != null) {
            throw failure.get();
        }
    }

    private void answer(Request request, Response response, Callback callback) {
        if (HttpMethod.GET.is(request.getMethod())) {
            response.getHeaders().put(HttpHeader.CONTENT_LENGTH, getPayload.remaining());
            response.write(true, getPayload.slice(), callback);
        } else {
            drainThenAnswer(request, response, callback);
        }
    }

    /** Reads the request body without blocking (demand when nothing is ready), then answers small. */
    private void drainThenAnswer(Request request, Response response, Callback callback) {
        while (true) {
            Content.Chunk chunk = request.read();
            if (chunk == null) {
                request.demand(() -> drainThenAnswer(request, response, callback));
                return;
            }
            if (Content.Chunk.isFailure(chunk)) {
                callback.failed(chunk.getFailure());
                return;
            }
            boolean last = chunk.isLast();
            chunk.release();
            if (last) {
                response.getHeaders().put(HttpHeader.CONTENT_LENGTH, POST_ANSWER_BYTES.remaining());
                response.write(true, POST_ANSWER_BYTES.slice(), callback);
                return;
            }
        }
    }

    public String base() {
        return (tls ? "https" : "http") + "://127.0.0.1:" + connector.getLocalPort();
    }

    @Override
    public void close() throws Exception {
        server.stop();
    }
}
