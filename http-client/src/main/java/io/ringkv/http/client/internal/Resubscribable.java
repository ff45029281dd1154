package io.ringkv.http.client.internal;

import java.net.http.HttpRequest.BodyPublisher;

/**
 * A body publisher of ours that produces the same bytes on every subscription, so a request that
 * carries it may be sent again (after a stale pooled connection, {@link StaleRetryRule}). The
 * JDK's own publishers are recognised by their class instead.
 */
public interface Resubscribable extends BodyPublisher {
}
