package io.ringkv.http.client.internal;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;

/**
 * The stand-in exchange for a CONNECT a proxy answered with 407: its head is the proxy's answer,
 * there is no connection (the proxy's was closed) and no body. Like the JDK, the client returns it
 * as a 407 response whose {@code body()} is {@code null}, without calling the body handler.
 *
 * <p>Threading: immutable.
 */
final class ProxyRefusal implements Exchange {
    private final ResponseHead head;

    ProxyRefusal(ResponseHead head) {
        this.head = head;
    }

    @Override
    public CompletableFuture<ResponseHead> responseHead() {
        return CompletableFuture.completedFuture(head);
    }

    @Override
    public void deliverBody(Flow.Subscriber<List<ByteBuffer>> subscriber) {
        subscriber.onSubscribe(new Flow.Subscription() {
            @Override
            public void request(long n) {
            }

            @Override
            public void cancel() {
            }
        });
        subscriber.onComplete();
    }

    @Override
    public void discardBody() {
        // nothing was read, nothing to drain
    }

    @Override
    public void abort(Throwable cause) {
        // no connection left to close
    }
}
