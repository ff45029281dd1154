package io.ringkv.http.client;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An HTTP/1.1 server over blocking sockets whose every connection follows a {@link Script}: read
 * requests, answer some, close when the scenario says so. Records each request (head and body)
 * per connection. Test scope only.
 *
 * <p>Threading: an accept thread and one thread per connection; the records are concurrent lists.
 */
final class ScriptedH1Server implements AutoCloseable {
    /** Bound on a request head, so that a misbehaving client cannot grow the buffer without end. */
    private static final int HEAD_BYTES_MAX = 64 * 1024;

    /** What one connection does; {@code connectionIndex} counts from 0 in accept order. */
    interface Script {
        void run(int connectionIndex, Peer peer) throws IOException;
    }

    /** One accepted connection, seen from the script. */
    final class Peer {
        private final Socket socket;
        private final InputStream in;

        private Peer(Socket socket) throws IOException {
            this.socket = socket;
            this.in = socket.getInputStream();
        }

        /** Reads one request (head and Content-Length body) and records it; {@code null} at end of input. */
        String readRequest() throws IOException {
            String head = readHead(in);
            if (head == null) {
                return null;
            }
            int length = contentLength(head);
            String body = new String(in.readNBytes(length), StandardCharsets.ISO_8859_1);
            String request = head + body;
            requests.add(request);
            return request;
        }

        void respond(String body) throws IOException {
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            String head = "HTTP/1.1 200 OK\r\nContent-Length: " + bytes.length + "\r\n\r\n";
            socket.getOutputStream().write(head.getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().write(bytes);
            socket.getOutputStream().flush();
        }

        /** Writes {@code raw} as it is (ISO-8859-1), e.g. bytes no request asked for. */
        void write(String raw) throws IOException {
            socket.getOutputStream().write(raw.getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
        }

        /** Blocks until the client closes or resets the connection; {@code true} if it did. */
        boolean awaitClientClose() {
            try {
                return in.read() < 0;
            } catch (IOException e) {
                return true; // reset by the client
            }
        }

        void close() throws IOException {
            socket.close();
        }
    }

    private final ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    private final Script script;
    private final AtomicInteger connections = new AtomicInteger();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final List<String> requests = new CopyOnWriteArrayList<>();
    private final Thread acceptor;

    ScriptedH1Server(Script script) throws IOException {
        this.script = script;
        this.acceptor = new Thread(this::acceptLoop, "scripted-h1-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    String base() {
        return "http://127.0.0.1:" + listener.getLocalPort();
    }

    int connectionsAccepted() {
        return connections.get();
    }

    /** Every request read so far, head and body, in arrival order. */
    List<String> requests() {
        return List.copyOf(requests);
    }

    private void acceptLoop() {
        while (!listener.isClosed()) {
            try {
                Socket socket = listener.accept();
                sockets.add(socket);
                int index = connections.getAndIncrement();
                Thread thread = new Thread(() -> serve(index, socket), "scripted-h1-" + index);
                thread.setDaemon(true);
                thread.start();
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void serve(int index, Socket socket) {
        try (socket) {
            script.run(index, new Peer(socket));
        } catch (IOException e) {
            // the client went away or the test closed the server; the scenario is over
        }
    }

    /** The head up to and including the blank line, or {@code null} if input ended first. */
    static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4 && head.size() < HEAD_BYTES_MAX) {
            int b = in.read();
            if (b < 0) {
                return null;
            }
            head.write(b);
            matched = (b == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        return head.toString(StandardCharsets.ISO_8859_1);
    }

    static int contentLength(String head) {
        for (String line : head.split("\r\n")) {
            if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                return Integer.parseInt(line.substring("content-length:".length()).trim());
            }
        }
        return 0;
    }

    @Override
    public void close() throws IOException {
        listener.close();
        for (Socket socket : sockets) {
            socket.close();
        }
    }
}
