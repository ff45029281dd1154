package io.ringkv.http.client;

import io.ringkv.http.h2.Http2Config;
import io.ringkv.http.h2.Http2Connection;
import io.ringkv.http.h2.Http2Event;
import io.ringkv.http.h2.Role;
import io.ringkv.http.hpack.HeaderField;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A cleartext HTTP/2 server for frame-level scenarios: http-core's {@link Http2Connection} in the
 * server role over blocking sockets, one thread per connection, with a {@link Script} deciding
 * what to answer. Test scope only.
 *
 * <p>Threading: the accept thread and one thread per connection; the connection count is atomic.
 * Public for the tests of {@code io.ringkv.http.client.internal}.
 */
public final class ScriptedH2Server implements AutoCloseable {
    /** Frames the test writes to a connection; receives the requests (stream ids) seen so far on it. */
    public interface Script {
        /** Called after each complete request; returns raw frames to write (may be empty). */
        List<ByteBuffer> onRequest(int connectionIndex, Http2Connection protocol, List<Integer> requestStreams);
    }

    private static final int READ_BUFFER_BYTES = 16 * 1024;
    private final ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    private final Script script;
    private final AtomicInteger connections = new AtomicInteger();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final Thread acceptor;
    /** Connections whose input the server now reads and drops, answering nothing (not even PING). */
    private final java.util.Set<Integer> muted = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final AtomicInteger closedByClient = new AtomicInteger();
    private final AtomicInteger pingAcksSent = new AtomicInteger();
    /** RST_STREAM and GOAWAY frames the client sent, as the server's protocol reported them. */
    private final List<Http2Event> fromClient = new CopyOnWriteArrayList<>();
    private volatile io.ringkv.http.h2.Http2Settings clientSettings;

    public ScriptedH2Server(Script script) throws IOException {
        this.script = script;
        this.acceptor = new Thread(this::acceptLoop, "scripted-h2-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public String base() {
        return "http://127.0.0.1:" + listener.getLocalPort();
    }

    public int connectionsAccepted() {
        return connections.get();
    }

    /** From now on connection {@code index} reads and drops everything: a peer that vanished silently. */
    void mute(int index) {
        muted.add(index);
    }

    /** Connections whose client closed them (end of input seen by the server). */
    int connectionsClosedByClient() {
        return closedByClient.get();
    }

    /** PING ACK frames the server wrote, on all connections. */
    int pingAcksSent() {
        return pingAcksSent.get();
    }

    /** Stream resets and GOAWAYs received from the client, oldest first. */
    List<Http2Event> eventsFromClient() {
        return List.copyOf(fromClient);
    }

    /** The client's SETTINGS as last received; {@code null} before any arrived. */
    io.ringkv.http.h2.Http2Settings clientSettings() {
        return clientSettings;
    }

    /** A response with a body, as frames (HEADERS then DATA with END_STREAM). */
    public static List<ByteBuffer> respond(Http2Connection protocol, int streamId, String body) {
        protocol.sendHeaders(streamId, List.of(new HeaderField(":status", "200")), false);
        protocol.sendData(streamId, ByteBuffer.wrap(body.getBytes(java.nio.charset.StandardCharsets.UTF_8)), true);
        return protocol.drainOutput();
    }

    private void acceptLoop() {
        while (!listener.isClosed()) {
            try {
                Socket socket = listener.accept();
                sockets.add(socket);
                int index = connections.getAndIncrement();
                Thread worker = new Thread(() -> serve(socket, index), "scripted-h2-" + index);
                worker.setDaemon(true);
                worker.start();
            } catch (IOException closed) {
                return; // the listener was closed by close()
            }
        }
    }

    private void serve(Socket socket, int index) {
        Http2Connection protocol = new Http2Connection(Role.SERVER, Http2Config.defaults());
        List<Integer> requests = new ArrayList<>();
        try (socket; InputStream in = socket.getInputStream(); OutputStream out = socket.getOutputStream()) {
            protocol.start();
            write(out, protocol.drainOutput());
            byte[] bytes = new byte[READ_BUFFER_BYTES];
            for (int n; (n = in.read(bytes)) >= 0; ) {
                if (muted.contains(index)) {
                    continue;
                }
                List<Http2Event> events = protocol.receive(ByteBuffer.wrap(bytes, 0, n), System.nanoTime());
                write(out, protocol.drainOutput());
                for (Http2Event event : events) {
                    switch (event) {
                        case Http2Event.StreamReset reset when reset.byPeer() -> fromClient.add(reset);
                        case Http2Event.GoAwayReceived goAway -> fromClient.add(goAway);
                        case Http2Event.SettingsReceived settings -> clientSettings = settings.peer();
                        case Http2Event.DataReceived data -> fromClient.add(new Http2Event.DataReceived(
                                data.streamId(), ByteBuffer.allocate(data.data().remaining()), data.endStream()));
                        default -> { }
                    }
                    int requestEnded = event instanceof Http2Event.HeadersReceived headers && headers.endStream()
                            ? headers.streamId()
                            : event instanceof Http2Event.DataReceived data && data.endStream() ? data.streamId() : 0;
                    if (requestEnded != 0) {
                        requests.add(requestEnded);
                        write(out, script.onRequest(index, protocol, List.copyOf(requests)));
                    }
                }
            }
            closedByClient.incrementAndGet();
        } catch (IOException e) {
            if (!listener.isClosed()) {
                closedByClient.incrementAndGet(); // reset by the client (an abortive close)
            }
            // the client closed the connection, or close() did: the scenario is over
        }
    }

    private void write(OutputStream out, List<ByteBuffer> frames) throws IOException {
        for (ByteBuffer frame : frames) {
            // RFC 9113 §4.1: type is the 4th octet of the frame header; PING is 0x6, ACK flag 0x1.
            if (frame.remaining() >= 9 && frame.get(frame.position() + 3) == 0x6
                    && (frame.get(frame.position() + 4) & 0x1) != 0) {
                pingAcksSent.incrementAndGet();
            }
            out.write(frame.array(), frame.arrayOffset() + frame.position(), frame.remaining());
        }
        out.flush();
    }

    @Override
    public void close() throws IOException {
        listener.close();
        for (Socket socket : sockets) {
            socket.close();
        }
    }
}
