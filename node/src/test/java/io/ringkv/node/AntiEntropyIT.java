package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.is;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Anti-entropy between node processes: a node whose data directory is wiped (a replaced disk)
 * gets every key back from its peers, with no client reading those keys and no hints (every
 * write was acknowledged by all three nodes, so none was kept). The round is started with
 * {@code ringkv repair --node URL --wait}.
 */
@Timeout(180)
class AntiEntropyIT {
    private static final int KEYS = 60;
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

    /** The periodic rounds are an hour apart here: only the repair rounds can bring the keys back. */
    @Test
    void aWipedNodeGetsEveryKeyBackFromARepairRound() throws Exception {
        cluster = new ProcessCluster(root, 3, List.of("--anti-entropy-interval", "PT1H"));
        List<String> written = writeKeys("ae-");

        wipeAndRestart(2);
        assertThat("the wiped node starts empty", cluster.localKeys(2, "ae-", "ae-~"), is(empty()));
        repairOn(0, 1);

        assertThat("keys node-2 still lacks", missingOn(2, written, "ae-"), is(empty()));
    }

    /**
     * Keys older than the tombstone grace period come back to a wiped node too: only a tombstone
     * that old may be withheld from a peer that lacks its key (the peer may have collected it);
     * a value never is. Before, anti-entropy withheld every record older than the grace period,
     * so the wiped node got back none of those keys (issue 32, item 7). A marker key deleted after
     * the writes tells when they are older than the grace period: once both other nodes have
     * collected its tombstone.
     */
    @Test
    void aWipedNodeGetsBackKeysOlderThanTheTombstoneGracePeriod() throws Exception {
        cluster = new ProcessCluster(root, 3, List.of("--tombstone-grace", "PT5S", "--anti-entropy-interval", "PT4S",
                "--hint-max-age", "PT4S"));
        List<String> written = writeKeys("old-");
        assertThat(cluster.delete(0, "marker", "3/3").statusCode(), is(202));
        await("node-0 and node-1 collected the marker's tombstone",
                () -> StoredRecord.of(cluster, 0, "marker").isEmpty() && StoredRecord.of(cluster, 1, "marker").isEmpty());

        // Not asserted here, unlike above, that node-2 starts empty: with rounds every 4 s, a
        // periodic round of node-0 or node-1 may refill it before the check (CI saw that). What
        // the test proves does not depend on which round does it: nothing but anti-entropy can
        // bring these keys back (no reads, no hints), and before the fix none of its rounds did.
        wipeAndRestart(2);
        repairOn(0, 1);

        assertThat("keys node-2 still lacks", missingOn(2, written, "old-"), is(empty()));
        assertThat("the marker stays deleted on node-2", StoredRecord.of(cluster, 2, "marker"), is(Optional.empty()));
    }

    /** {@value #KEYS} keys written through every node in turn, acknowledged by all three. */
    private List<String> writeKeys(String prefix) throws Exception {
        List<String> written = new ArrayList<>();
        for (int i = 0; i < KEYS; i++) {
            String key = String.format("%s%03d", prefix, i);
            assertThat(cluster.put(i % 3, key, "v" + i, "3/3").statusCode(), is(201));
            written.add(key);
        }
        return written;
    }

    private void wipeAndRestart(int node) throws Exception {
        cluster.kill(node);
        Path data = root.resolve("node-" + node);
        deleteRecursively(data);
        assertThat("node-" + node + "'s data directory is gone", Files.exists(data), is(false));
        cluster.restart(node);
    }

    private void repairOn(int... nodes) throws Exception {
        for (int node : nodes) {
            assertThat("repair on node-" + node, Main.run("repair", "--node", cluster.url(node), "--wait", "--timeout", "PT60S",
                    "--cluster-secret-file", cluster.secretFile().toString()), is(0));
        }
    }

    private List<String> missingOn(int node, List<String> written, String prefix) throws Exception {
        List<String> missing = new ArrayList<>(written);
        missing.removeAll(cluster.localKeys(node, prefix, prefix + "~"));
        return missing;
    }

    private static void await(String what, java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.currentTimeMillis() + WAIT_MILLIS;
        while (!condition.getAsBoolean()) {
            if (System.currentTimeMillis() > deadline) {
                throw new AssertionError("not within " + WAIT_MILLIS + " ms: " + what);
            }
            Thread.sleep(100);
        }
    }

    private static void deleteRecursively(Path dir) throws Exception {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
