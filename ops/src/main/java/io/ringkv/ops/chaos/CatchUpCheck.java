package io.ringkv.ops.chaos;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;
import java.util.BitSet;

/**
 * Which acknowledged writes one node does not hold yet, read from the node's own copies only: a
 * {@code local=true} range, which neither asks other replicas nor repairs anything, so the check
 * cannot help the node catch up. The expected writes are cut into windows of
 * {@link #WINDOW} consecutive write numbers; each {@link #poll} reads, per window that still has
 * a missing write, the node's records from the window's first missing key to its end, so a
 * window is not read again once it is complete.
 *
 * <p>A write counts as held when the node's record for its key has exactly the written value (each
 * key is written once, so there is no newer version to accept).
 *
 * <p>Threading: one thread at a time.
 */
final class CatchUpCheck implements AutoCloseable {
    static final int WINDOW = 20_000;
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(30);

    private final String node;
    private final HandoffKeys keys;
    private final BitSet missing;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(1)).build();

    /**
     * @param node     the node's base URL
     * @param expected the write numbers it must hold
     */
    CatchUpCheck(String node, HandoffKeys keys, BitSet expected) {
        this.node = node;
        this.keys = keys;
        this.missing = (BitSet) expected.clone();
    }

    /** Reads what is still missing; returns how many expected writes the node still lacks. */
    int poll() throws IOException, InterruptedException {
        for (int first = missing.nextSetBit(0); first >= 0; first = missing.nextSetBit(windowEnd(first))) {
            int end = Math.min(windowEnd(first), missing.length());
            readRange(first, end);
        }
        return missing.cardinality();
    }

    /**
     * Adds writes to the missing ones without reading them: writes acknowledged while the node was
     * cut off, which it cannot hold yet.
     */
    void addMissing(BitSet writes) {
        missing.or(writes);
    }

    int missingCount() {
        return missing.cardinality();
    }

    /** A copy of the write numbers still missing after the last poll. */
    BitSet missing() {
        return (BitSet) missing.clone();
    }

    private static int windowEnd(int sequence) {
        return (sequence / WINDOW + 1) * WINDOW;
    }

    /** Clears every write in {@code [from, to)} the node holds. */
    private void readRange(int from, int to) throws IOException, InterruptedException {
        URI uri = URI.create(node + "/v0/entities?local=true&start=" + HandoffKeys.key(from) + "&end=" + HandoffKeys.key(to));
        HttpResponse<byte[]> response = http.send(HttpRequest.newBuilder(uri).timeout(READ_TIMEOUT).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        if (response.statusCode() != 200) {
            throw new IOException("local range of " + node + " answered HTTP " + response.statusCode());
        }
        byte[] body = response.body();
        int at = 0;
        while (at < body.length) {
            int keyEnd = at + HandoffKeys.KEY_BYTES;
            int valueEnd = keyEnd + 1 + HandoffKeys.VALUE_BYTES;
            if (valueEnd > body.length || body[keyEnd] != '\n') {
                throw new IOException("local range of " + node + ": not a " + HandoffKeys.PREFIX + " record at byte " + at);
            }
            long sequence = HandoffKeys.sequence(body, at, HandoffKeys.KEY_BYTES);
            if (sequence < 0) {
                throw new IOException("local range of " + node + ": unexpected key at byte " + at);
            }
            if (sequence < to && Arrays.equals(body, keyEnd + 1, valueEnd, keys.value(sequence), 0, HandoffKeys.VALUE_BYTES)) {
                missing.clear((int) sequence);
            }
            at = valueEnd;
        }
    }

    @Override
    public void close() {
        http.close();
    }
}
