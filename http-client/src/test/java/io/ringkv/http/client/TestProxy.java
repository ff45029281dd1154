package io.ringkv.http.client;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A tiny HTTP proxy over blocking sockets on 127.0.0.1, for tests: forwards absolute-form
 * requests (RFC 9112 §3.2.2) to the origin as origin-form with {@code Connection: close}, and
 * opens CONNECT tunnels (RFC 9110 §9.3.6). Optionally demands Basic credentials with 407 and
 * {@code Proxy-Authenticate} (RFC 9110 §11.7.1), for forwarded requests and CONNECT alike, or
 * refuses every CONNECT with a given status ({@link #refuseConnectWith}). Records every request line it saw and the
 * {@code Proxy-Authorization} values. Test scope only.
 *
 * <p>Threading: an accept thread, one thread per client connection and one more per tunnel or
 * forwarded request (the other direction); the records are concurrent lists.
 */
final class TestProxy implements AutoCloseable {
    static final String REALM = "ringkv-test-proxy";
    private static final int COPY_BUFFER_BYTES = 16 * 1024;

    private final ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    private final String expectedCredentials;
    private final List<String> requestLines = new CopyOnWriteArrayList<>();
    private final List<String> authorizations = new CopyOnWriteArrayList<>();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile int connectRefusal;

    /** A proxy that lets everyone through. */
    TestProxy() throws IOException {
        this(null, null);
    }

    /** A proxy that answers 407 unless the request carries Basic {@code user}:{@code password}. */
    TestProxy(String user, String password) throws IOException {
        this.expectedCredentials = user == null ? null : "Basic " + Base64.getEncoder()
                .encodeToString((user + ':' + password).getBytes(StandardCharsets.UTF_8));
        daemon("test-proxy-accept", this::acceptLoop);
    }

    InetSocketAddress address() {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), listener.getLocalPort());
    }

    /** From now on every CONNECT is answered with {@code status} (e.g. 403) and the connection closed. */
    TestProxy refuseConnectWith(int status) {
        this.connectRefusal = status;
        return this;
    }

    /** Request lines as received, e.g. {@code GET http://127.0.0.1:80/x HTTP/1.1}, {@code CONNECT localhost:443 HTTP/1.1}. */
    List<String> requestLines() {
        return List.copyOf(requestLines);
    }

    /** The Proxy-Authorization values received, in order. */
    List<String> authorizations() {
        return List.copyOf(authorizations);
    }

    private void acceptLoop() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                sockets.add(client);
                daemon("test-proxy-client", () -> serve(client));
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void serve(Socket client) {
        try (client) {
            InputStream in = client.getInputStream();
            for (String head; (head = ScriptedH1Server.readHead(in)) != null; ) {
                String requestLine = head.substring(0, head.indexOf("\r\n"));
                requestLines.add(requestLine);
                String authorization = field(head, "proxy-authorization");
                if (authorization != null) {
                    authorizations.add(authorization);
                }
                byte[] body = in.readNBytes(ScriptedH1Server.contentLength(head.startsWith("CONNECT") ? "" : head));
                if (expectedCredentials != null && !expectedCredentials.equals(authorization)) {
                    challenge(client.getOutputStream());
                    continue; // the client may try again on this connection
                }
                String[] parts = requestLine.split(" ", 3);
                if (parts[0].equals("CONNECT") && connectRefusal != 0) {
                    client.getOutputStream().write(("HTTP/1.1 " + connectRefusal + " Refused\r\nContent-Length: 0\r\n"
                            + "Connection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
                    return;
                }
                if (parts[0].equals("CONNECT")) {
                    tunnel(client, parts[1]);
                } else {
                    forward(client, parts, head, body);
                }
                return;
            }
        } catch (IOException e) {
            // a side went away: the exchange is over
        }
    }

    private static void challenge(OutputStream out) throws IOException {
        out.write(("HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"" + REALM
                + "\"\r\nContent-Length: 0\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
    }

    private void tunnel(Socket client, String authority) throws IOException {
        int colon = authority.lastIndexOf(':');
        String host = authority.substring(0, colon).replace("[", "").replace("]", "");
        try (Socket origin = new Socket(host, Integer.parseInt(authority.substring(colon + 1)))) {
            sockets.add(origin);
            client.getOutputStream().write("HTTP/1.1 200 Connection established\r\n\r\n"
                    .getBytes(StandardCharsets.ISO_8859_1));
            pipeBothWays(client, origin);
        }
    }

    /** One request, as origin-form with Connection: close; the answer is copied back until the origin closes. */
    private void forward(Socket client, String[] requestLine, String head, byte[] body) throws IOException {
        URI target = URI.create(requestLine[1]);
        String path = target.getRawPath() == null || target.getRawPath().isEmpty() ? "/" : target.getRawPath();
        String originForm = target.getRawQuery() == null ? path : path + '?' + target.getRawQuery();
        StringBuilder forwarded = new StringBuilder(requestLine[0] + ' ' + originForm + ' ' + requestLine[2] + "\r\n");
        String[] lines = head.split("\r\n");
        for (String line : java.util.Arrays.asList(lines).subList(1, lines.length)) {
            String name = line.contains(":") ? line.substring(0, line.indexOf(':')).toLowerCase(Locale.ROOT) : "";
            if (!name.isEmpty() && !name.startsWith("proxy-") && !name.equals("connection")) {
                forwarded.append(line).append("\r\n");
            }
        }
        forwarded.append("Connection: close\r\n\r\n");
        int port = target.getPort() != -1 ? target.getPort() : 80;
        try (Socket origin = new Socket(target.getHost(), port)) {
            sockets.add(origin);
            origin.getOutputStream().write(forwarded.toString().getBytes(StandardCharsets.ISO_8859_1));
            origin.getOutputStream().write(body); // Content-Length bodies only; enough for these tests
            pipeBothWays(client, origin);
        }
    }

    private void pipeBothWays(Socket client, Socket origin) throws IOException {
        Thread upstream = daemon("test-proxy-upstream", () -> copy(client, origin));
        copy(origin, client);
        client.close();
        origin.close();
        try {
            upstream.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void copy(Socket from, Socket to) {
        byte[] buffer = new byte[COPY_BUFFER_BYTES];
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            for (int n; (n = in.read(buffer)) >= 0; ) {
                out.write(buffer, 0, n);
                out.flush();
            }
            to.shutdownOutput();
        } catch (IOException e) {
            // one side closed: the other direction ends too
        }
    }

    private static String field(String head, String lowerName) {
        for (String line : head.split("\r\n")) {
            if (line.toLowerCase(Locale.ROOT).startsWith(lowerName + ':')) {
                return line.substring(lowerName.length() + 1).trim();
            }
        }
        return null;
    }

    private static Thread daemon(String name, Runnable task) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    @Override
    public void close() throws IOException {
        listener.close();
        for (Socket socket : sockets) {
            socket.close();
        }
    }
}
