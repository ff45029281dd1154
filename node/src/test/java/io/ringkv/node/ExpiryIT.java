package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Expiry across three node processes: an expiring write reaches a node that was down through a
 * hint, expiry included; once expired, no node returns the key, and neither a read's repair nor an
 * anti-entropy round brings back the older value it replaced (each spreads the expired record,
 * the newest version). Periodic anti-entropy is an hour apart here, so the only rounds are the
 * ones {@code ringkv repair --wait} starts. Waits are bounded polls on what the nodes hold, or
 * for the machine's clock (which the nodes share) to pass an expiry the test read from a node.
 */
@Timeout(120)
class ExpiryIT {
    private static final long WAIT_MILLIS = 30_000;

    @TempDir
    Path root;

    private ProcessCluster cluster;

    @BeforeEach
    void start() throws Exception {
        cluster = new ProcessCluster(root, 3, List.of("--anti-entropy-interval", "PT1H"));
    }

    @AfterEach
    void stop() {
        cluster.close();
    }

    @Test
    void anExpiredKeyStaysAbsentEverywhereThroughHintsReadsAndRepair() throws Exception {
        // "handed": v1 everywhere, then v2 with a ttl while node-2 is down; node-2 gets v2 from a hint.
        assertThat(cluster.put(0, "handed", "v1", "3/3").statusCode(), is(201));
        cluster.kill(2);
        assertThat(cluster.send(0, "PUT", "/v0/entity?id=handed&replicas=2/3&ttl=2", "v2").statusCode(), is(201));
        StoredRecord.Copy written = StoredRecord.copy(cluster, 0, "handed").orElseThrow();
        assertThat("the coordinator stored the expiry", written.expiresAtMillis().isPresent(), is(true));
        cluster.restart(2);
        await("node-2 holds v2 from its hint", () -> StoredRecord.copy(cluster, 2, "handed")
                .map(copy -> copy.timestamp() == written.timestamp()).orElse(false));
        assertThat("the hint carried the expiry", StoredRecord.copy(cluster, 2, "handed").orElseThrow(), is(written));

        // "repaired": v1 everywhere, then v2 with a ttl on one node only (replicas=1/1): the other two keep v1.
        assertThat(cluster.put(0, "repaired", "v1", "3/3").statusCode(), is(201));
        long v1 = StoredRecord.copy(cluster, 0, "repaired").orElseThrow().timestamp();
        assertThat(cluster.send(0, "PUT", "/v0/entity?id=repaired&replicas=1/1&ttl=2", "v2").statusCode(), is(201));
        StoredRecord.Copy expiring = newestCopy("repaired");
        assertThat("one node holds v2, with its expiry", expiring.expiresAtMillis().isPresent() && expiring.timestamp() != v1, is(true));

        long expiry = Math.max(written.expiresAtMillis().getAsLong(), expiring.expiresAtMillis().getAsLong());
        await("the nodes' clock passed both expiries", () -> System.currentTimeMillis() > expiry);

        for (int node = 0; node < cluster.size(); node++) {
            assertThat("GET handed via node-" + node, cluster.get(node, "handed", null).statusCode(), is(404));
            assertThat("GET handed 3/3 via node-" + node, cluster.get(node, "handed", "3/3").statusCode(), is(404));
        }
        repairOnEveryNode();

        // The copies first: the reads below would repair a stale replica themselves.
        for (int node = 0; node < cluster.size(); node++) {
            assertThat("node-" + node + " holds the expired v2 of handed", StoredRecord.copy(cluster, node, "handed"),
                    is(Optional.of(written)));
            assertThat("node-" + node + " holds the expired v2 of repaired, sent by anti-entropy",
                    StoredRecord.copy(cluster, node, "repaired"), is(Optional.of(expiring)));
        }
        for (int node = 0; node < cluster.size(); node++) {
            for (String key : List.of("handed", "repaired")) {
                HttpResponse<String> get = cluster.get(node, key, null);
                assertThat("GET " + key + " via node-" + node + " after repair: " + get.body(), get.statusCode(), is(404));
                assertThat("GET " + key + " 3/3 via node-" + node, cluster.get(node, key, "3/3").statusCode(), is(404));
            }
            assertThat("node-" + node + "'s range", cluster.localKeys(node, "a", "z"), is(List.of()));
        }
    }

    /** The copy of {@code key} with the highest timestamp among the nodes. */
    private StoredRecord.Copy newestCopy(String key) {
        StoredRecord.Copy newest = null;
        for (int node = 0; node < cluster.size(); node++) {
            StoredRecord.Copy copy = StoredRecord.copy(cluster, node, key).orElseThrow();
            newest = newest == null || copy.timestamp() > newest.timestamp() ? copy : newest;
        }
        return newest;
    }

    private void repairOnEveryNode() throws Exception {
        for (int node = 0; node < cluster.size(); node++) {
            assertThat("repair on node-" + node, Main.run("repair", "--node", cluster.url(node), "--wait", "--timeout", "PT30S",
                    "--cluster-secret-file", cluster.secretFile().toString()), is(0));
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
