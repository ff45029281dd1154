package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A 2-node cluster of separate processes: default 2/2 and reads at 1/2 with a node down. */
class TwoNodeClusterIT {
    @TempDir
    Path root;

    private ProcessCluster cluster;

    @BeforeEach
    void start() throws Exception {
        cluster = new ProcessCluster(root, 2);
    }

    @AfterEach
    void stop() {
        cluster.close();
    }

    @Test
    void get12SeesPut22WithOneReplicaDown() throws Exception {
        assertThat(cluster.put(0, "k", "v", "2/2").statusCode(), is(201));
        cluster.kill(1);
        assertThat(cluster.get(0, "k", "1/2").body(), is("v"));
    }

    @Test
    void get12SeesDelete22WithOneReplicaDown() throws Exception {
        assertThat(cluster.put(1, "k", "v", "2/2").statusCode(), is(201));
        assertThat(cluster.delete(0, "k", "2/2").statusCode(), is(202));
        assertThat(cluster.get(1, "k", "1/2").statusCode(), is(404));
        cluster.kill(1);
        assertThat(cluster.get(0, "k", "1/2").statusCode(), is(404));
    }

    @Test
    void theDefaultIsTwoOfTwoSoAWriteFailsWithANodeDown() throws Exception {
        cluster.kill(1);
        assertThat(cluster.put(0, "k", "v", null).statusCode(), is(504));
        assertThat(cluster.put(0, "k", "v", "1/2").statusCode(), is(201));
        assertThat(cluster.get(0, "k", "1/2").body(), is("v"));
    }

    @Test
    void bothNodesCarryAWriteAtTwoOfTwo() throws Exception {
        assertThat(cluster.put(0, "k", "v", null).statusCode(), is(201));
        assertThat(cluster.localKeys(0, "k", "l").size(), is(1));
        assertThat(cluster.localKeys(1, "k", "l").size(), is(1));
    }
}
