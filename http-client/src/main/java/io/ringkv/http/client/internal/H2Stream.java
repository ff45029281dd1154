package io.ringkv.http.client.internal;

import io.ringkv.http.h2.ErrorCode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;

/**
 * An exchange that owns HTTP/2 streams: a request we sent ({@link H2Exchange}) or a response the
 * server pushed ({@link H2PushedExchange}). Its {@link H2Response} takes the stream's HEADERS and
 * DATA and is what the {@link Exchange} methods for the response reach; what ends the stream
 * otherwise is the exchange's.
 *
 * <p>Threading: {@link #onReset} and {@link #onConnectionFailed} come from the connection's event
 * loop; the {@link Exchange} methods from any thread.
 */
sealed interface H2Stream extends Exchange permits H2Exchange, H2PushedExchange {
    /** The response half, which takes the stream's HEADERS and DATA. */
    H2Response response();

    @Override
    default CompletableFuture<ResponseHead> responseHead() {
        return response().head();
    }

    @Override
    default void deliverBody(Flow.Subscriber<List<ByteBuffer>> subscriber) {
        response().deliverBody(subscriber);
    }

    @Override
    default ByteArrayBody arrayBody() {
        return response().arrayBody();
    }

    @Override
    default void discardBody() {
        response().discardBody();
    }

    /** RST_STREAM, sent by the peer or by us. */
    void onReset(ErrorCode code, boolean byPeer, String reason);

    /** The connection failed or closed before the stream ended. */
    void onConnectionFailed(IOException error);

    /** The usual text of a reset's failure. */
    static IOException resetFailure(ErrorCode code, boolean byPeer, String reason) {
        return new IOException("HTTP/2 stream reset " + (byPeer ? "by the server" : "by the client")
                + ": " + code + (reason == null ? "" : " (" + reason + ")"));
    }
}
