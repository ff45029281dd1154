package io.ringkv.http.client.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.Executor;
import java.util.concurrent.Flow;

/**
 * Streams a request body onto one HTTP/2 stream as DATA frames, within the send windows
 * (RFC 9113 §6.9): one buffer is requested at a time; what the windows do not take waits for
 * {@link #onWindowOpened()}. END_STREAM goes on the item that completes a known content length,
 * else on an empty DATA frame after the publisher completes.
 *
 * <p>Threading: publisher signals arrive serially on the publisher's threads; {@code onWindowOpened}
 * on the event loop. {@code pending} and {@code completed} are guarded by this object's monitor,
 * which is never held across a socket write: frames are enqueued inside it and flushed after.
 * The application's buffers are framed by http-core without a copy (a frame header, then a slice
 * of the buffer), so they belong to the connection once handed over.
 */
final class H2RequestBody implements Flow.Subscriber<ByteBuffer> {
    /** What the exchange learns from the sender. */
    interface Listener {
        void requestSent();

        void requestFailed(IOException cause);
    }

    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

    private final H2Connection connection;
    private final int streamId;
    private final long contentLength;
    private final Listener listener;
    private final Executor executor;
    private volatile Flow.Subscription subscription;
    private volatile boolean stopped;
    private ByteBuffer pending;
    private boolean completed;
    private boolean finished;
    private long received;
    private final RequestFlushBatch batch = new RequestFlushBatch();

    H2RequestBody(H2Connection connection, int streamId, long contentLength, Listener listener, Executor executor) {
        this.connection = connection;
        this.streamId = streamId;
        this.contentLength = contentLength;
        this.listener = listener;
        this.executor = executor;
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
        subscription = s;
        if (stopped) {
            s.cancel();
            return;
        }
        batch.request(() -> s.request(1), connection::flush);
    }

    @Override
    public void onNext(ByteBuffer item) {
        received += item.remaining();
        if (contentLength >= 0 && received > contentLength) {
            fail(new IOException("request body longer than its content length " + contentLength));
            return;
        }
        synchronized (this) {
            pending = item;
        }
        pump(false);
    }

    @Override
    public void onError(Throwable throwable) {
        fail(throwable instanceof IOException io ? io : new IOException("request body publisher failed", throwable));
    }

    @Override
    public void onComplete() {
        if (contentLength >= 0 && received != contentLength) {
            fail(new IOException("request body of " + received + " bytes, shorter than its content length "
                    + contentLength));
            return;
        }
        synchronized (this) {
            completed = true;
        }
        pump(false);
    }

    /**
     * Event loop: a send window opened; go on with what waits. Enqueues without flushing: the
     * connection flushes once after every stream had its turn. (Senders are held back by the
     * windows only, never by the socket queue: they do not ask {@code isWritable}, so the
     * connection's {@code onWritable} never comes to them.)
     */
    void onWindowOpened() {
        pump(true);
    }

    /** The exchange no longer wants the body (reset, response ended, abort). */
    void stop() {
        stopped = true;
        Flow.Subscription s = subscription;
        if (s != null) {
            s.cancel();
        }
    }

    private void pump(boolean onLoop) {
        Step step = step();
        if (!onLoop && step != Step.WAIT && step != Step.GONE && !batch.deferFlush(connection.queuedBytes())) {
            connection.flush();
        }
        switch (step) {
            case MORE -> requestMore(onLoop);
            case SENT -> listener.requestSent();
            case GONE -> fail(new IOException("stream " + streamId + " closed while sending the request body"));
            case WAIT -> { }
        }
    }

    private enum Step { WAIT, MORE, SENT, GONE }

    /** Enqueues what the windows allow; says what to do next. */
    private synchronized Step step() {
        if (finished || stopped) {
            return Step.WAIT;
        }
        if (pending != null) {
            // The item that completes a known length ends the stream: no empty DATA frame after it.
            boolean last = contentLength >= 0 && received == contentLength;
            // Waiting for the socket to drain keeps at most one buffer per stream queued in memory.
            int taken = connection.enqueueData(streamId, pending, last);
            if (taken < 0) {
                finished = true;
                return Step.GONE;
            }
            if (pending.hasRemaining()) {
                return Step.WAIT;
            }
            pending = null;
            if (last) {
                finished = true;
                return Step.SENT; // onComplete still comes, and finds the stream finished
            }
            if (!completed) {
                return Step.MORE;
            }
        } else if (!completed) {
            return Step.WAIT; // one request(1) is outstanding already
        }
        if (connection.enqueueData(streamId, EMPTY, true) < 0) {
            finished = true;
            return Step.GONE;
        }
        finished = true;
        return Step.SENT;
    }

    private void requestMore(boolean onLoop) {
        if (onLoop) {
            // request(1) may run the publisher's code inline: keep it off the event loop.
            Flow.Subscription s = subscription;
            Hops.run(executor, () -> batch.request(() -> s.request(1), connection::flush));
        } else {
            Flow.Subscription s = subscription;
            batch.request(() -> s.request(1), connection::flush);
        }
    }

    private void fail(IOException cause) {
        synchronized (this) {
            finished = true;
        }
        stop();
        listener.requestFailed(cause);
    }
}
