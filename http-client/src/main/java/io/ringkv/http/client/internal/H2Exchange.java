package io.ringkv.http.client.internal;

import io.ringkv.http.h2.ErrorCode;
import io.ringkv.http.hpack.HeaderField;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One request/response over HTTP/2, across the streams it may need: a stream refused by the peer
 * (GOAWAY above its last-stream-id, RST_STREAM REFUSED_STREAM, RFC 9113 §8.7) was not processed,
 * nor was one the connection could not take (it stopped accepting streams, or its socket began
 * closing and dropped the HEADERS), so the exchange opens a new one, on another connection if
 * need be, at most {@link #ATTEMPTS_MAX} times, and only before a response head arrived.
 *
 * <p>Server push (RFC 9113 §8.4): a PUSH_PROMISE on this exchange's stream is offered to the
 * call's {@link PushPromises} (or the promised stream is refused when the call has no push
 * handler). The pushed response is received by an exchange of its own ({@link #pushed}), on the
 * promised stream, with the same flow control; it never takes a stream slot and is never retried.
 * The initiating response's body completes only once the handler has decided on every promise
 * that arrived before it ended, so that an application that waits for the main response finds
 * its handler called, as with the JDK client. Aborting this exchange aborts the pushed exchanges
 * it started that are still running.
 *
 * <p>Threading: stream events ({@code on*}) come from the connection's event loop; the
 * {@link Exchange} methods from any thread. The current attempt is published through a volatile
 * field before its stream is visible to the loop. Response DATA is credited back to the peer when
 * the subscriber is handed it ({@link #taken}), never on arrival.
 */
final class H2Exchange implements Exchange, BodyPipe.Producer, H2RequestBody.Listener {
    /** Streams one exchange may open before it gives up on refusals. */
    static final int ATTEMPTS_MAX = 5;

    private final ExchangeRequest request;
    private final Route route;
    private final H2Codec codec;
    private final Executor executor;
    private final List<HeaderField> fields;
    private final CompletableFuture<ResponseHead> head = new CompletableFuture<>();
    private final BodyPipe body;
    /** The call's push handling; {@code null} when it has no push handler (and for pushed exchanges). */
    private final PushPromises<?> pushes;
    /** True for the exchange that receives a pushed response. */
    private final boolean pushed;
    /** Pushed exchanges started from this one's stream, aborted with it. */
    private final java.util.Set<H2Exchange> promised = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** Promises whose handler has not returned yet: the body completes after they are decided. */
    private final java.util.concurrent.atomic.AtomicInteger undecided = new java.util.concurrent.atomic.AtomicInteger();
    private final AtomicBoolean bodyCompleted = new AtomicBoolean();
    private volatile boolean responseEnded;
    /** DATA octets delivered to the pipe and not yet credited; -1 once the exchange was aborted. */
    private final AtomicLong uncredited = new AtomicLong();
    private volatile Attempt attempt;
    /** A final head received and not yet published; loop-confined. */
    private ResponseHead pendingHead;
    private volatile CompletableFuture<H2Connection> acquiring;
    private volatile Throwable aborted;
    private int attempts;

    /** One stream of this exchange. */
    private static final class Attempt {
        final H2Connection connection;
        volatile int streamId = -1;
        volatile boolean requestDone;
        volatile H2RequestBody sender;
        final AtomicBoolean finished = new AtomicBoolean();

        Attempt(H2Connection connection) {
            this.connection = connection;
        }
    }

    H2Exchange(ExchangeRequest request, Route route, H2Codec codec, Executor executor, PushPromises<?> pushes) {
        this(request, route, codec, executor, pushes, false);
    }

    private H2Exchange(ExchangeRequest request, Route route, H2Codec codec, Executor executor,
            PushPromises<?> pushes, boolean pushed) {
        this.request = request;
        this.route = route;
        this.codec = codec;
        this.executor = executor;
        this.pushes = pushes;
        this.pushed = pushed;
        this.fields = pushed ? List.of() : H2Fields.request(request, route);
        this.body = new BodyPipe(executor, this);
    }

    /** The exchange that receives the response pushed on {@code streamId} (reserved by a PUSH_PROMISE). */
    static H2Exchange pushed(ExchangeRequest promisedRequest, H2Connection connection, int streamId, Executor executor) {
        H2Exchange exchange = new H2Exchange(promisedRequest, connection.route(), null, executor, null, true);
        Attempt attempt = new Attempt(connection);
        attempt.streamId = streamId;
        attempt.requestDone = true; // the server sent the request (the promise); we send nothing
        exchange.attempt = attempt;
        return exchange;
    }

    /** Starts the first attempt: a stream slot on a connection, then the stream. */
    void begin() {
        synchronized (this) {
            attempts++;
        }
        CompletableFuture<H2Connection> slot = codec.acquire(route);
        acquiring = slot;
        slot.whenComplete((connection, error) -> {
            if (error != null) {
                fail(Failures.unwrap(error));
            } else {
                openOn(connection);
            }
        });
    }

    private void openOn(H2Connection connection) {
        if (aborted != null) {
            connection.release();
            return;
        }
        Attempt next = new Attempt(connection);
        attempt = next;
        boolean hasBody = request.body() != null;
        if (connection.open(this, fields, !hasBody) < 0) {
            connection.release();
            retry("connection stopped accepting streams");
            return;
        }
        next.requestDone = !hasBody;
        if (aborted != null) {
            endAttempt(next, ErrorCode.CANCEL);
        } else if (hasBody) {
            H2RequestBody sender = new H2RequestBody(connection, next.streamId, request.contentLength(), this, executor);
            next.sender = sender;
            Hops.run(executor, () -> request.body().subscribe(sender)); // publisher code: never on a loop
        }
    }

    /**
     * Event loop, inside the connection's critical section: the request went out as the HTTP/1.1
     * request of an {@code Upgrade: h2c} and continues as stream {@code streamId} (RFC 7540 §3.2);
     * only the response is left. Instead of {@link #begin()}.
     */
    void adoptUpgradeStream(H2Connection connection, int streamId) {
        synchronized (this) {
            attempts++;
        }
        Attempt adopted = new Attempt(connection);
        adopted.streamId = streamId;
        adopted.requestDone = true;
        attempt = adopted;
    }

    /** Inside the connection's critical section, before the stream can see any event. */
    void streamOpened(int streamId) {
        attempt.streamId = streamId;
    }

    private void retry(String reason) {
        boolean again;
        synchronized (this) {
            again = !pushed && attempts < ATTEMPTS_MAX && !head.isDone() && aborted == null;
        }
        if (again) {
            begin();
        } else {
            fail(new IOException(reason));
        }
    }

    // ---- stream events (event loop) ----

    /**
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
            responseEnded();
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

    /**
     * A PUSH_PROMISE on this exchange's stream, valid per http-core (RFC 9113 §8.4). Refused when
     * the call has no push handler or was aborted (REFUSED_STREAM, as the JDK client does), reset
     * as a stream error when the server is not authoritative for the promised origin; otherwise the
     * pushed exchange starts receiving now and the handler is asked on the executor.
     */
    void onPushPromise(int promisedStreamId, List<HeaderField> promisedFields) {
        H2Connection connection = attempt.connection;
        if (pushes == null || aborted != null) {
            connection.reset(promisedStreamId, ErrorCode.REFUSED_STREAM);
            return;
        }
        PushedRequest promisedRequest;
        try {
            promisedRequest = PushedRequest.of(promisedFields, request.userRequest());
        } catch (IllegalArgumentException e) {
            connection.reset(promisedStreamId, ErrorCode.PROTOCOL_ERROR);
            return;
        }
        if (!sameOrigin(promisedRequest.uri())) {
            // RFC 9113 §8.4: a promise for an origin the server is not authoritative for is a stream error.
            connection.reset(promisedStreamId, ErrorCode.PROTOCOL_ERROR);
            return;
        }
        H2Exchange exchange = pushed(ExchangeRequest.of(promisedRequest, java.net.http.HttpClient.Version.HTTP_2),
                connection, promisedStreamId, executor);
        connection.registerPush(promisedStreamId, exchange);
        promised.add(exchange);
        if (aborted != null) {
            // abort() may have run between the check above and the add: it did not see this push.
            exchange.abort(new IOException("the exchange that initiated the push was aborted", aborted));
        }
        undecided.incrementAndGet();
        pushes.offer(promisedRequest, exchange, this::pushDecided);
    }

    /** The connection's origin (as the route names it) is the one we trust the server for. */
    private boolean sameOrigin(java.net.URI promised) {
        Route origin = Route.of(promised, route.proxy());
        return origin.scheme().equals(route.scheme()) && origin.port() == route.port()
                && origin.host().equalsIgnoreCase(route.host());
    }

    private void pushDecided() {
        undecided.decrementAndGet();
        completeBodyWhenSettled();
    }

    private void completeBodyWhenSettled() {
        if (responseEnded && undecided.get() == 0 && bodyCompleted.compareAndSet(false, true)) {
            body.complete();
        }
    }

    /** Whether this exchange already failed or was aborted (nothing more will arrive). */
    boolean isFailed() {
        return aborted != null || head.isCompletedExceptionally() || (body.isDone() && !bodyCompleted.get());
    }

    /** Event loop: {@code data} aliases what {@code source} read (see {@link BodyPipe#offerRead}). */
    void onData(ByteBuffer data, io.ringkv.net.Connection source, boolean endStream) {
        int size = data.remaining();
        long before;
        do {
            before = uncredited.get();
            if (before < 0) {
                credit(size); // aborted: nobody takes it
                break;
            }
        } while (!uncredited.compareAndSet(before, before + size));
        body.offerRead(data, source);
        if (endStream) {
            responseEnded();
        }
    }

    void onReset(ErrorCode code, boolean byPeer, String reason) {
        Attempt current = attempt;
        if (current != null && current.finished.compareAndSet(false, true)) {
            stopSender(current);
            current.connection.streamDone(current.streamId);
        }
        if (byPeer && code == ErrorCode.REFUSED_STREAM && !head.isDone()) {
            retry("stream refused " + ATTEMPTS_MAX + " times");
            return;
        }
        fail(new IOException("HTTP/2 stream reset " + (byPeer ? "by the server" : "by the client")
                + ": " + code + (reason == null ? "" : " (" + reason + ")")));
    }

    /** GOAWAY: the server did not process this stream; open it elsewhere. */
    void onRefused(String reason) {
        Attempt current = attempt;
        if (current != null && current.finished.compareAndSet(false, true)) {
            stopSender(current);
            current.connection.streamDone(current.streamId);
        }
        retry(reason);
    }

    void onConnectionFailed(IOException error) {
        Attempt current = attempt;
        if (current != null && current.finished.compareAndSet(false, true)) {
            stopSender(current);
            current.connection.streamDone(current.streamId);
        }
        fail(error);
    }

    void onWindowOpened() {
        Attempt current = attempt;
        H2RequestBody sender = current == null ? null : current.sender;
        if (sender != null) {
            sender.onWindowOpened();
        }
    }

    private void responseEnded() {
        responseEnded = true;
        completeBodyWhenSettled();
        Attempt current = attempt;
        if (current.requestDone) {
            finish(current);
        } else {
            // RFC 9113 §8.1: a complete response ends the exchange; the rest of the body is not wanted.
            endAttempt(current, ErrorCode.CANCEL);
        }
    }

    // ---- request body ----

    @Override
    public void requestSent() {
        Attempt current = attempt;
        current.requestDone = true;
        if (responseEnded || body.isDone()) {
            finish(current);
        }
    }

    @Override
    public void requestFailed(IOException cause) {
        abort(cause);
    }

    // ---- Exchange ----

    @Override
    public CompletableFuture<ResponseHead> responseHead() {
        return head;
    }

    @Override
    public void deliverBody(Flow.Subscriber<List<ByteBuffer>> subscriber) {
        body.subscribe(subscriber);
    }

    @Override
    public ByteArrayBody arrayBody() {
        return body.arrayBody();
    }

    @Override
    public void discardBody() {
        body.subscribe(new DiscardingSubscriber());
    }

    @Override
    public java.util.Optional<javax.net.ssl.SSLSession> sslSession() {
        Attempt current = attempt;
        return current == null ? java.util.Optional.empty() : current.connection.sslSession();
    }

    @Override
    public void abort(Throwable cause) {
        aborted = cause;
        CompletableFuture<H2Connection> slot = acquiring;
        if (slot != null) {
            slot.cancel(false);
        }
        Attempt current = attempt;
        if (current != null && current.streamId > 0) {
            endAttempt(current, ErrorCode.CANCEL);
        }
        long rest = uncredited.getAndSet(-1);
        if (rest > 0) {
            credit(rest);
        }
        fail(cause);
        for (H2Exchange push : promised) {
            push.abort(new IOException("the exchange that initiated the push was aborted", cause));
        }
    }

    // ---- BodyPipe.Producer ----

    @Override
    public void resume() {
        // Flow control, not socket reads, holds the peer back on a shared connection.
    }

    @Override
    public void cancel() {
        abort(new IOException("response body cancelled by its subscriber"));
    }

    @Override
    public void taken(long bytes) {
        long before;
        do {
            before = uncredited.get();
            if (before < 0) {
                return; // credited in full by abort
            }
        } while (!uncredited.compareAndSet(before, before - bytes));
        credit(bytes);
    }

    // ---- helpers ----

    private void credit(long bytes) {
        Attempt current = attempt;
        if (current != null && current.streamId > 0) {
            current.connection.consumed(current.streamId, bytes);
        }
    }

    /** Resets the stream (if still open) and frees its slot. */
    private void endAttempt(Attempt current, ErrorCode code) {
        stopSender(current);
        if (current.finished.compareAndSet(false, true)) {
            current.connection.reset(current.streamId, code);
            current.connection.streamDone(current.streamId);
        }
    }

    private static void finish(Attempt current) {
        if (current.finished.compareAndSet(false, true)) {
            current.connection.streamDone(current.streamId);
        }
    }

    private static void stopSender(Attempt current) {
        H2RequestBody sender = current.sender;
        if (sender != null) {
            sender.stop();
        }
    }

    private void fail(Throwable cause) {
        Throwable reported = cause instanceof IOException || cause instanceof RuntimeException
                ? cause : new IOException(cause.getMessage(), cause);
        head.completeExceptionally(reported);
        body.fail(reported);
    }

    /** Reads and drops a body nobody wants (a redirect or an authentication retry follows). */
    private static final class DiscardingSubscriber implements Flow.Subscriber<List<ByteBuffer>> {
        @Override
        public void onSubscribe(Flow.Subscription subscription) {
            subscription.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(List<ByteBuffer> item) {
        }

        @Override
        public void onError(Throwable throwable) {
        }

        @Override
        public void onComplete() {
        }
    }

    @Override
    public String toString() {
        Attempt current = attempt;
        return "H2Exchange[" + request.method() + " " + request.uri() + ", stream "
                + (current == null ? "-" : current.streamId) + "]";
    }
}
