package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Convergence with values near the request body limit, between node processes. The nodes run with
 * a small {@code --max-body} so that a few values fill a request: what holds here for 100 KB values
 * under a 256 KiB limit holds for the default 16 MiB limit with larger values.
 *
 * <p>Node-2's copy is read from its local range ({@code local=true}), which repairs nothing, and
 * periodic anti-entropy is an hour away, so what reaches node-2 came by the path under test.
 */
@Timeout(240)
class LargeValuesIT {
    private static final int MAX_BODY = 256 * 1024;
    private static final int VALUE_BYTES = 100_000;
    private static final long CATCH_UP_DEADLINE_MILLIS = 120_000;

    @TempDir
    Path root;

    private ProcessCluster cluster;

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    /**
     * Hints for a replica that was down: 60 values of 100 KB and one of exactly {@code --max-body}
     * reach it once it is back, by hint replay alone. Before, replay sent up to 256 hints in one
     * request whatever their size; the peer answered 413 to every round and node-2 got nothing.
     */
    @Test
    void hintsOfLargeValuesDrainToAReplicaThatWasDown() throws Exception {
        cluster = new ProcessCluster(root, 3, List.of("--max-body", Integer.toString(MAX_BODY),
                "--anti-entropy-interval", "PT1H"));
        cluster.kill(2);
        Map<String, Integer> written = new TreeMap<>();
        for (int i = 0; i < 60; i++) {
            written.put(String.format("big-%03d", i), VALUE_BYTES);
        }
        written.put("big-030x", MAX_BODY); // amid the others in key order, and at the public limit
        int i = 0;
        for (Map.Entry<String, Integer> entry : written.entrySet()) {
            // Through both live nodes, so that each of them has hints to hand off.
            assertThat(entry.getKey(), cluster.put(i++ % 2, entry.getKey(), value(entry.getValue()), "2/3").statusCode(),
                    is(201));
        }
        cluster.restart(2);

        assertThat("keys and value sizes on node-2", awaitLocal(2, written), is(written));
    }

    /**
     * Anti-entropy past a record the peer refuses: node-2 runs with half the others' {@code --max-body}
     * (as during a rolling change of the flag), so it refuses their batches and, sent alone, the one
     * value over its limit; every other key, before and after that one in the scan, still reaches it.
     * Hints are off, so only the repair rounds can bring the keys. Before, the first refused batch
     * ended the comparison with node-2, which got nothing.
     */
    @Test
    void antiEntropyDeliversEveryRecordButTheOneThePeerRefuses() throws Exception {
        String half = Integer.toString(MAX_BODY / 2);
        cluster = new ProcessCluster(root, 3, List.of("--hint-max-per-node", "0", "--anti-entropy-interval", "PT1H"),
                Map.of(0, List.of("--max-body", Integer.toString(MAX_BODY)), 1, List.of("--max-body", Integer.toString(MAX_BODY)),
                        2, List.of("--max-body", half)));
        cluster.kill(2);
        Map<String, Integer> written = new TreeMap<>();
        for (int i = 0; i < 40; i++) {
            written.put(String.format("big-%03d", i), i == 20 ? 200_000 : VALUE_BYTES);
        }
        int i = 0;
        for (Map.Entry<String, Integer> entry : written.entrySet()) {
            assertThat(entry.getKey(), cluster.put(i++ % 2, entry.getKey(), value(entry.getValue()), "2/3").statusCode(),
                    is(201));
        }
        cluster.restart(2);
        for (int node = 0; node < 2; node++) {
            assertThat("repair on node-" + node, Main.run("repair", "--node", cluster.url(node), "--wait", "--timeout", "PT60S",
                    "--cluster-secret-file", cluster.secretFile().toString()), is(0));
        }

        Map<String, Integer> expected = new TreeMap<>(written);
        expected.remove("big-020");
        assertThat("keys and value sizes on node-2", localValueSizes(2), is(expected));
    }

    /**
     * Reads node {@code node}'s own copy of the {@code big-} keys until it matches {@code expected}
     * or the deadline passes; returns the last read (key to value size).
     */
    private Map<String, Integer> awaitLocal(int node, Map<String, Integer> expected) throws Exception {
        long deadline = System.currentTimeMillis() + CATCH_UP_DEADLINE_MILLIS;
        Map<String, Integer> held = localValueSizes(node);
        while (!held.equals(expected) && System.currentTimeMillis() < deadline) {
            Thread.sleep(500);
            held = localValueSizes(node);
        }
        return held;
    }

    private Map<String, Integer> localValueSizes(int node) throws Exception {
        RawHttp.Reply reply = RawHttp.get(cluster.port(node), "/v0/entities?start=big-&end=big-~&local=true");
        assertThat(reply.status(), is(200));
        Map<String, Integer> sizes = new TreeMap<>();
        for (byte[] chunk : reply.chunks()) {
            int newline = indexOf(chunk, (byte) '\n');
            sizes.put(new String(chunk, 0, newline, StandardCharsets.UTF_8), chunk.length - newline - 1);
        }
        return sizes;
    }

    private static int indexOf(byte[] bytes, byte wanted) {
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == wanted) {
                return i;
            }
        }
        throw new AssertionError("no key separator in a range chunk");
    }

    private static String value(int bytes) {
        return "v".repeat(bytes);
    }
}
