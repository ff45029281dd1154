package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A 3-node cluster of separate processes through failures: quorum reads and writes with a node
 * killed, a stale replica coming back, too few live replicas, a restarted node's data. The tests
 * share one cluster (starting one costs seconds of three JVMs' start-up on a two-core machine, a
 * node's restart a third of that): after each test every node it killed is started again on its
 * port and data, and every node sees the others up before the next test; each test has keys of
 * its own. The tests with every node up are in {@link ThreeNodeHealthyClusterIT}.
 */
class ThreeNodeClusterIT {
    @TempDir
    static Path root;

    private static ProcessCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        cluster = new ProcessCluster(root, 3);
    }

    /** Every node the test killed, started again, so that the next test finds three nodes up. */
    @AfterEach
    void restartKilled() throws Exception {
        boolean restarted = false;
        for (int i = 0; i < cluster.size(); i++) {
            if (!cluster.alive(i)) {
                cluster.restart(i);
                restarted = true;
            }
        }
        if (restarted) {
            cluster.awaitPeersUp();
        }
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void get23SeesPut23WithOneReplicaDown() throws Exception {
        cluster.kill(2);
        assertThat(cluster.put(0, "put23", "written-while-down", "2/3").statusCode(), is(201));
        assertThat(cluster.get(1, "put23", "2/3").body(), is("written-while-down"));
    }

    @Test
    void get23SeesDelete23EvenWhenTheStaleReplicaComesBack() throws Exception {
        assertThat(cluster.put(0, "delete23", "old", "3/3").statusCode(), is(201));
        cluster.kill(2);
        assertThat(cluster.delete(0, "delete23", "2/3").statusCode(), is(202));
        assertThat(cluster.get(1, "delete23", "2/3").statusCode(), is(404));
        cluster.restart(2);
        cluster.kill(0);
        // Node 2 still holds "old"; node 1 holds the newer tombstone: the freshest of two wins.
        assertThat(cluster.get(2, "delete23", "2/3").statusCode(), is(404));
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
        assertThat(cluster.put(0, "too-few", "v", "3/3").statusCode(), is(504));
        cluster.kill(2);
        assertThat(cluster.put(0, "too-few", "v", null).statusCode(), is(504));
        assertThat(cluster.get(0, "too-few", null).statusCode(), is(504));
        assertThat(cluster.delete(0, "too-few", null).statusCode(), is(504));
    }

    @Test
    void aRestartedNodeServesAgainWithItsData() throws Exception {
        assertThat(cluster.put(0, "restarted", "v", "3/3").statusCode(), is(201));
        cluster.kill(1);
        cluster.restart(1);
        assertThat(cluster.get(1, "restarted", "3/3").body(), is("v"));
    }
}
