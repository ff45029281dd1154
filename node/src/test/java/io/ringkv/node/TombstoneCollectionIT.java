package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import io.ringkv.cluster.ClusterSecret;
import io.ringkv.cluster.InternalAuth;
import io.ringkv.cluster.InternalProtocol;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A deleted key stays deleted when a replica that missed the delete comes back, before its
 * tombstones are collected and after: three node processes with a 15 s grace period (anti-entropy
 * every second, hints at most 10 s old). What each node holds is read through the internal record
 * endpoint (signed with the cluster secret), which shows tombstones; public reads would repair.
 */
@Timeout(180)
class TombstoneCollectionIT {
    private static final String KEY = "deleted-key";
    private static final long WAIT_MILLIS = 60_000;

    @TempDir
    Path root;

    private ProcessCluster cluster;

    @BeforeEach
    void start() throws Exception {
        cluster = new ProcessCluster(root, 3, List.of("--tombstone-grace", "PT15S", "--anti-entropy-interval", "PT1S",
                "--hint-max-age", "PT10S"));
    }

    @AfterEach
    void stop() {
        cluster.close();
    }

    @Test
    void aReplicaThatMissedTheDeleteDoesNotBringTheValueBack() throws Exception {
        assertThat(cluster.put(0, KEY, "old value", "3/3").statusCode(), is(201));
        cluster.kill(2);
        assertThat(cluster.delete(0, KEY, "2/3").statusCode(), is(202));
        cluster.restart(2); // still holds "old value"

        await("node-2 holds the tombstone", () -> stored(2).equals(Optional.of("tombstone")));
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

    /** What the node stores for the key: empty, "tombstone" or "value". */
    private Optional<String> stored(int node) {
        try {
            String key = java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(KEY.getBytes(StandardCharsets.UTF_8));
            String target = InternalProtocol.RECORD_PATH + "?key=" + key;
            InternalAuth auth = new InternalAuth(ClusterSecret.fromFile(cluster.secretFile()), "tombstone-test",
                    topology(node), System::currentTimeMillis);
            RawHttp.Reply reply = RawHttp.send(cluster.port(node), "GET", target, auth.sign(cluster.url(node), "GET", target, Map.of(), new byte[0]),
                    new byte[0]);
            if (reply.status() == 404) {
                return Optional.empty();
            }
            return Optional.of("true".equals(reply.headers().get("x-ringkv-tombstone")) ? "tombstone" : "value");
        } catch (Exception e) {
            throw new AssertionError("cannot read node-" + node + "'s record", e);
        }
    }

    /** The node's topology fingerprint, from its status. */
    private String topology(int node) throws Exception {
        String status = new String(RawHttp.get(cluster.port(node), "/v0/status").body(), StandardCharsets.UTF_8);
        return JsonText.stringField(status, "topology").orElseThrow(() -> new AssertionError("no topology in the status of node-" + node + ": " + status));
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
