package io.ringkv.http.client.internal;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.Flow;

/**
 * Reads and drops a response body nobody wants (a redirect or an authentication retry follows),
 * so that the connection or stream can finish normally. Stateless; one per body all the same, as
 * a subscriber is subscribed once.
 */
final class DiscardingSubscriber implements Flow.Subscriber<List<ByteBuffer>> {
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
