package io.ringkv.node;

import io.ringkv.http.h2.DataFrame;
import io.ringkv.http.h2.Frame;
import io.ringkv.http.h2.GoAwayFrame;
import io.ringkv.http.h2.HeadersFrame;
import io.ringkv.http.h2.RstStreamFrame;
import io.ringkv.http.h2.SettingsFrame;
import io.ringkv.http.h2.WindowUpdateFrame;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * {@link BodyHoldAttack} over HTTP/2: one connection per held body, each a stream that announces
 * the body and pushes all of it but a tail, within the flow-control windows the node grants,
 * then trickles the tail at 2 KiB/s and never ends it. A stream the node answers or resets, or a
 * connection it closes, is given up. The waves and the trickle are {@link HeldBodies}'; this class
 * is the HTTP/2 framing and flow control.
 *
 * <p>Threading: {@link #wave} and {@link #close} from the test thread; each connection is driven
 * by one pusher, then only by the trickle thread (see {@link HeldBodies}).
 */
final class H2BodyHoldAttack implements AutoCloseable {
    private static final int STREAM = 1;
    private static final int FRAME_BYTES = 16 * 1024;
    private static final int SETTINGS_INITIAL_WINDOW_SIZE = 0x4;
    private static final int TRICKLE_BYTES = 2048;

    private final int port;
    private final String method;
    private final String path;
    private final Supplier<Map<String, String>> headers;
    private final boolean announceLength;
    private final HeldBodies<Held> bodies;

    /** One connection's stream and what the peer lets it send. */
    private static final class Held {
        final RawH2 h2;
        long connectionWindow = 65_535;
        long streamWindow = 65_535;
        int tailLeft;
        boolean ended;

        Held(RawH2 h2) {
            this.h2 = h2;
        }

        /** Reads what the node sent, for at most {@code wait}: windows grow; an answer, reset or close ends the stream. */
        void read(Duration wait) throws IOException {
            Frame frame;
            try {
                frame = h2.next(wait);
            } catch (SocketTimeoutException nothingYet) {
                return;
            }
            while (frame != null) {
                switch (frame) {
                    case WindowUpdateFrame w -> {
                        if (w.streamId() == 0) {
                            connectionWindow += w.increment();
                        } else {
                            streamWindow += w.increment();
                        }
                    }
                    case SettingsFrame s when !s.ack() -> {
                        for (SettingsFrame.Setting setting : s.settings()) {
                            if (setting.id() == SETTINGS_INITIAL_WINDOW_SIZE) {
                                streamWindow += setting.value() - 65_535;
                            }
                        }
                        h2.send(SettingsFrame.ACK_FRAME);
                    }
                    case HeadersFrame h -> ended = true;
                    case RstStreamFrame r -> ended = true;
                    case GoAwayFrame g -> ended = true;
                    default -> { }
                }
                try {
                    frame = h2.next(Duration.ofMillis(1));
                } catch (SocketTimeoutException drained) {
                    return;
                }
            }
            ended = true; // closed by the node
        }

        /** Sends up to {@code bytes} of body as the windows allow; returns how many went. */
        int send(int bytes) throws IOException {
            int n = (int) Math.min(bytes, Math.min(FRAME_BYTES, Math.min(connectionWindow, streamWindow)));
            if (n <= 0) {
                return 0;
            }
            h2.send(new DataFrame(STREAM, ByteBuffer.allocate(n), false));
            connectionWindow -= n;
            streamWindow -= n;
            return n;
        }
    }

    H2BodyHoldAttack(int port, String method, String path) {
        this(port, method, path, Map::of, true);
    }

    /**
     * @param headers        extra fields (lower-case names), asked for each connection
     * @param announceLength whether the HEADERS carry a {@code content-length}; without one the
     *                       body's length is unknown to the node until END_STREAM
     */
    H2BodyHoldAttack(int port, String method, String path, Supplier<Map<String, String>> headers, boolean announceLength) {
        this.port = port;
        this.method = method;
        this.path = path;
        this.headers = headers;
        this.announceLength = announceLength;
        this.bodies = new HeldBodies<>(new Http2());
    }

    /** As {@link HeldBodies#wave}. */
    void wave(int connections, int bodyBytes) throws Exception {
        bodies.wave(connections, bodyBytes);
    }

    @Override
    public void close() {
        bodies.close();
    }

    /** The HTTP/2 part: a connection per body, its one stream's body sent as the windows allow. */
    private final class Http2 implements HeldBodies.Protocol<Held> {
        @Override
        public Optional<Held> push(int bodyBytes, int tail) throws IOException {
            Held connection = new Held(RawH2.open(port, 0));
            try {
                List<String> fields = new ArrayList<>();
                headers.get().forEach((name, value) -> {
                    fields.add(name.toLowerCase(Locale.ROOT));
                    fields.add(value);
                });
                if (announceLength) {
                    fields.add("content-length");
                    fields.add(Integer.toString(bodyBytes));
                }
                connection.h2.send(new HeadersFrame(STREAM, connection.h2.request(method, path, fields.toArray(String[]::new)),
                        false, true));
                int left = bodyBytes - tail;
                while (left > 0 && !connection.ended) {
                    int sent = connection.send(left);
                    left -= sent;
                    connection.read(sent == 0 ? Duration.ofSeconds(5) : Duration.ofMillis(1));
                }
            } catch (IOException cutOff) {
                connection.ended = true;
            }
            if (connection.ended) {
                connection.h2.close();
                return Optional.empty();
            }
            connection.tailLeft = tail;
            return Optional.of(connection);
        }

        @Override
        public void trickle(Held connection) {
            try {
                connection.read(Duration.ofMillis(1));
                if (!connection.ended && connection.tailLeft > 1) {
                    connection.tailLeft -= connection.send(Math.min(TRICKLE_BYTES, connection.tailLeft - 1));
                }
            } catch (IOException closedByTheNode) {
                connection.ended = true;
            }
        }

        @Override
        public void close(Held connection) {
            try {
                connection.h2.close();
            } catch (IOException ignored) {
                // the node may have closed it already
            }
        }
    }
}
