package io.ringkv.http.client.internal;

import java.net.http.HttpResponse;

/**
 * What the chain passes back up for one attempt: the request that was sent, the response head
 * that came back, and the exchange whose body is still unread. Immutable.
 *
 * @param previous the response that led to this attempt (a redirect or an authentication
 *                 challenge), without body; {@code null} for the first attempt
 */
public record Interim(ExchangeRequest request, ResponseHead head, Exchange exchange,
        HttpResponse<Void> previous) {

    Interim withPrevious(HttpResponse<Void> earlier) {
        return earlier == null ? this : new Interim(request, head, exchange, earlier);
    }

    /** This attempt as a body-less response, to become the {@code previousResponse()} of the next. */
    HttpResponse<Void> asPrevious() {
        return ResponseImpl.of(this, null);
    }
}
