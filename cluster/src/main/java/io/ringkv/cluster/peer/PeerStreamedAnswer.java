package io.ringkv.cluster.peer;

import io.ringkv.http.Headers;
import java.io.InputStream;

/**
 * A peer's answer whose body is read as it arrives: a blocking stream (read it on an executor
 * thread, never on an event loop) whose every read fails with
 * {@link java.net.http.HttpTimeoutException} once no byte came for the request's timeout. Closing
 * it before the end abandons the answer (the stream is reset).
 */
public record PeerStreamedAnswer(PeerRequest request, int status, Headers fields, InputStream body) {
}
