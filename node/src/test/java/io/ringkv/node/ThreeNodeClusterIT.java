package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A 3-node cluster of separate processes: default 2/3, partial writes, failures, range merge. */
class ThreeNodeClusterIT {
    @TempDir
    Path root;

    private ProcessCluster cluster;

    @BeforeEach
    void start() throws Exception {
        cluster = new ProcessCluster(root, 3);
    }

    @AfterEach
    void stop() {
        cluster.close();
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
    void get23SeesPut23WithOneReplicaDown() throws Exception {
        cluster.kill(2);
        assertThat(cluster.put(0, "k", "written-while-down", "2/3").statusCode(), is(201));
        assertThat(cluster.get(1, "k", "2/3").body(), is("written-while-down"));
    }

    @Test
    void get23SeesDelete23EvenWhenTheStaleReplicaComesBack() throws Exception {
        assertThat(cluster.put(0, "k", "old", "3/3").statusCode(), is(201));
        cluster.kill(2);
        assertThat(cluster.delete(0, "k", "2/3").statusCode(), is(202));
        assertThat(cluster.get(1, "k", "2/3").statusCode(), is(404));
        cluster.restart(2);
        cluster.kill(0);
        // Node 2 still holds "old"; node 1 holds the newer tombstone: the freshest of two wins.
        assertThat(cluster.get(2, "k", "2/3").statusCode(), is(404));
    }

    @Test
    void quorumReadsAndWritesSurviveTheLossOfOneNode() throws Exception {
        for (int i = 0; i < 30; i++) {
            assertThat(cluster.put(i % 3, "key" + i, "value" + i, null).statusCode(), is(201));
        }
        for (int down = 0; down < 3; down++) {
            cluster.kill(down);
            int coordinator = (down + 1) % 3;
            for (int i = 0; i < 30; i++) {
                assertThat(cluster.get(coordinator, "key" + i, null).body(), is("value" + i));
            }
            cluster.restart(down);
        }
    }

    @Test
    void tooFewLiveReplicasIs504() throws Exception {
        cluster.kill(1);
        assertThat(cluster.put(0, "k", "v", "3/3").statusCode(), is(504));
        cluster.kill(2);
        assertThat(cluster.put(0, "k", "v", null).statusCode(), is(504));
        assertThat(cluster.get(0, "k", null).statusCode(), is(504));
        assertThat(cluster.delete(0, "k", null).statusCode(), is(504));
    }

    @Test
    void replicasBeyondTheClusterSizeIs400() throws Exception {
        assertThat(cluster.get(0, "k", "1/4").statusCode(), is(400));
        assertThat(cluster.put(0, "k", "v", "4/4").statusCode(), is(400));
        assertThat(cluster.put(0, "k", "v", "3/2").statusCode(), is(400));
    }

    @Test
    void aRestartedNodeServesAgainWithItsData() throws Exception {
        assertThat(cluster.put(0, "k", "v", "3/3").statusCode(), is(201));
        cluster.kill(1);
        cluster.restart(1);
        assertThat(cluster.get(1, "k", "3/3").body(), is("v"));
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
            RawHttp.Reply reply = RawHttp.get(portOf(node), "/v0/entities?start=a&end=e");
            assertThat(reply.status(), is(200));
            assertThat(texts(reply), equalTo(expected));
        }
    }

    private int portOf(int node) {
        String url = cluster.url(node);
        return Integer.parseInt(url.substring(url.lastIndexOf(':') + 1));
    }

    private static List<String> texts(RawHttp.Reply reply) {
        List<String> texts = new ArrayList<>();
        reply.chunks().forEach(c -> texts.add(new String(c, java.nio.charset.StandardCharsets.UTF_8)));
        return texts;
    }
}
