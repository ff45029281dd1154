package io.ringkv.http.client.internal;

import io.ringkv.http.h2.ErrorCode;
import io.ringkv.http.hpack.HeaderField;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * One request/response over HTTP/2, across the streams it may need: a stream refused by the peer
 * (GOAWAY above its last-stream-id, RST_STREAM REFUSED_STREAM, RFC 9113 §8.7) was not processed,
 * nor was one the connection could not take (it stopped accepting streams, or its socket began
 * closing and dropped the HEADERS), so the exchange opens a new one, on another connection if
 * need be, at most {@link #ATTEMPTS_MAX} times, and only before a response head arrived.
 *
 * <p>The response (head, body, credit) is received by an {@link H2Response}; this class sends the
 * request and decides what becomes of its streams.
 *
 * <p>Server push (RFC 9113 §8.4): a PUSH_PROMISE on this exchange's stream is offered to the
 * call's {@link PushPromises} (or the promised stream is refused when the call has no push
 * handler). The pushed response is received by an {@link H2PushedExchange} on the promised
 * stream. The initiating response's body completes only once the handler has decided on every
 * promise that arrived before it ended, so that an application that waits for the main response
 * finds its handler called, as with the JDK client. Aborting this exchange aborts the pushed
 * exchanges it started that are still running.
 *
 * <p>Lifecycle: each attempt is one {@link H2AttemptState}, changed by compare-and-set in
 * {@link Attempt#step} only; the step that ends the stream (once per attempt, whichever thread
 * wins) resets it if the table says so and gives its slot back, and the step that completes the
 * response body (once the response ended and every push promise is decided) is taken once too.
 *
 * <p>Threading: stream events ({@code on*}) come from the connection's event loop; the
 * {@link Exchange} methods from any thread. The current attempt is published through a volatile
 * field before its stream is visible to the loop. Response DATA is credited back to the peer when
 * the subscriber is handed it (see {@link H2Response}), never on arrival.
 */
final class H2Exchange implements H2Stream, H2Response.Owner, H2RequestBody.Listener {
    /** Streams one exchange may open before it gives up on refusals. */
    static final int ATTEMPTS_MAX = 5;

    private final ExchangeRequest request;
    private final Route route;
    private final H2Codec codec;
    private final Executor executor;
    private final List<HeaderField> fields;
    private final H2Response response;
    private final CompletableFuture<ResponseHead> head;
    /** The call's push handling; {@code null} when it has no push handler. */
    private final PushPromises<?> pushes;
    /**
     * Pushed exchanges started from this one's stream, aborted with it. Only a call with a push
     * handler can have any (promises to others are refused): the others share an empty set
     * rather than each building a concurrent one.
     */
    private final java.util.Set<H2PushedExchange> promised;
    /**
     * Promises whose handler has not returned yet: the body completes after they are decided.
     * Changed through {@link #UNDECIDED}: a field, not an AtomicInteger per exchange, as most
     * exchanges never see a push.
     */
    private volatile int undecided;
    private static final VarHandle UNDECIDED;

    static {
        try {
            UNDECIDED = MethodHandles.lookup().findVarHandle(H2Exchange.class, "undecided", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
    private volatile Attempt attempt;
    private volatile CompletableFuture<H2Connection> acquiring;
    private volatile Throwable aborted;
    private int attempts;

    /** One stream of this exchange. */
    private static final class Attempt {
        private static final VarHandle STATE;

        static {
            try {
                STATE = MethodHandles.lookup().findVarHandle(Attempt.class, "state", H2AttemptState.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        final H2Connection connection;
        /** Set with the step out of {@code OPENING}, inside the connection's critical section. */
        volatile int streamId = -1;
        volatile H2RequestBody sender;
        /** Changed by {@link #step} only. */
        private volatile H2AttemptState state = H2AttemptState.OPENING;

        Attempt(H2Connection connection) {
            this.connection = connection;
        }

        /**
         * Applies {@code event}: the stream is reset if the table says so, and its slot is given
         * back if this step ended it; a step that lost the race to another does neither.
         */
        H2AttemptState step(H2AttemptState.Event event) {
            H2AttemptState from;
            do {
                from = state;
            } while (!STATE.compareAndSet(this, from, from.next(event)));
            if (from.resets(event)) {
                connection.reset(streamId, ErrorCode.CANCEL);
            }
            if (from.releases(event)) {
                connection.streamDone(streamId);
            }
            return from;
        }

        H2AttemptState state() {
            return state;
        }
    }

    H2Exchange(ExchangeRequest request, Route route, H2Codec codec, Executor executor, PushPromises<?> pushes) {
        this.request = request;
        this.route = route;
        this.codec = codec;
        this.executor = executor;
        this.pushes = pushes;
        this.promised = pushes == null ? java.util.Set.of() : java.util.concurrent.ConcurrentHashMap.newKeySet();
        this.fields = H2Fields.request(request, route);
        this.response = new H2Response(request, executor, this);
        this.head = response.head();
    }

    /** Starts the first attempt: a stream slot on a connection, then the stream. */
    void begin() {
        synchronized (this) {
            attempts++;
        }
        CompletableFuture<H2Connection> slot = codec.acquire(route);
        acquiring = slot;
        if (slot.state() == java.util.concurrent.Future.State.SUCCESS) {
            openOn(slot.resultNow()); // a live connection had a slot: no stage, no lambda
            return;
        }
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
        if (aborted != null) {
            endAttempt(next);
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
        adopted.step(H2AttemptState.Event.OPENED_WHOLE);
        attempt = adopted;
    }

    /**
     * Inside the connection's critical section, before the stream can see any event: its HEADERS
     * are queued, with END_STREAM when {@code requestWhole}.
     */
    void streamOpened(int streamId, boolean requestWhole) {
        Attempt current = attempt;
        current.streamId = streamId;
        current.step(requestWhole ? H2AttemptState.Event.OPENED_WHOLE : H2AttemptState.Event.OPENED);
    }

    private void retry(String reason) {
        boolean again;
        synchronized (this) {
            again = attempts < ATTEMPTS_MAX && !head.isDone() && aborted == null;
        }
        if (again) {
            begin();
        } else {
            fail(new IOException(reason));
        }
    }

    // ---- stream events (event loop) ----

    @Override
    public H2Response response() {
        return response;
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
        H2PushedExchange exchange = new H2PushedExchange(
                ExchangeRequest.of(promisedRequest, java.net.http.HttpClient.Version.HTTP_2), connection, promisedStreamId,
                executor);
        connection.registerPush(promisedStreamId, exchange);
        promised.add(exchange);
        if (aborted != null) {
            // abort() may have run between the check above and the add: it did not see this push.
            exchange.abort(new IOException("the exchange that initiated the push was aborted", aborted));
        }
        UNDECIDED.getAndAdd(this, 1);
        pushes.offer(promisedRequest, exchange, this::pushDecided);
    }

    /** The connection's origin (as the route names it) is the one we trust the server for. */
    private boolean sameOrigin(java.net.URI promised) {
        Route origin = Route.of(promised, route.proxy());
        return origin.scheme().equals(route.scheme()) && origin.port() == route.port()
                && origin.host().equalsIgnoreCase(route.host());
    }

    private void pushDecided() {
        UNDECIDED.getAndAdd(this, -1);
        completeBodyWhenSettled();
    }

    /** Completes the body once the response ended and no promise is undecided; whichever call sees both last does it. */
    private void completeBodyWhenSettled() {
        Attempt current = attempt;
        if (undecided == 0 && current.step(H2AttemptState.Event.SETTLED).completesBody(H2AttemptState.Event.SETTLED)) {
            response.completeBody();
        }
    }

    @Override
    public void onReset(ErrorCode code, boolean byPeer, String reason) {
        Attempt current = attempt;
        if (current != null) {
            stopSender(current);
            current.step(H2AttemptState.Event.GONE);
        }
        if (byPeer && code == ErrorCode.REFUSED_STREAM && !head.isDone()) {
            retry("stream refused " + ATTEMPTS_MAX + " times");
            return;
        }
        fail(H2Stream.resetFailure(code, byPeer, reason));
    }

    /** GOAWAY: the server did not process this stream; open it elsewhere. */
    void onRefused(String reason) {
        Attempt current = attempt;
        if (current != null) {
            stopSender(current);
            current.step(H2AttemptState.Event.GONE);
        }
        retry(reason);
    }

    @Override
    public void onConnectionFailed(IOException error) {
        Attempt current = attempt;
        if (current != null) {
            stopSender(current);
            current.step(H2AttemptState.Event.GONE);
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

    @Override
    public void responseEnded() {
        Attempt current = attempt;
        // RFC 9113 §8.1: a complete response ends the exchange; if the request is still being
        // sent, the rest of its body is not wanted (the step resets the stream with CANCEL).
        if (current.state() == H2AttemptState.SENDING) {
            stopSender(current);
        }
        current.step(H2AttemptState.Event.RESPONSE_ENDED);
        completeBodyWhenSettled();
    }

    // ---- request body ----

    @Override
    public void requestSent() {
        Attempt current = attempt;
        current.step(H2AttemptState.Event.REQUEST_SENT);
        if (response.bodyEnded()) {
            current.step(H2AttemptState.Event.GONE);
        }
    }

    @Override
    public void requestFailed(IOException cause) {
        abort(cause);
    }

    // ---- Exchange ----

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
        if (current != null) {
            endAttempt(current); // before the stream is open, openOn sees the abort and ends it
        }
        response.creditAll();
        fail(cause);
        for (H2PushedExchange push : promised) {
            push.abort(new IOException("the exchange that initiated the push was aborted", cause));
        }
    }

    // ---- helpers ----

    @Override
    public void credit(long bytes) {
        Attempt current = attempt;
        if (current != null && current.streamId > 0) {
            current.connection.consumed(current.streamId, bytes);
        }
    }

    /** Resets the stream (if still open) and frees its slot. */
    private static void endAttempt(Attempt current) {
        stopSender(current);
        current.step(H2AttemptState.Event.CANCEL);
    }

    private static void stopSender(Attempt current) {
        H2RequestBody sender = current.sender;
        if (sender != null) {
            sender.stop();
        }
    }

    private void fail(Throwable cause) {
        response.fail(cause);
    }

    @Override
    public String toString() {
        Attempt current = attempt;
        return "H2Exchange[" + request.method() + " " + request.uri() + ", stream "
                + (current == null ? "-" : current.streamId) + "]";
    }
}
