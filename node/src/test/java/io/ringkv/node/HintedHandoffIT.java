package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.is;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hinted handoff between node processes: writes acknowledged by two of three nodes while the third
 * is SIGKILLed reach the third after it restarts, with no client reading those keys (a read would
 * repair them and hide whether hints did the work). Only local ranges are read, which repair nothing.
 */
@Timeout(180)
class HintedHandoffIT {
    private static final int KEYS = 40;
    private static final long CATCH_UP_DEADLINE_MILLIS = 60_000;

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
    void aNodeThatWasDownDuringWritesGetsThemFromHints() throws Exception {
        cluster.kill(2);
        List<String> written = new ArrayList<>();
        for (int i = 0; i < KEYS; i++) {
            String key = String.format("hint-%03d", i);
            // Through both live nodes, so that each of them has hints to hand off.
            assertThat(cluster.put(i % 2, key, "v" + i, "2/3").statusCode(), is(201));
            written.add(key);
        }
        cluster.restart(2);

        List<String> missing = missingOn(2, written);
        long deadline = System.currentTimeMillis() + CATCH_UP_DEADLINE_MILLIS;
        while (!missing.isEmpty() && System.currentTimeMillis() < deadline) {
            Thread.sleep(200);
            missing = missingOn(2, written);
        }
        assertThat("keys node-2 still lacks", missing, is(empty()));
    }

    private List<String> missingOn(int node, List<String> keys) throws Exception {
        List<String> present = cluster.localKeys(node, "hint-", "hint-~");
        List<String> missing = new ArrayList<>(keys);
        missing.removeAll(present);
        return missing;
    }
}
