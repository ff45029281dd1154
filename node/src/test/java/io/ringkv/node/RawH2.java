package io.ringkv.node;

import io.ringkv.http.h2.ContinuationFrame;
import io.ringkv.http.h2.Frame;
import io.ringkv.http.h2.FrameGenerator;
import io.ringkv.http.h2.FrameParser;
import io.ringkv.http.h2.GoAwayFrame;
import io.ringkv.http.h2.HeadersFrame;
import io.ringkv.http.h2.Http2Error;
import io.ringkv.http.h2.Preface;
import io.ringkv.http.h2.SettingsFrame;
import io.ringkv.http.hpack.HeaderField;
import io.ringkv.http.hpack.HpackDecoder;
import io.ringkv.http.hpack.HpackEncoder;
import io.ringkv.http.hpack.HpackException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A cleartext HTTP/2 connection driven frame by frame over a plain socket, so a test can send
 * what no conforming client would (a flood, a stall, a malformed field) and see exactly what the
 * node sends back. Frames come from http-core's generator and HPACK encoder; nothing checks them.
 *
 * <p>Not thread-safe, except that {@link #close()} may be called from another thread to end a
 * blocked write or read.
 */
final class RawH2 implements AutoCloseable {
    /** How the node ended a connection, as seen by {@link #awaitClose}. */
    record Ending(boolean closed, GoAwayFrame goAway, List<String> seen) {
        @Override
        public String toString() {
            return (closed ? "closed" : "still open") + (goAway == null ? ", no GOAWAY" : ", GOAWAY " + goAway.error()
                    + " (" + StandardCharsets.UTF_8.decode(goAway.debugData().duplicate()) + ")") + "; first frames seen " + seen;
        }
    }

    private final Socket socket;
    private final OutputStream out;
    private final InputStream in;
    private final FrameGenerator generator = new FrameGenerator();
    private final HpackEncoder encoder = new HpackEncoder();
    private final HpackDecoder decoder = new HpackDecoder(HpackDecoder.DEFAULT_TABLE_CAPACITY, 1 << 20);
    private final FrameParser parser = FrameParser.forClient();
    private final byte[] readBuffer = new byte[64 * 1024];
    private ByteBuffer pending = ByteBuffer.allocate(0);
    private ByteArrayOutputStream headerBlock;

    private RawH2(Socket socket) throws IOException {
        this.socket = socket;
        this.out = socket.getOutputStream();
        this.in = socket.getInputStream();
        parser.maxFrameSize((1 << 24) - 1);
    }

    /**
     * Connects and sends the client preface and an empty SETTINGS.
     *
     * @param receiveBufferBytes the socket's receive buffer, set before connecting so the window
     *                           the kernel advertises stays that small; 0 keeps the default
     */
    static RawH2 open(int port, int receiveBufferBytes) throws IOException {
        Socket socket = new Socket();
        if (receiveBufferBytes > 0) {
            socket.setReceiveBufferSize(receiveBufferBytes);
        }
        socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
        RawH2 h2 = new RawH2(socket);
        ByteArrayOutputStream start = new ByteArrayOutputStream();
        h2.append(start, Preface.bytes());
        h2.append(start, h2.generator.generate(new SettingsFrame(false, List.of())));
        h2.out.write(start.toByteArray());
        return h2;
    }

    /** A request header block: {@code :method}, {@code :scheme}, {@code :authority}, {@code :path}, then {@code extra}. */
    ByteBuffer request(String method, String path, String... extra) {
        List<HeaderField> fields = new ArrayList<>(List.of(new HeaderField(":method", method),
                new HeaderField(":scheme", "http"), new HeaderField(":authority", "127.0.0.1"), new HeaderField(":path", path)));
        for (int i = 0; i < extra.length; i += 2) {
            fields.add(new HeaderField(extra[i], extra[i + 1]));
        }
        return encoder.encode(fields);
    }

    /** The encoded frames, back to back, as one array: a batch to write in one call. */
    byte[] encode(Frame... frames) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        for (Frame frame : frames) {
            append(bytes, generator.generate(frame));
        }
        return bytes.toByteArray();
    }

    void send(Frame... frames) throws IOException {
        out.write(encode(frames));
    }

    void write(byte[] bytes) throws IOException {
        out.write(bytes);
    }

    /**
     * The next frame from the node, its header blocks decoded into {@link #lastFields} order-wise
     * (the HPACK context must see every block); null when the node closed or reset the
     * connection. A read that waits longer than {@code timeout} throws {@link SocketTimeoutException}.
     */
    Frame next(Duration timeout) throws IOException {
        socket.setSoTimeout((int) Math.max(1, timeout.toMillis()));
        while (true) {
            Frame frame;
            try {
                frame = parser.next(pending);
            } catch (Http2Error e) {
                throw new IOException("the node sent a malformed frame", e);
            }
            if (frame != null) {
                decodeBlocks(frame);
                return frame;
            }
            int n;
            try {
                n = in.read(readBuffer);
            } catch (SocketTimeoutException e) {
                throw e;
            } catch (SocketException reset) {
                return null;
            }
            if (n < 0) {
                return null;
            }
            ByteBuffer joined = ByteBuffer.allocate(pending.remaining() + n);
            joined.put(pending).put(readBuffer, 0, n).flip();
            pending = joined;
        }
    }

    private List<HeaderField> lastFields = List.of();

    /** The fields of the last complete header block read. */
    List<HeaderField> lastFields() {
        return lastFields;
    }

    /** The :status of the last complete header block read, or null. */
    String lastStatus() {
        return lastFields.stream().filter(f -> f.name().equals(":status")).map(HeaderField::value).findFirst().orElse(null);
    }

    private void decodeBlocks(Frame frame) throws IOException {
        ByteBuffer fragment;
        boolean end;
        switch (frame) {
            case HeadersFrame h -> {
                headerBlock = new ByteArrayOutputStream();
                fragment = h.fragment();
                end = h.endHeaders();
            }
            case ContinuationFrame c -> {
                fragment = c.fragment();
                end = c.endHeaders();
            }
            default -> {
                return;
            }
        }
        append(headerBlock, fragment.duplicate());
        if (end) {
            try {
                lastFields = decoder.decode(ByteBuffer.wrap(headerBlock.toByteArray()));
            } catch (HpackException e) {
                throw new IOException("the node sent a header block that does not decode", e);
            }
            headerBlock = null;
        }
    }

    /**
     * Reads everything the node sends until it closes the connection or {@code within} passes,
     * whichever comes first; remembers a GOAWAY on the way.
     */
    Ending awaitClose(Duration within) throws IOException {
        long end = System.nanoTime() + within.toNanos();
        GoAwayFrame goAway = null;
        List<String> seen = new ArrayList<>();
        while (true) {
            long left = end - System.nanoTime();
            if (left <= 0) {
                return new Ending(false, goAway, seen);
            }
            Frame frame;
            try {
                frame = next(Duration.ofNanos(left));
            } catch (SocketTimeoutException e) {
                return new Ending(false, goAway, seen);
            }
            if (frame == null) {
                return new Ending(true, goAway, seen);
            }
            if (seen.size() < 20) {
                seen.add(frame.type() + "(" + frame.streamId() + ")");
            }
            if (frame instanceof GoAwayFrame g) {
                goAway = g;
            }
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    private static void append(ByteArrayOutputStream out, ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        out.writeBytes(bytes);
    }
}
