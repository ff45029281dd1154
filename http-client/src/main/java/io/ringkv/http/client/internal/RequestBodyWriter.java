package io.ringkv.http.client.internal;

import io.ringkv.http.h1.RequestWriter;
import io.ringkv.net.Connection;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.Flow;

/**
 * Streams a request body from the application's {@link java.net.http.HttpRequest.BodyPublisher}
 * onto an HTTP/1.1 connection, with Content-Length or chunked framing (RFC 9112 §6.2, §7.1).
 * Back-pressure: one buffer is requested at a time while the connection is writable; when its
 * queue passes the high-water mark, requesting stops until {@link #onWritable()}.
 *
 * <p>Threading: subscriber signals arrive serially on the publisher's threads; {@link #onWritable()}
 * comes from the event loop. The buffers are handed to the connection as they are (not copied).
 */
final class RequestBodyWriter implements Flow.Subscriber<ByteBuffer> {
    /** What the exchange learns from the writer. */
    interface Listener {
        void bodyWritten();

        void bodyFailed(IOException cause);
    }

    private final Connection connection;
    private final long contentLength;
    private final Listener listener;
    private final java.util.concurrent.Executor executor;
    private volatile Flow.Subscription subscription;
    private volatile boolean awaitingWritable;
    private long written;
    private final RequestFlushBatch batch = new RequestFlushBatch();

    RequestBodyWriter(Connection connection, long contentLength, Listener listener,
            java.util.concurrent.Executor executor) {
        this.executor = executor;
        this.connection = connection;
        this.contentLength = contentLength;
        this.listener = listener;
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
        this.subscription = subscription;
        batch.request(() -> subscription.request(1), connection::flush);
    }

    @Override
    public void onNext(ByteBuffer item) {
        int size = item.remaining();
        written += size;
        if (contentLength >= 0 && written > contentLength) {
            subscription.cancel();
            listener.bodyFailed(new IOException("request body longer than its content length " + contentLength));
            return;
        }
        if (size > 0) {
            boolean accepted = contentLength < 0
                    ? connection.enqueue(RequestWriter.chunkHeader(size), item, RequestWriter.chunkTrailer())
                    : connection.enqueue(item);
            if (accepted && !batch.deferFlush(connection.queuedBytes())) {
                connection.flush();
            }
            if (!accepted) {
                subscription.cancel();
                listener.bodyFailed(new IOException("connection closed while sending the request body"));
                return;
            }
        }
        requestMoreWhenWritable();
    }

    @Override
    public void onError(Throwable throwable) {
        listener.bodyFailed(throwable instanceof IOException io ? io
                : new IOException("request body publisher failed", throwable));
    }

    @Override
    public void onComplete() {
        if (contentLength >= 0 && written != contentLength) {
            listener.bodyFailed(new IOException("request body of " + written
                    + " bytes, shorter than its content length " + contentLength));
            return;
        }
        if (contentLength < 0) {
            connection.write(RequestWriter.lastChunk());
        }
        listener.bodyWritten();
    }

    /** Event loop: the connection's queue drained below the low-water mark. */
    void onWritable() {
        if (awaitingWritable) {
            awaitingWritable = false;
            // request(1) may run the publisher's code inline: keep it off the event loop.
            Hops.run(executor, () -> batch.request(() -> subscription.request(1), connection::flush));
        }
    }

    private void requestMoreWhenWritable() {
        if (connection.isWritable()) {
            requestOne();
            return;
        }
        connection.flush(); // about to wait for the queue to drain: it must be draining
        awaitingWritable = true;
        // Re-check: the loop may have announced writability between the test and the flag.
        if (connection.isWritable() && awaitingWritable) {
            awaitingWritable = false;
            requestOne();
        }
    }

    private void requestOne() {
        batch.request(() -> subscription.request(1), connection::flush);
    }
}
