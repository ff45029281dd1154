package io.ringkv.cluster;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.ringkv.http.Headers;
import io.ringkv.http.server.ChunkSource;
import io.ringkv.http.server.HttpHandler;
import io.ringkv.http.server.Request;
import io.ringkv.http.server.Response;
import io.ringkv.http.server.ResponseBody;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Serves one of our {@link HttpHandler}s on 127.0.0.1 with the JDK's built-in HTTP server: real
 * sockets and a real HTTP/1.1 peer for the inter-node client while our own server is not yet on
 * main. Replace with io.ringkv.http.server.HttpServer once it lands.
 */
final class JdkServerHarness implements AutoCloseable {

    private final HttpServer server;
    private final ExecutorService executor = Executors.newFixedThreadPool(4);

    private JdkServerHarness(HttpHandler handler) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> serve(handler, exchange));
        server.setExecutor(executor);
        server.start();
    }

    static JdkServerHarness start(HttpHandler handler) throws IOException {
        return new JdkServerHarness(handler);
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @Override
    public void close() throws InterruptedException {
        server.stop(0);
        executor.shutdownNow();
        executor.awaitTermination(10, TimeUnit.SECONDS);
    }

    private static void serve(HttpHandler handler, HttpExchange exchange) throws IOException {
        try (exchange) {
            Response response = handler.handle(toRequest(exchange)).toCompletableFuture().join();
            for (int i = 0; i < response.headers().size(); i++) {
                exchange.getResponseHeaders().add(response.headers().name(i), response.headers().value(i));
            }
            switch (response.body()) {
                case ResponseBody.Empty empty -> exchange.sendResponseHeaders(response.status(), -1);
                case ResponseBody.Fixed fixed -> {
                    exchange.sendResponseHeaders(response.status(), fixed.bytes().length == 0 ? -1 : fixed.bytes().length);
                    exchange.getResponseBody().write(fixed.bytes());
                }
                case ResponseBody.Streamed streamed -> {
                    exchange.sendResponseHeaders(response.status(), 0); // chunked
                    stream(streamed.source(), exchange.getResponseBody());
                }
            }
        } catch (Exception e) {
            throw new IOException("handler failed", e);
        }
    }

    private static void stream(ChunkSource source, OutputStream out) throws IOException {
        try (source) {
            for (ByteBuffer chunk = source.next(); chunk != null; chunk = source.next()) {
                out.write(chunk.array(), chunk.arrayOffset() + chunk.position(), chunk.remaining());
            }
        }
    }

    private static Request toRequest(HttpExchange exchange) throws IOException {
        Headers headers = new Headers();
        for (Map.Entry<String, List<String>> field : exchange.getRequestHeaders().entrySet()) {
            field.getValue().forEach(value -> headers.add(field.getKey(), value));
        }
        String query = exchange.getRequestURI().getRawQuery();
        return new Request(exchange.getRequestMethod(), exchange.getRequestURI().getRawPath(), query == null ? "" : query,
                headers, exchange.getRequestBody().readAllBytes(), exchange.getRemoteAddress());
    }
}
