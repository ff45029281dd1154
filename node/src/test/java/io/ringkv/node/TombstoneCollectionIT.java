package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;

import io.ringkv.ops.PrometheusText;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tombstone collection in three node processes. What each node holds is read through the internal
 * record endpoint ({@link StoredRecord}), which shows tombstones; public reads would repair.
 */
@Timeout(180)
class TombstoneCollectionIT {
    private static final String KEY = "deleted-key";
    private static final long WAIT_MILLIS = 60_000;

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
     * A deleted key stays deleted when a replica that missed the delete comes back, before its
     * tombstones are collected and after (15 s grace period, anti-entropy every second, hints at
     * most 10 s old).
     */
    @Test
    void aReplicaThatMissedTheDeleteDoesNotBringTheValueBack() throws Exception {
        cluster = new ProcessCluster(root, 3, List.of("--tombstone-grace", "PT15S", "--anti-entropy-interval", "PT1S",
                "--hint-max-age", "PT10S"));
        assertThat(cluster.put(0, KEY, "old value", "3/3").statusCode(), is(201));
        cluster.kill(2);
        assertThat(cluster.delete(0, KEY, "2/3").statusCode(), is(202));
        cluster.restart(2); // still holds "old value"

        await("node-2 holds the tombstone", () -> stored(2).equals(Optional.of(StoredRecord.TOMBSTONE)));
        for (int node = 0; node < 3; node++) {
            assertThat("GET through node-" + node + " before collection", cluster.get(node, KEY, "3/3").statusCode(), is(404));
        }

        await("every node collected the tombstone", () -> stored(0).isEmpty() && stored(1).isEmpty() && stored(2).isEmpty());
        for (int node = 0; node < 3; node++) {
            assertThat("repair on node-" + node, Main.run("repair", "--node", cluster.url(node), "--wait", "--timeout", "PT60S",
                    "--cluster-secret-file", cluster.secretFile().toString()), is(0));
        }
        for (int node = 0; node < 3; node++) {
            assertThat("node-" + node + " after collection and repair", stored(node), is(Optional.empty()));
            assertThat("GET through node-" + node + " after collection", cluster.get(node, KEY, "3/3").statusCode(), is(404));
        }
    }

    /**
     * A node whose wall clock runs far ahead (10 s, against a 5 s grace period and the 0.5 s clock
     * bound) would find every tombstone past its grace as soon as it arrives. Its peers refuse its
     * clock, so it collects nothing, while the two healthy nodes collect the tombstone on time.
     * Before, it collected by its own clock: the tombstone was gone from it at once (issue 32,
     * item 9), while a replica that missed the delete could still send it the old value.
     */
    @Test
    void aNodeWhoseClockIsRefusedByItsPeersCollectsNoTombstones() throws Exception {
        cluster = new ProcessCluster(root, 3, List.of("--tombstone-grace", "PT5S", "--anti-entropy-interval", "PT4S",
                "--hint-max-age", "PT4S"), Map.of(0, List.of("--clock-offset-for-tests", "PT10S")));
        assertThat(cluster.put(1, KEY, "v", "3/3").statusCode(), is(201));
        assertThat("the delete, on every node", cluster.delete(1, KEY, "3/3").statusCode(), is(202));

        await("the healthy nodes collected the tombstone", () -> stored(1).isEmpty() && stored(2).isEmpty());
        assertThat("node-0, when the healthy nodes collected", stored(0), is(Optional.of(StoredRecord.TOMBSTONE)));
        // Two more sweep times on node-0, so that at least one whole sweep began after that.
        double sweeps = sweeps(0);
        await("node-0 passed two more sweeps", () -> sweeps(0) >= sweeps + 2);
        assertThat("node-0 after two more sweeps", stored(0), is(Optional.of(StoredRecord.TOMBSTONE)));
        PrometheusText metrics = metrics(0);
        assertThat(metrics.sum("ringkv_tombstones_collected_total", s -> true), is(0.0));
        assertThat(metrics.sum("ringkv_tombstone_sweeps_total", s -> s.label("outcome").equals("skipped")), greaterThan(0.0));
        assertThat("the healthy node-1 collected it",
                metrics(1).sum("ringkv_tombstones_collected_total", s -> true), is(1.0));
    }

    private Optional<String> stored(int node) {
        return StoredRecord.of(cluster, node, KEY);
    }

    /** Sweeps the node ran or skipped, from its metrics. */
    private double sweeps(int node) {
        return metrics(node).sum("ringkv_tombstone_sweeps_total", s -> true);
    }

    private PrometheusText metrics(int node) {
        try {
            RawHttp.Reply reply = RawHttp.get(cluster.port(node), "/metrics");
            assertThat("GET /metrics of node-" + node, reply.status(), is(200));
            return PrometheusText.parse(new String(reply.body(), StandardCharsets.UTF_8));
        } catch (java.io.IOException e) {
            throw new AssertionError("cannot read node-" + node + "'s metrics", e);
        }
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.currentTimeMillis() + WAIT_MILLIS;
        while (!condition.getAsBoolean()) {
            if (System.currentTimeMillis() > deadline) {
                throw new AssertionError("not within " + WAIT_MILLIS + " ms: " + what);
            }
            Thread.sleep(100);
        }
    }
}
