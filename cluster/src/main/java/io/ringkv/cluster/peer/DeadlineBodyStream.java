package io.ringkv.cluster.peer;

import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * A response body read as an {@link InputStream}, like {@code BodySubscribers.ofInputStream()},
 * plus a read deadline: a {@code read} that gets no bytes from the peer for {@code idleTimeout}
 * fails with {@link java.net.http.HttpTimeoutException} and cancels the exchange. The JDK's request timeout
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

    private final DeadlineItems<List<ByteBuffer>> items;
    private volatile Flow.Subscription subscription;
    private ByteBuffer current = ByteBuffer.allocate(0);
    private List<ByteBuffer> currentList = List.of();
    private int currentIndex;
    private boolean ended;

    DeadlineBodyStream(Duration idleTimeout) {
        this.items = new DeadlineItems<>(new ArrayBlockingQueue<>(QUEUE_CAPACITY), idleTimeout, "a response body");
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
        items.put(buffers); // cannot overflow: one item of demand at a time
    }

    @Override
    public void onError(Throwable error) {
        items.fail(error);
    }

    @Override
    public void onComplete() {
        items.end();
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
            List<ByteBuffer> next;
            try {
                next = items.take(this::close);
            } catch (IOException e) { // timed out, interrupted (closed already) or failed: nothing more to read
                ended = true;
                throw e;
            }
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
}
