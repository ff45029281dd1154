package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

import io.ringkv.cluster.ClusterNode;
import io.ringkv.cluster.ClusterNodes;
import io.ringkv.cluster.RendezvousPlacement;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Five node processes with {@code --replication-factor 3}: each key lives on exactly its three
 * owners (its first three nodes in rendezvous order), read through each node's own store (the
 * signed internal record read and the local range, which repair nothing); the default
 * {@code replicas} is 2/3; a cluster range returns every key once; anti-entropy brings a wiped
 * owner's keys back from the other owners and sends nobody a key it does not own; hints go only to
 * owners. Before replication factors, every key went to all five nodes (default 3/5), so the
 * exactly-three checks fail on the old code.
 *
 * <p>One cluster serves the three tests (five JVMs take long to start on a shared machine), each
 * with keys of its own prefix; periodic anti-entropy rounds are an hour apart, so that only what a
 * test starts moves keys. The test that wipes a node runs last.
 */
@Timeout(300)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReplicationFactorIT {
    private static final int NODES = 5;
    private static final int RF = 3;
    private static final int KEYS = 60;
    private static final long WAIT_MILLIS = 60_000;

    @TempDir
    static Path root;

    private static ProcessCluster cluster;

    @BeforeAll
    static void startCluster() throws Exception {
        // Five JVMs on a shared machine: a longer replica timeout than ProcessCluster's 1 s default.
        cluster = new ProcessCluster(root, NODES, List.of("--replication-factor", Integer.toString(RF), "--replica-timeout",
                "PT5S", "--anti-entropy-interval", "PT1H"));
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    @Order(1)
    void eachKeyLivesOnExactlyItsOwnersAndARangeReturnsEveryKeyOnce() throws Exception {
        Map<String, String> written = new TreeMap<>();
        for (int i = 0; i < KEYS; i++) {
            String key = String.format("rf-%03d", i);
            assertThat(cluster.put(i % NODES, key, "v" + i, null).statusCode(), is(201));
            written.put(key, "v" + i);
        }
        // Overwritten through another node: the range must show the newer value, once.
        assertThat(cluster.put(3, "rf-007", "newer", null).statusCode(), is(201));
        written.put("rf-007", "newer");

        // A default write is acknowledged by two owners; the third gets it a moment later.
        await("every key on exactly its three owners", () -> misplaced(written.keySet()).isEmpty());
        for (int node = 0; node < NODES; node++) {
            assertThat("node-" + node + " holds only keys it owns", new TreeSet<>(cluster.localKeys(node, "rf-", "rf-~")),
                    equalTo(owned(node, written.keySet())));
        }

        String keyView = new String(RawHttp.get(cluster.port(0), "/ui/api/key?id=rf-001").body(), StandardCharsets.UTF_8);
        assertThat(keyView, containsString("\"defaultReplicas\":\"2/3\""));
        for (int node = 0; node < NODES; node++) {
            assertThat("read through node-" + node, cluster.get(node, "rf-007", null).body(), is("newer"));
        }

        for (int node = 0; node < NODES; node++) {
            RawHttp.Reply range = RawHttp.get(cluster.port(node), "/v0/entities?start=rf-&end=rf-~");
            assertThat(range.status(), is(200));
            Map<String, String> seen = new TreeMap<>();
            for (byte[] chunk : range.chunks()) {
                String text = new String(chunk, StandardCharsets.UTF_8);
                String key = text.substring(0, text.indexOf('\n'));
                assertThat("key " + key + " once in the range of node-" + node, seen.containsKey(key), is(false));
                seen.put(key, text.substring(text.indexOf('\n') + 1));
            }
            assertThat("the range through node-" + node, seen, equalTo(written));
        }

        // An explicit from beyond the factor still works: the key goes to all five nodes.
        assertThat(cluster.put(1, "wide", "everywhere", "5/5").statusCode(), is(201));
        for (int node = 0; node < NODES; node++) {
            assertThat("node-" + node + " holds the 5/5 write", StoredRecord.of(cluster, node, "wide").isPresent(), is(true));
        }
        // ringkv cleanup drops the two copies beyond the owners (anti-entropy never would: it compares
        // only what both sides own), after handing them to the owners; a deleted key's tombstone moves too.
        assertThat(cluster.put(2, "wide-deleted", "gone", "5/5").statusCode(), is(201));
        assertThat(cluster.delete(2, "wide-deleted", "5/5").statusCode(), is(202));
        for (int node = 0; node < NODES; node++) {
            assertThat("cleanup on node-" + node, Main.run("cleanup", "--node", cluster.url(node), "--wait", "--timeout",
                    "PT60S", "--cluster-secret-file", cluster.secretFile().toString()), is(0));
        }
        assertThat("after cleanup", misplaced(Set.of("wide", "wide-deleted")), equalTo(Map.of()));
        for (int node = 0; node < NODES; node++) {
            assertThat("read through node-" + node, cluster.get(node, "wide", null).body(), is("everywhere"));
            assertThat("the delete holds through node-" + node, cluster.get(node, "wide-deleted", null).statusCode(), is(404));
        }
        assertThat("the keys written at the default replicas stayed where they were", misplaced(written.keySet()),
                equalTo(Map.of()));
    }

    /** The periodic rounds are an hour apart: only the repair rounds started here can move keys. */
    @Test
    @Order(3)
    void antiEntropyHealsAWipedOwnerFromTheOtherOwnersAndPushesNothingToNonOwners() throws Exception {
        Set<String> written = new TreeSet<>();
        for (int i = 0; i < KEYS; i++) {
            String key = String.format("ae-%03d", i);
            java.net.http.HttpResponse<String> put = cluster.put(i % NODES, key, "v" + i, null);
            assertThat(key + " through node-" + (i % NODES) + ": " + put.body(), put.statusCode(), is(201));
            written.add(key);
        }
        // Level before the wipe: the third owner of each key gets its write a moment after the ack.
        await("every key on exactly its three owners", () -> misplaced(written).isEmpty());
        int wiped = 4;
        assertThat("node-4 owns some keys", owned(wiped, written).isEmpty(), is(false));
        cluster.kill(wiped);
        deleteRecursively(root.resolve("node-" + wiped));
        cluster.restart(wiped);
        assertThat("the wiped node starts empty", cluster.localKeys(wiped, "ae-", "ae-~"), is(empty()));

        for (int node = 0; node < NODES; node++) {
            assertThat("repair on node-" + node, Main.run("repair", "--node", cluster.url(node), "--wait", "--timeout",
                    "PT60S", "--cluster-secret-file", cluster.secretFile().toString()), is(0));
        }
        for (int node = 0; node < NODES; node++) {
            assertThat("node-" + node + " after the rounds: exactly the keys it owns",
                    new TreeSet<>(cluster.localKeys(node, "ae-", "ae-~")), equalTo(owned(node, written)));
        }
    }

    /**
     * With one node down, default writes (2/3) still succeed, and the hints the coordinators keep go
     * to that node only for the keys it owns: after its restart it holds exactly those. Anti-entropy
     * is an hour apart, so only hints can bring them.
     */
    @Test
    @Order(2)
    void hintsGoOnlyToTheKeysOwners() throws Exception {
        int down = 2;
        cluster.kill(down);
        Set<String> written = new TreeSet<>();
        for (int i = 0; i < KEYS; i++) {
            String key = String.format("hint-%03d", i);
            int through = List.of(0, 1, 3, 4).get(i % 4);
            assertThat(cluster.put(through, key, "v" + i, null).statusCode(), is(201));
            written.add(key);
        }
        cluster.restart(down);
        Set<String> expected = owned(down, written);
        assertThat("node-2 owns some of the keys", expected.isEmpty(), is(false));
        await("node-2 has the keys it owns from hints",
                () -> new TreeSet<>(cluster.localKeys(down, "hint-", "hint-~")).equals(expected));
        await("every key on exactly its three owners", () -> misplaced(written).isEmpty());
        cluster.awaitPeersUp(); // the next test writes through every node
    }

    /** Keys not held by exactly their owners, each with the nodes that hold it. */
    private static Map<String, Set<Integer>> misplaced(Set<String> keys) throws Exception {
        Map<String, Set<Integer>> wrong = new TreeMap<>();
        for (String key : keys) {
            Set<Integer> holders = new TreeSet<>();
            for (int node = 0; node < NODES; node++) {
                if (StoredRecord.of(cluster, node, key).isPresent()) {
                    holders.add(node);
                }
            }
            if (!holders.equals(owners(key))) {
                wrong.put(key, holders);
            }
        }
        return wrong;
    }

    /** The indexes of {@code key}'s first {@value #RF} nodes in rendezvous order. */
    private static Set<Integer> owners(String key) {
        List<String> urls = IntStream.range(0, NODES).mapToObj(cluster::url).toList();
        List<ClusterNode> nodes = urls.stream().map(ClusterNode::parse).toList();
        RendezvousPlacement placement = new RendezvousPlacement(ClusterNodes.of(urls, urls.get(0)));
        Set<Integer> owners = new TreeSet<>();
        for (ClusterNode owner : placement.owners(key.getBytes(StandardCharsets.UTF_8), RF)) {
            owners.add(nodes.indexOf(owner));
        }
        return owners;
    }

    private static Set<String> owned(int node, Set<String> keys) {
        Set<String> owned = new TreeSet<>();
        for (String key : keys) {
            if (owners(key).contains(node)) {
                owned.add(key);
            }
        }
        return owned;
    }

    private interface Condition {
        boolean holds() throws Exception;
    }

    private static void await(String what, Condition condition) throws Exception {
        long deadline = System.currentTimeMillis() + WAIT_MILLIS;
        while (!condition.holds()) {
            if (System.currentTimeMillis() > deadline) {
                throw new AssertionError("not within " + WAIT_MILLIS + " ms: " + what);
            }
            Thread.sleep(200);
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
