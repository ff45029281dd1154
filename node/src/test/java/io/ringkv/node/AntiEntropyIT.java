package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.is;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Anti-entropy between node processes: a node whose data directory is wiped (a replaced disk)
 * gets every key back from its peers, with no client reading those keys and no hints (every
 * write was acknowledged by all three nodes, so none was kept). The round is started with
 * {@code ringkv repair --node URL --wait}; the periodic rounds are an hour apart here.
 */
@Timeout(180)
class AntiEntropyIT {
    private static final int KEYS = 60;

    @TempDir
    Path root;

    private ProcessCluster cluster;

    @BeforeEach
    void start() throws Exception {
        cluster = new ProcessCluster(root, 3, List.of("--anti-entropy-interval", "PT1H"));
    }

    @AfterEach
    void stop() {
        cluster.close();
    }

    @Test
    void aWipedNodeGetsEveryKeyBackFromARepairRound() throws Exception {
        List<String> written = new ArrayList<>();
        for (int i = 0; i < KEYS; i++) {
            String key = String.format("ae-%03d", i);
            assertThat(cluster.put(i % 3, key, "v" + i, "3/3").statusCode(), is(201));
            written.add(key);
        }
        cluster.kill(2);
        deleteRecursively(root.resolve("node-2"));
        cluster.restart(2);
        assertThat("the wiped node starts empty", cluster.localKeys(2, "ae-", "ae-~"), is(empty()));

        for (int node = 0; node < 2; node++) {
            assertThat("repair on node-" + node, Main.run("repair", "--node", cluster.url(node), "--wait", "--timeout", "PT60S",
                    "--cluster-secret-file", cluster.secretFile().toString()), is(0));
        }

        List<String> missing = new ArrayList<>(written);
        missing.removeAll(cluster.localKeys(2, "ae-", "ae-~"));
        assertThat("keys node-2 still lacks", missing, is(empty()));
    }

    private static void deleteRecursively(Path dir) throws Exception {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
