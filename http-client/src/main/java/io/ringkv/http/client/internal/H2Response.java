package io.ringkv.http.client.internal;

import io.ringkv.http.hpack.HeaderField;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Flow;

/**
 * The response half of an HTTP/2 stream, the same whether we sent the request ({@link H2Exchange})
 * or the server pushed it ({@link H2PushedExchange}): the final head, the body pipe, and the DATA
 * credit. What happens to the stream itself (its end, a reset, retries) is the owner's.
 *
 * <p>Credit: DATA is credited back to the peer when the subscriber is handed it ({@link #taken}),
 * never on arrival; once the exchange is aborted, everything still owed is credited at once
 * ({@link #creditAll}) and later DATA on arrival, as nobody will take it.
 *
 * <p>Threading: {@link #onHeaders}, {@link #publishHead} and {@link #onData} come from the
 * connection's event loop, which alone touches {@code pendingHead}; the rest from any thread.
 * Credit owed is one atomic counter.
 */
final class H2Response implements BodyPipe.Producer {
    /** What the response needs from the exchange it belongs to. */
    interface Owner {
        /** Event loop: the peer ended the stream (END_STREAM on the head or on DATA). */
        void responseEnded();

        /** Returns {@code bytes} of DATA credit on the owner's current stream. Any thread. */
        void credit(long bytes);

        /** The body's subscriber cancelled: the exchange stops. Any thread. */
        void abort(Throwable cause);
    }

    /** The credit count as a field with a handle, not an AtomicLong per response. */
    private static final VarHandle UNCREDITED;

    static {
        try {
            UNCREDITED = MethodHandles.lookup().findVarHandle(H2Response.class, "uncredited", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final ExchangeRequest request;
    private final Owner owner;
    private final CompletableFuture<ResponseHead> head = new ListenedFuture<>();
    private final BodyPipe body;
    /** DATA octets delivered to the pipe and not yet credited; -1 once everything was credited ({@link #creditAll}). */
    private volatile long uncredited;
    /** A final head received and not yet published; loop-confined. */
    private ResponseHead pendingHead;

    H2Response(ExchangeRequest request, Executor executor, Owner owner) {
        this.request = request;
        this.owner = owner;
        this.body = new BodyPipe(executor, this);
    }

    CompletableFuture<ResponseHead> head() {
        return head;
    }

    /**
     * Event loop: a HEADERS block of the stream.
     *
     * @return {@code true} when this block is the final response head, which the caller must then
     *     {@link #publishHead() publish} once it has dispatched the rest of the bytes it read
     */
    boolean onHeaders(List<HeaderField> block, boolean endStream, boolean trailers) {
        boolean final_ = false;
        if (!trailers) {
            int status = H2Fields.status(block);
            if (status >= 100 && status < 200) {
                return false; // RFC 9113 §8.1: interim responses precede the final one
            }
            pendingHead = H2Fields.head(status, block);
            final_ = true;
            if (request.bodyToArray() && !body.copiesOnArrival()) {
                body.copyFromNowOn(ByteArrayBody.forHead(pendingHead));
            }
        }
        if (endStream) {
            owner.responseEnded();
        }
        return final_;
    }

    /**
     * Event loop, after the read that carried the head was dispatched: completes the head future.
     * Later than on arrival on purpose: the DATA of a small response usually comes in the same
     * read, and the thread woken by the head then finds the whole body queued instead of
     * sleeping once more until it arrives.
     */
    void publishHead() {
        ResponseHead ready = pendingHead;
        if (ready != null) {
            pendingHead = null;
            head.complete(ready);
        }
    }

    /** Event loop: {@code data} aliases what {@code source} read (see {@link BodyPipe#offerRead}). */
    void onData(ByteBuffer data, io.ringkv.net.Connection source, boolean endStream) {
        int size = data.remaining();
        long before;
        do {
            before = uncredited;
            if (before < 0) {
                owner.credit(size); // aborted: nobody takes it
                break;
            }
        } while (!UNCREDITED.compareAndSet(this, before, before + size));
        body.offerRead(data, source);
        if (endStream) {
            owner.responseEnded();
        }
    }

    /** The body ended normally. */
    void completeBody() {
        body.complete();
    }

    /** Whether the producer side of the body ended (normally or not). */
    boolean bodyEnded() {
        return body.isDone();
    }

    /** Whether the head or the body failed. */
    boolean failed() {
        return head.isCompletedExceptionally() || body.isFailed();
    }

    /** Fails the head (if it is still awaited) and the body (if it has not ended), with an {@link IOException} or an unchecked cause. */
    void fail(Throwable cause) {
        Throwable reported = cause instanceof IOException || cause instanceof RuntimeException
                ? cause : new IOException(cause.getMessage(), cause);
        head.completeExceptionally(reported);
        body.fail(reported);
    }

    /** The exchange was aborted: credits every octet still owed, and from now on each DATA on arrival. */
    void creditAll() {
        long rest = (long) UNCREDITED.getAndSet(this, -1L);
        if (rest > 0) {
            owner.credit(rest);
        }
    }

    void deliverBody(Flow.Subscriber<List<ByteBuffer>> subscriber) {
        body.subscribe(subscriber);
    }

    ByteArrayBody arrayBody() {
        return body.arrayBody();
    }

    void discardBody() {
        body.subscribe(new DiscardingSubscriber());
    }

    // ---- BodyPipe.Producer ----

    @Override
    public void resume() {
        // Flow control, not socket reads, holds the peer back on a shared connection.
    }

    @Override
    public void cancel() {
        owner.abort(new IOException("response body cancelled by its subscriber"));
    }

    @Override
    public void taken(long bytes) {
        long before;
        do {
            before = uncredited;
            if (before < 0) {
                return; // credited in full by creditAll
            }
        } while (!UNCREDITED.compareAndSet(this, before, before - bytes));
        owner.credit(bytes);
    }
}
