package io.ringkv.net;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/** Records what a connection delivers; optionally echoes it back. Test helper. */
class RecordingHandler implements ConnectionHandler {
    final CompletableFuture<Connection> opened = new CompletableFuture<>();
    final CompletableFuture<Throwable> closed = new CompletableFuture<>();
    final AtomicInteger closedCalls = new AtomicInteger();
    final AtomicInteger writableCalls = new AtomicInteger();
    final AtomicInteger inputClosedCalls = new AtomicInteger();
    private final ByteArrayOutputStream received = new ByteArrayOutputStream();
    private final boolean echo;

    RecordingHandler(boolean echo) {
        this.echo = echo;
    }

    @Override
    public void onOpen(Connection connection) {
        opened.complete(connection);
    }

    @Override
    public void onRead(Connection connection, ByteBuffer input) {
        byte[] bytes = new byte[input.remaining()];
        input.get(bytes);
        synchronized (received) {
            received.writeBytes(bytes);
        }
        if (echo) {
            connection.write(ByteBuffer.wrap(bytes));
        }
    }

    @Override
    public void onInputClosed(Connection connection) {
        inputClosedCalls.incrementAndGet();
        connection.closeAfterFlush();
    }

    @Override
    public void onWritable(Connection connection) {
        writableCalls.incrementAndGet();
    }

    @Override
    public void onClosed(Connection connection, Throwable cause) {
        closedCalls.incrementAndGet();
        closed.complete(cause == null ? new NoCause() : cause);
    }

    String text() {
        synchronized (received) {
            return received.toString(StandardCharsets.ISO_8859_1);
        }
    }

    int receivedBytes() {
        synchronized (received) {
            return received.size();
        }
    }

    /** Marks an orderly close in {@link #closed}. */
    static final class NoCause extends Throwable {
        NoCause() {
            super("orderly close", null, false, false);
        }
    }
}
