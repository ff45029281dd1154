package io.ringkv.node;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * A stranger holding a node's request-body memory over HTTP/1.1: connections that each announce
 * a body, push all of it but a tail, then trickle the tail a little faster than the node's
 * minimum body rate (1 KiB/s) and never finish it; or the same with a chunked body, whose length
 * the head does not announce. On a server that buffers a body before it
 * checks who sends it, each connection keeps its body's bytes reserved for as long as it trickles.
 * The waves and the trickle are {@link HeldBodies}'; this class is the HTTP/1.1 framing.
 *
 * <p>Threading: {@link #wave}, {@link #answers} and {@link #close} from the test thread; pushes
 * and the trickle run on the attack's own threads (see {@link HeldBodies}).
 */
final class BodyHoldAttack implements AutoCloseable {
    private static final int TRICKLE_BYTES_PER_SECOND = 2048;
    private static final byte[] CRLF = {'\r', '\n'};

    private final int port;
    private final String method;
    private final String target;
    private final Supplier<Map<String, String>> headers;
    private final boolean chunked;
    private final HeldBodies<Held> bodies;

    /** One connection and the bytes of its body still unsent (changed only by the trickle). */
    private record Held(Socket socket, int[] tailLeft) { }

    /** @param headers extra header lines for every request; the attack adds Host and Content-Length */
    BodyHoldAttack(int port, String method, String target, Map<String, String> headers) {
        this(port, method, target, () -> headers, false);
    }

    /**
     * @param headers extra header lines, asked for each connection (fields that go stale, such as a proof's time)
     * @param chunked whether the body's length goes unannounced ({@code Transfer-Encoding: chunked},
     *                every slice and trickle a chunk, the last chunk never sent) instead of a Content-Length
     */
    BodyHoldAttack(int port, String method, String target, Supplier<Map<String, String>> headers, boolean chunked) {
        this.port = port;
        this.method = method;
        this.target = target;
        this.headers = headers;
        this.chunked = chunked;
        this.bodies = new HeldBodies<>(new Http11());
    }

    /** As {@link HeldBodies#wave}. */
    void wave(int connections, int bodyBytes) throws Exception {
        bodies.wave(connections, bodyBytes);
    }

    /** The status each connection still held was answered with, or -1 when it got none within its read timeout. */
    List<Integer> answers() {
        List<Integer> statuses = new ArrayList<>();
        bodies.forEachHeld(connection -> {
            try {
                statuses.add(RawHttp.read(connection.socket().getInputStream()).status());
            } catch (IOException noAnswer) {
                statuses.add(-1);
            }
        });
        return statuses;
    }

    @Override
    public void close() {
        bodies.close();
    }

    private byte[] head(int bodyBytes) {
        StringBuilder text = new StringBuilder(method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n");
        headers.get().forEach((name, value) -> text.append(name).append(": ").append(value).append("\r\n"));
        text.append(chunked ? "Transfer-Encoding: chunked\r\n\r\n" : "Content-Length: " + bodyBytes + "\r\n\r\n");
        return text.toString().getBytes(StandardCharsets.US_ASCII);
    }

    /** {@code count} zero bytes of body, framed as one chunk when the body is chunked. */
    private void writeBody(OutputStream out, byte[] zeros, int count) throws IOException {
        if (chunked) {
            out.write((Integer.toHexString(count) + "\r\n").getBytes(StandardCharsets.US_ASCII));
        }
        out.write(zeros, 0, count);
        if (chunked) {
            out.write(CRLF);
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing a socket the node may have reset already
        }
    }

    /** The HTTP/1.1 part: a socket per body, the body as it was announced (a Content-Length, or chunks). */
    private final class Http11 implements HeldBodies.Protocol<Held> {
        @Override
        public Optional<Held> push(int bodyBytes, int tail) {
            Socket socket = new Socket();
            try {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
                socket.setSoTimeout(10_000);
                OutputStream out = socket.getOutputStream();
                out.write(head(bodyBytes));
                byte[] slice = new byte[64 * 1024];
                for (int left = bodyBytes - tail; left > 0; left -= slice.length) {
                    writeBody(out, slice, Math.min(left, slice.length));
                }
                out.flush();
                return Optional.of(new Held(socket, new int[] {tail}));
            } catch (IOException cutOff) {
                closeQuietly(socket); // the node answered and closed, or refused the connection
                return Optional.empty();
            }
        }

        @Override
        public void trickle(Held connection) {
            int send = Math.min(TRICKLE_BYTES_PER_SECOND, connection.tailLeft()[0] - 1);
            if (send <= 0 || connection.socket().isClosed()) {
                return;
            }
            try {
                writeBody(connection.socket().getOutputStream(), new byte[send], send);
                connection.tailLeft()[0] -= send;
            } catch (IOException closedByTheNode) {
                closeQuietly(connection.socket());
            }
        }

        @Override
        public void close(Held connection) {
            closeQuietly(connection.socket());
        }
    }
}
