package io.ringkv.cluster.peer;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * One request to a peer, as the node-to-node contract makes it: already signed, its body whole.
 *
 * @param origin  the peer, {@code scheme://host:port} (a {@code ClusterNode}'s id)
 * @param method  the HTTP method
 * @param target  the path and query, starting with {@code /}
 * @param fields  header fields to send (the proof of the cluster secret among them); names as
 *                signed, sent lower-cased over HTTP/2
 * @param body    the body, empty for none; never changed once handed over (sent without a copy)
 * @param timeout how long the answer may take: its head for a streamed answer, the whole answer
 *                otherwise
 */
public record PeerRequest(String origin, String method, String target, Map<String, String> fields, byte[] body,
                          Duration timeout) {

    public PeerRequest {
        Objects.requireNonNull(origin, "origin");
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(fields, "fields");
        Objects.requireNonNull(body, "body");
        Objects.requireNonNull(timeout, "timeout");
        if (!target.startsWith("/")) {
            throw new IllegalArgumentException("a request target starts with '/': " + target);
        }
    }

    /** The target without its query, for messages. */
    public String path() {
        int query = target.indexOf('?');
        return query < 0 ? target : target.substring(0, query);
    }

    @Override
    public String toString() {
        return method + " " + path() + " to " + origin;
    }
}
