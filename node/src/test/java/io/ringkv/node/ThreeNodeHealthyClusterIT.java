package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A 3-node cluster of separate processes with every node up: default 2/3, exact copies per
 * replicas, replicas beyond the cluster size, range merge. No test here kills, restarts or
 * reconfigures a node, so they share one cluster (starting one costs seconds of three JVMs'
 * start-up on a two-core machine); what one test writes lies outside the keys and ranges the
 * others read. The tests with failures are in {@link ThreeNodeClusterIT}.
 */
class ThreeNodeHealthyClusterIT {
    @TempDir
    static Path root;

    private static ProcessCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        cluster = new ProcessCluster(root, 3);
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void anyNodeServesAnyKeyWithTheDefaultTwoOfThree() throws Exception {
        assertThat(cluster.put(0, "k", "v", null).statusCode(), is(201));
        for (int node = 0; node < 3; node++) {
            assertThat(cluster.get(node, "k", null).body(), is("v"));
        }
        assertThat(cluster.delete(2, "k", null).statusCode(), is(202));
        assertThat(cluster.get(1, "k", null).statusCode(), is(404));
    }

    @Test
    void aWriteStoresExactlyFromCopies() throws Exception {
        for (int i = 0; i < 20; i++) {
            assertThat(cluster.put(i % 3, "two-" + i, "v", "2/2").statusCode(), is(201));
            assertThat(cluster.put(i % 3, "one-" + i, "v", "1/1").statusCode(), is(201));
        }
        assertThat(copies("two-"), is(40));
        assertThat(copies("one-"), is(20));
    }

    private int copies(String prefix) throws Exception {
        int copies = 0;
        for (int node = 0; node < 3; node++) {
            copies += cluster.localKeys(node, prefix, prefix + "~").size();
        }
        return copies;
    }

    @Test
    void replicasBeyondTheClusterSizeIs400() throws Exception {
        assertThat(cluster.get(0, "k", "1/4").statusCode(), is(400));
        assertThat(cluster.put(0, "k", "v", "4/4").statusCode(), is(400));
        assertThat(cluster.put(0, "k", "v", "3/2").statusCode(), is(400));
    }

    @Test
    void clusterRangeMergesFreshestVersionsAndDropsDeletes() throws Exception {
        assertThat(cluster.put(0, "a", "a-old", "3/3").statusCode(), is(201));
        assertThat(cluster.put(1, "a", "a-new", "1/1").statusCode(), is(201));
        assertThat(cluster.put(0, "b", "b", "3/3").statusCode(), is(201));
        assertThat(cluster.delete(2, "b", "1/1").statusCode(), is(202));
        assertThat(cluster.put(2, "c", "c-only-on-one", "1/1").statusCode(), is(201));
        assertThat(cluster.put(0, "d", "d", "2/3").statusCode(), is(201));
        assertThat(cluster.put(0, "e", "outside", "3/3").statusCode(), is(201));

        List<String> expected = List.of("a\na-new", "c\nc-only-on-one", "d\nd");
        for (int node = 0; node < 3; node++) {
            RawHttp.Reply reply = RawHttp.get(cluster.port(node), "/v0/entities?start=a&end=e");
            assertThat(reply.status(), is(200));
            assertThat(texts(reply), equalTo(expected));
        }
    }

    private static List<String> texts(RawHttp.Reply reply) {
        List<String> texts = new ArrayList<>();
        reply.chunks().forEach(c -> texts.add(new String(c, java.nio.charset.StandardCharsets.UTF_8)));
        return texts;
    }
}
