package io.ringkv.cluster;

import io.ringkv.http.h1.H1Limits;
import io.ringkv.http.server.HttpHandler;
import io.ringkv.http.server.HttpServer;
import io.ringkv.http.server.ServerConfig;
import java.io.IOException;
import java.time.Duration;

/** Our {@link HttpServer} on 127.0.0.1 and an ephemeral port, serving one handler: a real peer node. */
final class ServerHarness implements AutoCloseable {

    private static final Duration SHUTDOWN_GRACE = Duration.ofSeconds(1);

    private final HttpServer server;

    private ServerHarness(HttpServer server) {
        this.server = server;
    }

    /** The server's event loops, for a cluster whose peer connections should share them (as a node's do). */
    io.ringkv.net.EventLoopGroup loopGroup() {
        return server.loopGroup();
    }

    static ServerHarness start(HttpHandler handler) throws IOException {
        return start(handler, H1Limits.defaults().bodyBytesMax());
    }

    /**
     * A peer whose server limits request bodies as a node with {@code --max-body} {@code bodyBytesMax}
     * does ({@link InternalProtocol#serverBodyBytesMax}: a write batch of one such value, no more).
     */
    static ServerHarness start(HttpHandler handler, long bodyBytesMax) throws IOException {
        H1Limits defaults = H1Limits.defaults();
        ServerConfig config = ServerConfig.builder().host("127.0.0.1").port(0).eventLoops(1).handlerThreads(4)
                .h1Limits(new H1Limits(defaults.requestLineBytesMax(), defaults.headerBlockBytesMax(),
                        defaults.headerCountMax(), InternalProtocol.serverBodyBytesMax(bodyBytesMax)))
                .shutdownGrace(SHUTDOWN_GRACE).build();
        return new ServerHarness(HttpServer.start(config, handler));
    }

    /**
     * Serves the handler {@code handlerFor} makes for the server's URL, which is known only once the
     * port is bound (an internal handler accepts requests addressed to its own URL only).
     */
    static ServerHarness startFor(java.util.function.Function<String, HttpHandler> handlerFor) throws IOException {
        return startFor(handlerFor, H1Limits.defaults().bodyBytesMax());
    }

    /** As {@link #startFor(java.util.function.Function)}, limiting bodies as a node with {@code --max-body} {@code bodyBytesMax}. */
    static ServerHarness startFor(java.util.function.Function<String, HttpHandler> handlerFor, long bodyBytesMax) throws IOException {
        java.util.concurrent.atomic.AtomicReference<HttpHandler> handler = new java.util.concurrent.atomic.AtomicReference<>();
        ServerHarness server = start(request -> handler.get().handle(request), bodyBytesMax);
        handler.set(handlerFor.apply(server.url()));
        return server;
    }

    String url() {
        return "http://127.0.0.1:" + server.port();
    }

    /** Stops the node: graceful shutdown (idle connections close at once), then refused connections. */
    @Override
    public void close() {
        server.close();
    }
}
