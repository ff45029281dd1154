package io.ringkv.http.client;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.http2.server.HTTP2CServerConnectionFactory;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;
import org.eclipse.jetty.util.FutureCallback;

/**
 * A Jetty 12 server on 127.0.0.1 with the endpoints the compatibility suite needs. Handlers are
 * deterministic; {@code /stall} holds its callback until the server stops.
 *
 * <p>Threading: Jetty's; the stalled callbacks list is concurrent.
 */
public final class JettyTestServer implements AutoCloseable {
    static final String USER = "alice";
    static final String PASSWORD = "secret";

    /** Jetty's default limit on concurrent streams per HTTP/2 connection, used unless a test sets one. */
    static final int H2_STREAMS_MAX_DEFAULT = 128;

    private final Server server = new Server();
    private final ServerConnector connector;
    private final String scheme;
    private final List<Callback> stalled = new CopyOnWriteArrayList<>();
    /** {@code /bytes} answers whose whole body the server has written (handed to the socket). */
    private final java.util.concurrent.atomic.AtomicInteger bytesAnswersWritten = new java.util.concurrent.atomic.AtomicInteger();

    /** HTTP/1.1 only. */
    public JettyTestServer() throws Exception {
        this(false, H2_STREAMS_MAX_DEFAULT);
    }

    /**
     * HTTP/1.1 plus, with {@code h2c}, cleartext HTTP/2 on the same port: by prior knowledge
     * (the preface is recognised) or by {@code Upgrade: h2c}, as Jetty's HTTP2CServerConnectionFactory does.
     */
    public static JettyTestServer h2c(int streamsMax) throws Exception {
        return new JettyTestServer(true, streamsMax);
    }

    /**
     * HTTPS with the key in {@code keyStore} (PKCS#12); ALPN offers h2 and http/1.1, or only
     * http/1.1 when {@code http2} is false.
     */
    static JettyTestServer tls(java.nio.file.Path keyStore, String password, boolean http2) throws Exception {
        return new JettyTestServer(keyStore, password, http2);
    }

    private JettyTestServer(java.nio.file.Path keyStore, String password, boolean http2) throws Exception {
        HttpConfiguration http = new HttpConfiguration();
        http.addCustomizer(new org.eclipse.jetty.server.SecureRequestCustomizer(false));
        org.eclipse.jetty.util.ssl.SslContextFactory.Server tls = new org.eclipse.jetty.util.ssl.SslContextFactory.Server();
        tls.setKeyStorePath(keyStore.toString());
        tls.setKeyStorePassword(password);
        tls.setKeyStoreType("PKCS12");
        HttpConnectionFactory http1 = new HttpConnectionFactory(http);
        if (http2) {
            org.eclipse.jetty.http2.server.HTTP2ServerConnectionFactory h2 =
                    new org.eclipse.jetty.http2.server.HTTP2ServerConnectionFactory(http);
            org.eclipse.jetty.alpn.server.ALPNServerConnectionFactory alpn =
                    new org.eclipse.jetty.alpn.server.ALPNServerConnectionFactory("h2", "http/1.1");
            alpn.setDefaultProtocol("http/1.1");
            connector = new ServerConnector(server,
                    new org.eclipse.jetty.server.SslConnectionFactory(tls, alpn.getProtocol()), alpn, h2, http1);
        } else {
            connector = new ServerConnector(server, new org.eclipse.jetty.server.SslConnectionFactory(tls, "http/1.1"), http1);
        }
        scheme = "https";
        start();
    }

    private JettyTestServer(boolean h2c, int streamsMax) throws Exception {
        HttpConfiguration http = new HttpConfiguration();
        if (h2c) {
            HTTP2CServerConnectionFactory http2 = new HTTP2CServerConnectionFactory(http);
            http2.setMaxConcurrentStreams(streamsMax);
            connector = new ServerConnector(server, new HttpConnectionFactory(http), http2);
        } else {
            connector = new ServerConnector(server, new HttpConnectionFactory(http));
        }
        scheme = "http";
        start();
    }

    private void start() throws Exception {
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        server.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) throws Exception {
                route(request, response, callback);
                return true;
            }
        });
        server.start();
    }

    public String base() {
        return scheme + "://127.0.0.1:" + connector.getLocalPort();
    }

    public int port() {
        return connector.getLocalPort();
    }

    /** Connections the server currently has open. */
    public int openConnections() {
        return connector.getConnectedEndPoints().size();
    }

    /**
     * Closes the connections open now, as a server going away would. A snapshot first: the client
     * may open new connections while the old ones close, and those are left alone.
     */
    public void closeConnections() {
        List.copyOf(connector.getConnectedEndPoints()).forEach(org.eclipse.jetty.io.EndPoint::close);
    }

    /** How many {@code /bytes} answers the server has written in full so far. */
    int bytesAnswersWritten() {
        return bytesAnswersWritten.get();
    }

    int stalledCount() {
        return stalled.size();
    }

    private void route(Request request, Response response, Callback callback) throws Exception {
        String path = Request.getPathInContext(request);
        Fields query = Request.extractQueryParameters(request);
        switch (path) {
            case "/echo" -> echo(request, response, callback);
            case "/bytes" -> bytes(response, Callback.from(() -> {
                bytesAnswersWritten.incrementAndGet();
                callback.succeeded();
            }, callback::failed), query.getValue("n"), false);
            case "/chunked" -> bytes(response, callback, query.getValue("n"), true);
            case "/download" -> {
                // For BodyHandlers.ofFileDownload, which takes the file name from Content-Disposition.
                response.getHeaders().put("Content-Disposition", "attachment; filename=\"download.bin\"");
                bytes(response, callback, query.getValue("n"), false);
            }
            case "/status" -> status(response, callback, Integer.parseInt(query.getValue("code")));
            case "/redirect" -> {
                // Read the body, so that Jetty keeps the connection for the next hop.
                Content.Source.asByteBuffer(request);
                redirect(response, callback, query);
            }
            case "/cookie/set" -> {
                response.getHeaders().add(HttpHeader.SET_COOKIE, "flavour=oat; Path=/");
                Content.Sink.write(response, true, "set", callback);
            }
            case "/cookie/get" -> {
                String cookie = request.getHeaders().get(HttpHeader.COOKIE);
                Content.Sink.write(response, true, cookie == null ? "none" : cookie, callback);
            }
            case "/auth" -> auth(request, response, callback);
            case "/stall" -> stalled.add(callback);
            case "/reset" -> reset(response, callback);
            case "/push" -> push(request, response, callback, query);
            default -> Response.writeError(request, response, callback, 404);
        }
    }

    private static void echo(Request request, Response response, Callback callback) throws Exception {
        ByteBuffer body = Content.Source.asByteBuffer(request);
        response.getHeaders().put("X-Method", request.getMethod());
        String length = request.getHeaders().get(HttpHeader.CONTENT_LENGTH);
        response.getHeaders().put("X-Request-Content-Length", length == null ? "none" : length);
        String coding = request.getHeaders().get(HttpHeader.TRANSFER_ENCODING);
        response.getHeaders().put("X-Request-Transfer-Encoding", coding == null ? "none" : coding);
        String expect = request.getHeaders().get(HttpHeader.EXPECT);
        response.getHeaders().put("X-Request-Expect", expect == null ? "none" : expect);
        // Proxy credentials must never reach an origin: the proxy tests look here.
        String proxyAuthorization = request.getHeaders().get(HttpHeader.PROXY_AUTHORIZATION);
        response.getHeaders().put("X-Request-Proxy-Authorization", proxyAuthorization == null ? "none" : proxyAuthorization);
        // Which client connection carried the request: tests check that requests share one.
        response.getHeaders().put("X-Client-Port", Request.getRemotePort(request));
        String upgrade = request.getHeaders().get(HttpHeader.UPGRADE);
        response.getHeaders().put("X-Request-Upgrade", upgrade == null ? "none" : upgrade);
        response.write(true, body, callback);
    }

    private static void bytes(Response response, Callback callback, String count, boolean chunked) throws Exception {
        byte[] data = Bodies.pattern(Integer.parseInt(count));
        if (!chunked) {
            response.getHeaders().put(HttpHeader.CONTENT_LENGTH, data.length);
            response.write(true, ByteBuffer.wrap(data), callback);
            return;
        }
        // Written in pieces with no length known up front, so Jetty sends it chunked.
        int piece = 8192;
        for (int at = 0; at < data.length; at += piece) {
            FutureCallback written = new FutureCallback();
            response.write(false, ByteBuffer.wrap(data, at, Math.min(piece, data.length - at)), written);
            written.get();
        }
        response.write(true, ByteBuffer.allocate(0), callback);
    }

    /** Commits a partial body, then fails: over HTTP/2 Jetty resets the stream, over HTTP/1.1 it closes. */
    private static void reset(Response response, Callback callback) throws Exception {
        FutureCallback written = new FutureCallback();
        response.write(false, ByteBuffer.wrap(Bodies.pattern(100)), written);
        written.get();
        callback.failed(new java.io.IOException("handler failed on purpose"));
    }

    /**
     * {@code /push?n=10&n=2000}: over HTTP/2, promises {@code /bytes?n=10} and {@code /bytes?n=2000}
     * (Jetty answers the pushed requests through this handler), then answers "main".
     */
    private static void push(Request request, Response response, Callback callback, Fields query) {
        for (String n : query.getValues("n")) {
            request.push(new org.eclipse.jetty.http.MetaData.Request("GET",
                    org.eclipse.jetty.http.HttpURI.build(request.getHttpURI()).pathQuery("/bytes?n=" + n),
                    org.eclipse.jetty.http.HttpVersion.HTTP_2, org.eclipse.jetty.http.HttpFields.EMPTY));
        }
        Content.Sink.write(response, true, "main", callback);
    }

    private static void status(Response response, Callback callback, int code) {
        response.setStatus(code);
        if (code == 204 || code == 304) {
            callback.succeeded();
            return;
        }
        Content.Sink.write(response, true, "status " + code, callback);
    }

    /** {@code /redirect?code=302&hops=3&to=/echo}: hops redirects, then the target. */
    private static void redirect(Response response, Callback callback, Fields query) {
        int hops = Integer.parseInt(valueOr(query, "hops", "1"));
        String code = valueOr(query, "code", "302");
        String target = valueOr(query, "to", "/echo");
        String location = hops > 1 ? "/redirect?code=" + code + "&hops=" + (hops - 1) + "&to=" + target : target;
        response.setStatus(Integer.parseInt(code));
        response.getHeaders().put(HttpHeader.LOCATION, location);
        Content.Sink.write(response, true, "redirecting", callback);
    }

    private static String valueOr(Fields query, String name, String fallback) {
        String value = query.getValue(name);
        return value == null ? fallback : value;
    }

    private static void auth(Request request, Response response, Callback callback) {
        String expected = "Basic " + Base64.getEncoder().encodeToString(
                (USER + ":" + PASSWORD).getBytes(StandardCharsets.UTF_8));
        if (expected.equals(request.getHeaders().get(HttpHeader.AUTHORIZATION))) {
            Content.Sink.write(response, true, "welcome", callback);
            return;
        }
        response.setStatus(401);
        response.getHeaders().put(HttpHeader.WWW_AUTHENTICATE, "Basic realm=\"ringkv\"");
        Content.Sink.write(response, true, "who are you", callback);
    }

    @Override
    public void close() throws Exception {
        stalled.forEach(callback -> callback.failed(new java.io.IOException("server stopping")));
        server.stop();
    }
}
