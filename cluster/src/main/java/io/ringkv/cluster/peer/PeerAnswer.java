package io.ringkv.cluster.peer;

import io.ringkv.http.Headers;

/**
 * A peer's whole answer to a {@link PeerRequest}, not yet verified: whoever uses it checks its
 * proof first.
 *
 * @param request the request it answers
 * @param status  the final status
 * @param fields  the answer's header fields, pseudo-header fields left out
 * @param body    the whole body, empty for none
 */
public record PeerAnswer(PeerRequest request, int status, Headers fields, byte[] body) {
}
