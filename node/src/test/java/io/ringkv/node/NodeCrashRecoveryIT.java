package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.is;

import io.ringkv.ops.LocalPorts;
import io.ringkv.ops.NodeProcess;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * No acknowledged write is lost when the node process is killed with SIGKILL: writes are in
 * flight when the kill lands, and every one that got its 201 must be there after a restart.
 */
class NodeCrashRecoveryIT {
    private static final int ACKS_BEFORE_KILL = 400;
    private static final int IN_FLIGHT = 16;

    @TempDir
    Path data;

    /** The current node's base URL; each start picks a fresh free port. */
    private String url;

    @Test
    void everyAcknowledgedWriteSurvivesSigkill() throws Exception {
        Set<String> acknowledged = ConcurrentHashMap.newKeySet();
        NodeProcess first = startNode();
        try (HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
            writeUntilAcknowledged(client, first, acknowledged);
            first.kill();
        } finally {
            first.stop(Duration.ofSeconds(5));
        }
        assertThat(acknowledged.size(), greaterThanOrEqualTo(ACKS_BEFORE_KILL));

        NodeProcess second = startNode();
        try (HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
            List<String> missing = new ArrayList<>();
            for (String key : acknowledged) {
                HttpResponse<String> got = client.send(get(url, key), BodyHandlers.ofString());
                if (got.statusCode() != 200 || !got.body().equals(valueOf(key))) {
                    missing.add(key + " -> " + got.statusCode());
                }
            }
            assertThat(missing, is(empty()));
        } finally {
            second.stop(Duration.ofSeconds(10));
        }
    }

    private NodeProcess startNode() throws Exception {
        int port = LocalPorts.free(1).getFirst();
        url = "http://127.0.0.1:" + port;
        NodeProcess node = new NodeProcess("crash-node", List.of("--port", Integer.toString(port), "--data", data.toString(), "--warm-up", "PT0S"),
                new PrintStream(OutputStream.nullOutputStream())).start();
        assertThat("node became ready", node.awaitReady(url, Duration.ofSeconds(60)), is(true));
        return node;
    }

    /** Keeps IN_FLIGHT writes going until enough are acknowledged; the kill lands while some are in flight. */
    private void writeUntilAcknowledged(HttpClient client, NodeProcess node, Set<String> acknowledged) throws Exception {
        Semaphore slots = new Semaphore(IN_FLIGHT);
        for (int i = 0; acknowledged.size() < ACKS_BEFORE_KILL; i++) {
            slots.acquire();
            String key = "key-" + i;
            HttpRequest put = HttpRequest.newBuilder(URI.create(url + "/v0/entity?id=" + key))
                    .PUT(BodyPublishers.ofString(valueOf(key))).build();
            CompletableFuture<HttpResponse<Void>> sent = client.sendAsync(put, BodyHandlers.discarding());
            sent.whenComplete((response, error) -> {
                if (response != null && response.statusCode() == 201) {
                    acknowledged.add(key);
                }
                slots.release();
            });
        }
    }

    private static HttpRequest get(String url, String key) {
        return HttpRequest.newBuilder(URI.create(url + "/v0/entity?id=" + key)).build();
    }

    private static String valueOf(String key) {
        return "value-of-" + key + "-" + "x".repeat(100);
    }
}
