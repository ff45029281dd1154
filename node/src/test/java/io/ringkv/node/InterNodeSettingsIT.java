package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The comparison settings of the inter-node path run a working cluster too: HTTP/1.1 with our
 * client, the JDK's client (HTTP/1.1 only), and replica writes one request each or in more
 * batches at once.
 */
class InterNodeSettingsIT {
    @TempDir
    Path root;

    @ParameterizedTest
    @ValueSource(strings = {"--internode-client JDK", "--internode-client RING", "--internode-protocol h1", "--internode-connections 2",
            "--internode-batches 0", "--internode-batches 3"})
    void replicationWorksOverEveryInterNodeSetting(String flags) throws Exception {
        try (ProcessCluster cluster = new ProcessCluster(root, 3, List.of(flags.split(" ")))) {
            assertThat(cluster.put(0, "k", "v", "3/3").statusCode(), is(201));
            assertThat(cluster.get(2, "k", "3/3").body(), is("v"));
            cluster.kill(1);
            assertThat(cluster.get(2, "k", "2/3").body(), is("v"));
            assertThat(cluster.put(2, "k", "w", "3/3").statusCode(), is(504));
        }
    }
}
