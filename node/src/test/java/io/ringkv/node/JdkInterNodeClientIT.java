package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --internode-client JDK} (the comparison setting) runs a working cluster too. */
class JdkInterNodeClientIT {
    @TempDir
    Path root;

    @Test
    void replicationWorksOverTheJdkClient() throws Exception {
        try (ProcessCluster cluster = new ProcessCluster(root, 3, List.of("--internode-client", "JDK"))) {
            assertThat(cluster.put(0, "k", "v", "3/3").statusCode(), is(201));
            assertThat(cluster.get(2, "k", "3/3").body(), is("v"));
            cluster.kill(1);
            assertThat(cluster.get(2, "k", "2/3").body(), is("v"));
            assertThat(cluster.put(2, "k", "w", "3/3").statusCode(), is(504));
        }
    }
}
