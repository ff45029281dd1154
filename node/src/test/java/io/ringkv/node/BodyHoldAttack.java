package io.ringkv.node;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A stranger holding a node's request-body memory over HTTP/1.1: connections that each announce
 * a body, push all of it but a tail, then trickle the tail a little faster than the node's
 * minimum body rate (1 KiB/s) and never finish it; or the same with a chunked body, whose length
 * the head does not announce. On a server that buffers a body before it
 * checks who sends it, each connection keeps its body's bytes reserved for as long as it trickles.
 *
 * <p>Threading: {@link #wave} and {@link #close} from the test thread; pushes and the trickle run
 * on the attack's own threads.
 */
final class BodyHoldAttack implements AutoCloseable {
    private static final int TRICKLE_BYTES_PER_SECOND = 2048;
    private static final byte[] CRLF = {'\r', '\n'};

    private final int port;
    private final String method;
    private final String target;
    private final Supplier<Map<String, String>> headers;
    private final boolean chunked;
    private final List<Held> held = Collections.synchronizedList(new ArrayList<>());
    private final ExecutorService pushers = Executors.newFixedThreadPool(16);
    private final ScheduledExecutorService trickler = Executors.newSingleThreadScheduledExecutor();

    /** One connection and the bytes of its body still unsent. */
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
        trickler.scheduleWithFixedDelay(this::trickle, 1, 1, TimeUnit.SECONDS);
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

    /**
     * Opens {@code connections} connections at once, each announcing {@code bodyBytes} and pushing
     * all but a tail of min(64 KiB, half); returns when every push has ended (sent, or cut off by
     * the node).
     */
    void wave(int connections, int bodyBytes) throws Exception {
        int tail = Math.min(64 * 1024, bodyBytes / 2);
        List<Future<?>> pushes = new ArrayList<>();
        for (int i = 0; i < connections; i++) {
            pushes.add(pushers.submit(() -> {
                push(bodyBytes, tail);
                return null;
            }));
        }
        for (Future<?> push : pushes) {
            push.get(60, TimeUnit.SECONDS);
        }
    }

    private void push(int bodyBytes, int tail) {
        Socket socket = new Socket();
        try {
            socket.connect(new java.net.InetSocketAddress("127.0.0.1", port), 5_000);
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(head(bodyBytes));
            byte[] slice = new byte[64 * 1024];
            for (int left = bodyBytes - tail; left > 0; left -= slice.length) {
                writeBody(out, slice, Math.min(left, slice.length));
            }
            out.flush();
            held.add(new Held(socket, new int[] {tail}));
        } catch (IOException cutOff) {
            closeQuietly(socket); // the node answered and closed, or refused the connection
        }
    }

    /** Every second, a little more of each tail, never its last byte. */
    private void trickle() {
        synchronized (held) {
            for (Held connection : held) {
                int send = Math.min(TRICKLE_BYTES_PER_SECOND, connection.tailLeft()[0] - 1);
                if (send <= 0 || connection.socket().isClosed()) {
                    continue;
                }
                try {
                    writeBody(connection.socket().getOutputStream(), new byte[send], send);
                    connection.tailLeft()[0] -= send;
                } catch (IOException closedByTheNode) {
                    closeQuietly(connection.socket());
                }
            }
        }
    }

    /** The status each connection still held was answered with, or -1 when it got none within its read timeout. */
    List<Integer> answers() {
        List<Integer> statuses = new ArrayList<>();
        synchronized (held) {
            for (Held connection : held) {
                try {
                    statuses.add(RawHttp.read(connection.socket().getInputStream()).status());
                } catch (IOException noAnswer) {
                    statuses.add(-1);
                }
            }
        }
        return statuses;
    }

    @Override
    public void close() {
        trickler.shutdownNow();
        pushers.shutdownNow();
        synchronized (held) {
            held.forEach(connection -> closeQuietly(connection.socket()));
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing a socket the node may have reset already
        }
    }
}
