package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.is;

import java.io.InputStream;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Limits a three-node cluster of processes must keep: the largest key the public API accepts
 * replicates to every node, {@code --replica-timeout} beyond the old fixed 1.5 s deadline is
 * honoured, and cluster ranges beyond {@code --range-streams-max} get 503 instead of starving
 * other requests.
 *
 * <p>One cluster serves the class (a cluster start costs seconds of CPU), with both limits the
 * tests need: a 4 s replica timeout and two range streams at most. Each test writes keys of its
 * own first letter, and the range test ends with its stalled ranges given back.
 */
@Timeout(180)
class ClusterLimitsIT {
    @TempDir
    static Path root;

    private static ProcessCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        cluster = new ProcessCluster(root, 3, List.of("--replica-timeout", "PT4S", "--range-streams-max", "2"));
    }

    /** The node a test paused is seen up again by its peers before the next test writes through them. */
    @AfterEach
    void peersUp() throws Exception {
        cluster.awaitPeersUp();
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void theLargestAcceptedKeyReachesEveryReplica() throws Exception {
        String key = "k".repeat(PublicApi.KEY_BYTES_MAX);
        assertThat(cluster.put(0, key, "v", "3/3").statusCode(), is(201));
        for (int node = 0; node < 3; node++) {
            assertThat("node-" + node, cluster.localKeys(node, "k", "l"), contains(key));
        }
    }

    @Test
    void aReplicaTimeoutLongerThanTheOldDeadlineIsHonoured() throws Exception {
        cluster.pause(2);
        CompletableFuture<HttpResponse<String>> put = CompletableFuture.supplyAsync(() -> {
            try {
                return cluster.put(0, "patient", "v", "3/3");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(2_000); // past the old fixed deadline of 1.5 s, well within 4 s + 0.5 s
        cluster.resume(2);
        HttpResponse<String> answer = put.get(30, TimeUnit.SECONDS);
        assertThat("all three replicas acknowledged: " + answer.body(), answer.statusCode(), is(201));
    }

    @Test
    void rangesBeyondTheBoundAre503AndOtherRequestsAreServed() throws Exception {
        byte[] value = new byte[8192];
        java.util.Arrays.fill(value, (byte) 'x');
        String text = new String(value, StandardCharsets.US_ASCII);
        for (int i = 0; i < 600; i++) { // about 5 MB: more than the socket buffers of a reader that never reads
            assertThat(cluster.put(i % 3, String.format("r%04d", i), text, null).statusCode(), is(201));
        }
        List<Socket> stalled = new ArrayList<>();
        try {
            for (int i = 0; i < 2; i++) {
                stalled.add(openRangeAndNeverRead(cluster.port(0)));
            }
            Thread.sleep(1_000); // the two ranges are open and stuck on their readers
            assertThat(RawHttp.get(cluster.port(0), "/v0/entities?start=r").status(), is(503));
            assertThat(cluster.put(0, "other", "v", null).statusCode(), is(201));
            assertThat(cluster.get(0, "other", null).body(), is("v"));
        } finally {
            for (Socket socket : stalled) {
                socket.close();
            }
        }
        long deadline = System.currentTimeMillis() + 30_000;
        int status;
        do {
            Thread.sleep(200);
            status = RawHttp.get(cluster.port(0), "/v0/entities?start=r&end=r0002").status();
        } while (status == 503 && System.currentTimeMillis() < deadline);
        assertThat("a closed reader gives its range back", status, is(200));
    }

    private static Socket openRangeAndNeverRead(int port) throws Exception {
        Socket socket = new Socket("127.0.0.1", port);
        socket.setReceiveBufferSize(4096);
        socket.getOutputStream().write(("GET /v0/entities?start=r HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        InputStream in = socket.getInputStream();
        in.read(); // the head has started: the range is open
        return socket;
    }
}
