package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A 3-node cluster of separate processes through failures: quorum reads and writes with a node
 * killed, a stale replica coming back, too few live replicas, a restarted node's data. Each test
 * kills or restarts nodes, so each starts a cluster of its own; the tests with every node up share
 * one in {@link ThreeNodeHealthyClusterIT}.
 */
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
    void aRestartedNodeServesAgainWithItsData() throws Exception {
        assertThat(cluster.put(0, "k", "v", "3/3").statusCode(), is(201));
        cluster.kill(1);
        cluster.restart(1);
        assertThat(cluster.get(1, "k", "3/3").body(), is("v"));
    }
}
