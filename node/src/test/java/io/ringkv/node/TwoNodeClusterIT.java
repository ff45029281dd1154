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
 * A 2-node cluster of separate processes: default 2/2 and reads at 1/2 with a node down. The tests
 * share one cluster (a start of two JVMs costs seconds on a two-core machine): after each test the
 * node it killed is started again on its port and data, and both nodes are waited on to see each
 * other up; each test has keys of its own.
 */
class TwoNodeClusterIT {
    @TempDir
    static Path root;

    private static ProcessCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        cluster = new ProcessCluster(root, 2);
    }

    /** The node the test killed, started again, so that the next test finds both nodes up. */
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
    void get12SeesPut22WithOneReplicaDown() throws Exception {
        assertThat(cluster.put(0, "put22", "v", "2/2").statusCode(), is(201));
        cluster.kill(1);
        assertThat(cluster.get(0, "put22", "1/2").body(), is("v"));
    }

    @Test
    void get12SeesDelete22WithOneReplicaDown() throws Exception {
        assertThat(cluster.put(1, "delete22", "v", "2/2").statusCode(), is(201));
        assertThat(cluster.delete(0, "delete22", "2/2").statusCode(), is(202));
        assertThat(cluster.get(1, "delete22", "1/2").statusCode(), is(404));
        cluster.kill(1);
        assertThat(cluster.get(0, "delete22", "1/2").statusCode(), is(404));
    }

    @Test
    void theDefaultIsTwoOfTwoSoAWriteFailsWithANodeDown() throws Exception {
        cluster.kill(1);
        assertThat(cluster.put(0, "default22", "v", null).statusCode(), is(504));
        assertThat(cluster.put(0, "default22", "v", "1/2").statusCode(), is(201));
        assertThat(cluster.get(0, "default22", "1/2").body(), is("v"));
    }

    @Test
    void bothNodesCarryAWriteAtTwoOfTwo() throws Exception {
        assertThat(cluster.put(0, "both22", "v", null).statusCode(), is(201));
        assertThat(cluster.localKeys(0, "both22", "both23"), is(java.util.List.of("both22")));
        assertThat(cluster.localKeys(1, "both22", "both23"), is(java.util.List.of("both22")));
    }
}
