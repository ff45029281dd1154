package io.ringkv.cluster.peer;

import io.ringkv.http.h2.ErrorCode;
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
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

/**
 * An HTTP/2 peer that misbehaves on purpose: http-core's engine in the server role on a blocking
 * socket, each accepted connection run by the {@link Script} chosen for its index (0 for the
 * first). For tests of how {@link H2PeerTransport} takes a peer's refusals and abuse.
 *
 * <p>Threading: one thread accepts and serves the connections one after the other.
 */
final class ScriptedPeer implements AutoCloseable {

    /** What a connection does. */
    enum Script {
        /** SETTINGS and GOAWAY(last stream 0) at once: no request on it is processed. */
        GOAWAY_AT_ONCE,
        /** Resets every stream with REFUSED_STREAM: none is processed. */
        REFUSE_EVERY_STREAM,
        /** Resets the connection's first stream with REFUSED_STREAM and answers the others as {@link #ANSWER}. */
        REFUSE_FIRST_STREAM,
        /** Answers every request {@code 200} with the body "ok". */
        ANSWER,
        /** Sends its SETTINGS, then never reads a byte nor answers: what the client writes backs up. */
        DEAF,
        /** Answers with a header field of 100 KB, past any client's header list bound. */
        HUGE_FIELD,
        /**
         * Answers {@code /large} with 100,001 bytes and no {@code content-length}, the last DATA
         * frame ending the stream; any other path as {@link #ANSWER}.
         */
        LARGE_WITHOUT_LENGTH
    }

    private final ServerSocket server;
    private final Thread thread;
    private final AtomicInteger accepted = new AtomicInteger();
    private final List<Socket> open = java.util.Collections.synchronizedList(new ArrayList<>());
    private final java.util.concurrent.CountDownLatch closing = new java.util.concurrent.CountDownLatch(1);

    ScriptedPeer(IntFunction<Script> scriptForConnection) throws IOException {
        this.server = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
        this.thread = Thread.ofPlatform().name("scripted-peer").daemon().start(() -> {
            try {
                while (true) {
                    Socket socket = server.accept();
                    open.add(socket);
                    serve(socket, scriptForConnection.apply(accepted.getAndIncrement()));
                }
            } catch (IOException closed) {
                // the test ended
            }
        });
    }

    String origin() {
        return "http://127.0.0.1:" + server.getLocalPort();
    }

    /** Connections accepted so far. */
    int accepted() {
        return accepted.get();
    }

    private void serve(Socket socket, Script script) {
        try (socket) {
            Http2Connection h2 = new Http2Connection(Role.SERVER, Http2Config.defaults());
            h2.start();
            if (script == Script.GOAWAY_AT_ONCE) {
                h2.goAway(ErrorCode.NO_ERROR, "not taking requests");
            }
            OutputStream out = socket.getOutputStream();
            write(out, h2.drainOutput());
            if (script == Script.DEAF) {
                closing.await();
                return;
            }
            InputStream in = socket.getInputStream();
            byte[] buffer = new byte[64 * 1024];
            for (int n = in.read(buffer); n != -1; n = in.read(buffer)) {
                for (Http2Event event : h2.receive(ByteBuffer.wrap(buffer, 0, n), System.nanoTime())) {
                    if (event instanceof Http2Event.HeadersReceived request && !request.trailers()) {
                        boolean large = request.fields().stream()
                                .anyMatch(field -> field.name().equals(":path") && field.value().equals("/large"));
                        answer(h2, request.streamId(), script == Script.LARGE_WITHOUT_LENGTH && !large ? Script.ANSWER : script);
                    }
                }
                write(out, h2.drainOutput());
            }
        } catch (IOException | RuntimeException closed) {
            // the client went away, or broke the connection off
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void answer(Http2Connection h2, int streamId, Script script) {
        switch (script) {
            case GOAWAY_AT_ONCE, REFUSE_EVERY_STREAM, DEAF -> h2.resetStream(streamId, ErrorCode.REFUSED_STREAM);
            case REFUSE_FIRST_STREAM -> {
                if (streamId == 1) {
                    h2.resetStream(streamId, ErrorCode.REFUSED_STREAM);
                } else {
                    answer(h2, streamId, Script.ANSWER);
                }
            }
            case ANSWER -> {
                h2.sendHeaders(streamId, List.of(new HeaderField(":status", "200")), false);
                h2.sendData(streamId, ByteBuffer.wrap("ok".getBytes(StandardCharsets.US_ASCII)), true);
            }
            case LARGE_WITHOUT_LENGTH -> {
                h2.sendHeaders(streamId, List.of(new HeaderField(":status", "200")), false);
                h2.sendData(streamId, ByteBuffer.wrap(new byte[100_001]), true); // within the client's windows
            }
            case HUGE_FIELD -> h2.sendHeaders(streamId,
                    List.of(new HeaderField(":status", "200"), new HeaderField("x-huge", "h".repeat(100_000))), true);
        }
    }

    private static void write(OutputStream out, List<ByteBuffer> frames) throws IOException {
        for (ByteBuffer frame : frames) {
            byte[] bytes = new byte[frame.remaining()];
            frame.get(bytes);
            out.write(bytes);
        }
        out.flush();
    }

    @Override
    public void close() throws IOException {
        closing.countDown();
        server.close();
        synchronized (open) {
            for (Socket socket : open) {
                socket.close();
            }
        }
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
