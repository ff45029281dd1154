package io.ringkv.cluster.peer;

import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;

/**
 * A response body read as an {@link InputStream}, like {@code BodySubscribers.ofInputStream()},
 * plus a read deadline: a {@code read} that gets no bytes from the peer for {@code idleTimeout}
 * fails with {@link HttpTimeoutException} and cancels the exchange. The JDK's request timeout
 * ends when the response head arrives; without this, a peer that stalls mid-body would block
 * the reading thread for ever.
 *
 * <p>Memory: demand is one item at a time, so at most one list of the client's buffers waits
 * here. Threading: the HttpClient calls the subscriber methods (serially); one reader thread
 * at a time calls the stream methods.
 */
final class DeadlineBodyStream extends InputStream implements HttpResponse.BodySubscriber<InputStream> {

    /** One pending item plus the terminal signal: demand is never more than one. */
    private static final int QUEUE_CAPACITY = 2;
    /** Marks the end of the body in the queue (a sentinel, never confused with an empty list). */
    private static final Object END = new Object();

    private final long idleTimeoutNanos;
    private final BlockingQueue<Object> items = new ArrayBlockingQueue<>(QUEUE_CAPACITY);
    private volatile Flow.Subscription subscription;
    private ByteBuffer current = ByteBuffer.allocate(0);
    private List<ByteBuffer> currentList = List.of();
    private int currentIndex;
    private boolean ended;

    DeadlineBodyStream(Duration idleTimeout) {
        this.idleTimeoutNanos = idleTimeout.toNanos();
    }

    static HttpResponse.BodyHandler<InputStream> handler(Duration idleTimeout) {
        return responseInfo -> new DeadlineBodyStream(idleTimeout);
    }

    @Override
    public CompletionStage<InputStream> getBody() {
        return CompletableFuture.completedFuture(this);
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
        this.subscription = subscription;
        subscription.request(1);
    }

    @Override
    public void onNext(List<ByteBuffer> buffers) {
        items.add(buffers); // cannot overflow: one item of demand at a time
    }

    @Override
    public void onError(Throwable error) {
        items.add(error);
    }

    @Override
    public void onComplete() {
        items.add(END);
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) == -1 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(byte[] into, int offset, int length) throws IOException {
        if (length == 0) {
            return 0;
        }
        if (!current.hasRemaining() && !advance()) {
            return -1;
        }
        int count = Math.min(length, current.remaining());
        current.get(into, offset, count);
        return count;
    }

    @Override
    public void close() {
        ended = true;
        Flow.Subscription s = subscription;
        if (s != null) {
            s.cancel();
        }
    }

    /** Moves to the next non-empty buffer; false at the end of the body. */
    private boolean advance() throws IOException {
        while (!current.hasRemaining()) {
            if (currentIndex < currentList.size()) {
                current = currentList.get(currentIndex++);
                continue;
            }
            if (ended) {
                return false;
            }
            List<ByteBuffer> next = take();
            if (next == null) {
                ended = true;
                return false;
            }
            currentList = next;
            currentIndex = 0;
            subscription.request(1);
        }
        return true;
    }

    /** The next list of buffers, or null at the end of the body. */
    @SuppressWarnings("unchecked")
    private List<ByteBuffer> take() throws IOException {
        Object item;
        try {
            item = items.poll(idleTimeoutNanos, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            close();
            throw new IOException("interrupted while reading a response body", e);
        }
        if (item == null) {
            close();
            throw new HttpTimeoutException("no response body bytes for " + Duration.ofNanos(idleTimeoutNanos));
        }
        if (item == END) {
            return null;
        }
        if (item instanceof Throwable error) {
            ended = true;
            throw new IOException("response body failed", error);
        }
        return (List<ByteBuffer>) item;
    }
}
