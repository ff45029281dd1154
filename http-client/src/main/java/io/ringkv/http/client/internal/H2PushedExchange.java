package io.ringkv.http.client.internal;

import io.ringkv.http.h2.ErrorCode;
import java.io.IOException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A response the server pushed (RFC 9113 §8.4), on the stream a PUSH_PROMISE reserved on one of
 * our exchanges' streams. It is received like any response ({@link H2Response}, same flow
 * control), but nothing of it is sent: the server sent the request (the promise). It never takes
 * a stream slot and is never retried, so a reset or a lost connection fails it. The initiating
 * {@link H2Exchange} starts it, offers it to the call's {@link PushPromises}, and aborts it when
 * it is aborted itself; the application aborts it by declining or cancelling the push.
 *
 * <p>Threading: stream events come from the connection's event loop; the {@link Exchange}
 * methods from any thread. The stream is finished once ({@code finished}), by whichever of its
 * end, a reset, a connection failure or an abort comes first.
 */
final class H2PushedExchange implements H2Stream, H2Response.Owner {
    private final ExchangeRequest request;
    private final H2Connection connection;
    private final int streamId;
    private final H2Response response;
    private final AtomicBoolean finished = new AtomicBoolean();
    private volatile Throwable aborted;

    /** The exchange that receives the response pushed on {@code streamId} (reserved by a PUSH_PROMISE). */
    H2PushedExchange(ExchangeRequest promisedRequest, H2Connection connection, int streamId, Executor executor) {
        this.request = promisedRequest;
        this.connection = connection;
        this.streamId = streamId;
        this.response = new H2Response(promisedRequest, executor, this);
    }

    /** Whether this exchange already failed or was aborted (nothing more will arrive). */
    boolean isFailed() {
        return aborted != null || response.failed();
    }

    // ---- stream events (event loop) ----

    @Override
    public H2Response response() {
        return response;
    }

    @Override
    public void responseEnded() {
        response.completeBody();
        finish();
    }

    @Override
    public void onReset(ErrorCode code, boolean byPeer, String reason) {
        finish();
        response.fail(H2Stream.resetFailure(code, byPeer, reason));
    }

    @Override
    public void onConnectionFailed(IOException error) {
        finish();
        response.fail(error);
    }

    // ---- Exchange ----

    @Override
    public java.util.Optional<javax.net.ssl.SSLSession> sslSession() {
        return connection.sslSession();
    }

    /** Resets the stream if it is still ours, credits what the peer is owed, and fails the response. */
    @Override
    public void abort(Throwable cause) {
        aborted = cause;
        if (finished.compareAndSet(false, true)) {
            connection.reset(streamId, ErrorCode.CANCEL);
            connection.streamDone(streamId);
        }
        response.creditAll();
        response.fail(cause);
    }

    @Override
    public void credit(long bytes) {
        connection.consumed(streamId, bytes);
    }

    /** The stream's slot among the connection's pushes is free. */
    private void finish() {
        if (finished.compareAndSet(false, true)) {
            connection.streamDone(streamId);
        }
    }

    @Override
    public String toString() {
        return "H2PushedExchange[" + request.method() + " " + request.uri() + ", stream " + streamId + "]";
    }
}
