package io.ringkv.http.server;

import io.ringkv.http.h2.Frame;
import io.ringkv.http.h2.FrameGenerator;
import io.ringkv.http.h2.FrameParser;
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
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * An HTTP/2 peer at frame level over a blocking socket, for tests that must send what a
 * well-behaved client never would (frames out of order, nothing at all, no reads). It writes
 * exactly the frames it is given and parses what the server sends; header blocks are decoded
 * as they arrive so the HPACK context stays in step. Test helper; one thread at a time.
 */
final class RawH2 implements AutoCloseable {
    static final int READ_TIMEOUT_MILLIS = 30_000;

    final Socket socket;
    private final OutputStream out;
    private final InputStream in;
    private final FrameGenerator generator = new FrameGenerator();
    private final HpackEncoder encoder = new HpackEncoder();
    private final HpackDecoder decoder = new HpackDecoder(HpackDecoder.DEFAULT_TABLE_CAPACITY, 1 << 20);
    private final FrameParser parser = FrameParser.forClient();
    private final List<Frame> parsed = new ArrayList<>();
    private final List<List<HeaderField>> decoded = new ArrayList<>();
    private ByteBuffer pending = ByteBuffer.allocate(0);
    private boolean closed;

    /** Connects to {@code port}; a positive {@code receiveBufferBytes} is set before the connect. */
    RawH2(int port, int receiveBufferBytes) throws IOException {
        socket = new Socket();
        if (receiveBufferBytes > 0) {
            socket.setReceiveBufferSize(receiveBufferBytes);
        }
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        socket.setSoTimeout(READ_TIMEOUT_MILLIS);
        out = socket.getOutputStream();
        in = socket.getInputStream();
        parser.maxFrameSize((1 << 24) - 1);
    }

    RawH2(int port) throws IOException {
        this(port, 0);
    }

    /** The client preface and a SETTINGS frame with {@code settings}, in one write. */
    RawH2 open(SettingsFrame.Setting... settings) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        append(bytes, Preface.bytes());
        append(bytes, generator.generate(new SettingsFrame(false, List.of(settings))));
        write(bytes.toByteArray());
        return this;
    }

    /** Writes {@code frames} in one write. */
    RawH2 send(Frame... frames) throws IOException {
        write(encode(frames));
        return this;
    }

    byte[] encode(Frame... frames) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        for (Frame frame : frames) {
            append(bytes, generator.generate(frame));
        }
        return bytes.toByteArray();
    }

    void write(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** A request's HEADERS frame on {@code streamId} (one frame, END_HEADERS set). */
    HeadersFrame request(int streamId, String method, String path, boolean endStream, String... extraNameValues) {
        return new HeadersFrame(streamId, block(method, path, extraNameValues), endStream, true);
    }

    /** The encoded field block of a request; blocks must be sent in the order they were made. */
    ByteBuffer block(String method, String path, String... extraNameValues) {
        List<HeaderField> fields = new ArrayList<>(List.of(new HeaderField(":method", method),
                new HeaderField(":scheme", "http"), new HeaderField(":authority", "127.0.0.1"),
                new HeaderField(":path", path)));
        for (int i = 0; i < extraNameValues.length; i += 2) {
            fields.add(new HeaderField(extraNameValues[i], extraNameValues[i + 1]));
        }
        return encoder.encode(fields);
    }

    /**
     * Reads frames until one matches {@code wanted} and returns it; null when the server closed
     * (or reset) the connection first. Every frame read is kept in {@link #frames()}.
     *
     * @throws java.net.SocketTimeoutException when the server sends nothing for {@link #READ_TIMEOUT_MILLIS}
     */
    Frame readUntil(Predicate<Frame> wanted) throws IOException {
        while (true) {
            Frame frame = next();
            if (frame == null || wanted.test(frame)) {
                return frame;
            }
        }
    }

    /** The next frame; null once the server closed or reset the connection. */
    Frame next() throws IOException {
        byte[] buffer = new byte[16 * 1024];
        while (true) {
            try {
                Frame frame = parser.next(pending);
                if (frame != null) {
                    parsed.add(frame);
                    if (frame instanceof HeadersFrame h) {
                        decoded.add(decoder.decode(h.fragment().duplicate()));
                    }
                    return frame;
                }
            } catch (Http2Error | HpackException e) {
                throw new AssertionError("the server sent a malformed frame", e);
            }
            if (closed) {
                return null;
            }
            int n;
            try {
                n = in.read(buffer);
            } catch (SocketException reset) {
                closed = true;
                return null;
            }
            if (n < 0) {
                closed = true;
                return null;
            }
            ByteBuffer joined = ByteBuffer.allocate(pending.remaining() + n);
            joined.put(pending).put(buffer, 0, n).flip();
            pending = joined;
        }
    }

    /** The decoded fields of every HEADERS frame read so far (single-frame blocks only), oldest first. */
    List<List<HeaderField>> headerBlocks() {
        return decoded;
    }

    /** The :status of the last HEADERS frame read, or null. */
    String lastStatus() {
        if (decoded.isEmpty()) {
            return null;
        }
        return decoded.getLast().stream().filter(f -> f.name().equals(":status")).map(HeaderField::value)
                .findFirst().orElse(null);
    }

    List<Frame> frames() {
        return parsed;
    }

    /** Whether a read has seen the end of the stream (or a reset). */
    boolean closedByServer() {
        return closed;
    }

    private static void append(ByteArrayOutputStream bytes, ByteBuffer buffer) {
        byte[] array = new byte[buffer.remaining()];
        buffer.get(array);
        bytes.writeBytes(array);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
