package io.ringkv.http.client.internal;

import java.net.http.HttpRequest.BodyPublisher;
import java.util.Set;

/**
 * Whether a request that met a stale pooled connection may be sent again on a fresh one. Pure.
 *
 * <p>RFC 9112 §9.3.1: a client may retry automatically only idempotent requests (RFC 9110
 * §9.2.2: GET, HEAD, PUT, DELETE, OPTIONS, TRACE). The body must be sendable again: the JDK's own
 * {@code BodyPublishers} (byte arrays, strings, files, input-stream suppliers, concatenations) can
 * be subscribed again and produce the same bytes; an arbitrary {@code Flow.Publisher} adapted by
 * {@code BodyPublishers.fromPublisher} might not, so such a body is never retried. Ours say so by
 * implementing {@link Resubscribable} ({@code RingBodyPublishers}).
 */
final class StaleRetryRule {
    /** Retries after a stale connection per call: one, then the error is the answer. */
    static final int RETRIES_MAX = 1;

    private static final Set<String> IDEMPOTENT = Set.of("GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE");
    private static final String JDK_PUBLISHERS = "jdk.internal.net.http.RequestPublishers$";
    private static final String JDK_ADAPTER = JDK_PUBLISHERS + "PublisherAdapter";

    private StaleRetryRule() {
    }

    static boolean allows(ExchangeRequest request) {
        return IDEMPOTENT.contains(request.method()) && resubscribable(request.body());
    }

    static boolean resubscribable(BodyPublisher body) {
        if (body == null || body instanceof Resubscribable) {
            return true;
        }
        String type = body.getClass().getName();
        return type.startsWith(JDK_PUBLISHERS) && !type.equals(JDK_ADAPTER);
    }
}
