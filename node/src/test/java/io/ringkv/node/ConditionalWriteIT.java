package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;

import io.ringkv.cluster.ClusterSecret;
import io.ringkv.cluster.InternalAuth;
import io.ringkv.ops.JsonText;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Conditional writes on a three-node cluster of separate processes: each precondition through
 * every node; concurrent writers through every node, each round all naming the same version,
 * of whom at most one may win (and the key then holds the winner's value); the same while one
 * node is killed with SIGKILL and restarted; and Paxos messages forged by a peer that holds the
 * cluster secret, refused (400) without effect. The tests share one cluster (starting one costs
 * seconds of three JVMs' start-up on a two-core machine); the one that kills node-2 starts it
 * again, and the two that race writers use keys of their own.
 */
@Timeout(600)
class ConditionalWriteIT {
    private static final int WRITERS = 3;

    /** The cluster of the tests that kill no node: each writes keys the others do not touch. */
    private static ProcessCluster shared;

    private ProcessCluster cluster;
    private HttpClient client;
    private ExecutorService writers;

    @BeforeAll
    static void startShared(@TempDir Path root) throws Exception {
        shared = new ProcessCluster(root, 3, List.of());
    }

    @AfterAll
    static void stopShared() {
        if (shared != null) {
            shared.close();
        }
    }

    @BeforeEach
    void start() {
        cluster = shared;
        client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(2)).build();
        writers = Executors.newFixedThreadPool(WRITERS);
    }

    @AfterEach
    void stop() throws Exception {
        writers.shutdownNow();
        client.close();
        // A test that failed after killing node-2, before starting it again, leaves the next test three nodes.
        if (!cluster.alive(2)) {
            cluster.restart(2);
            cluster.awaitPeersUp();
        }
    }

    private HttpResponse<String> send(int node, String method, String id, String body, String... headers) throws Exception {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(cluster.url(node) + "/v0/entity?id=" + id))
                .timeout(Duration.ofSeconds(30))
                .method(method, body == null ? BodyPublishers.noBody() : BodyPublishers.ofString(body));
        for (int i = 0; i < headers.length; i += 2) {
            builder.header(headers[i], headers[i + 1]);
        }
        return client.send(builder.build(), BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    private static String etag(HttpResponse<String> response) {
        return response.headers().firstValue("ETag").orElseThrow(() -> new AssertionError("no ETag: " + response));
    }

    @Test
    void everyPreconditionThroughEveryNode() throws Exception {
        HttpResponse<String> created = send(0, "PUT", "k", "v1", "If-None-Match", "*");
        assertThat(created.statusCode(), is(201));
        String v1 = etag(created);
        assertThat("create-only through another node", send(1, "PUT", "k", "again", "If-None-Match", "*").statusCode(), is(412));
        for (int node = 0; node < 3; node++) {
            assertThat(etag(send(node, "GET", "k", null)), is(v1));
        }
        HttpResponse<String> updated = send(2, "PUT", "k", "v2", "If-Match", v1);
        assertThat(updated.statusCode(), is(201));
        String v2 = etag(updated);
        HttpResponse<String> stale = send(0, "PUT", "k", "v3", "If-Match", v1);
        assertThat(stale.statusCode(), is(412));
        assertThat(etag(stale), is(v2));
        assertThat(send(1, "PUT", "k", "v3", "If-Unmodified-Since", "Sun, 06 Nov 1994 08:49:37 GMT").statusCode(), is(412));
        assertThat(send(1, "GET", "k", null).body(), is("v2"));
        assertThat(send(1, "PUT", "k", "v3", "If-Match", "not a tag").statusCode(), is(400));
        assertThat(send(0, "DELETE", "k", null, "If-Match", v1).statusCode(), is(412));
        assertThat(send(2, "DELETE", "k", null, "If-Match", v2).statusCode(), is(204));
        for (int node = 0; node < 3; node++) {
            assertThat(send(node, "GET", "k", null).statusCode(), is(404));
        }
        assertThat("deleted counts as absent", send(1, "PUT", "k", "v4", "If-None-Match", "*").statusCode(), is(201));
    }

    @Test
    void concurrentWritersThroughEveryNodeHaveOneWinnerPerRound() throws Exception {
        Tally tally = new Tally();
        for (int round = 0; round < 40; round++) {
            playRound("all-up-", round, node -> true, tally);
        }
        assertThat(tally.failures, is(empty()));
        assertThat("some rounds had their winner", tally.roundsWon, greaterThan(0));
    }

    /** Kills node-2 in the middle of a round and starts it again twenty rounds later. */
    @Test
    void concurrentWritersKeepOneWinnerPerRoundWhileANodeIsKilled() throws Exception {
        Tally tally = new Tally();
        Set<Integer> down = new HashSet<>();
        for (int round = 0; round < 45; round++) {
            if (round == 10) {
                // SIGKILL while the round's writes are in flight.
                CompletableFuture<Void> kill = CompletableFuture.runAsync(() -> {
                    try {
                        Thread.sleep(5);
                        cluster.kill(2);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
                playRound("killed-", round, node -> true, tally);
                kill.join();
                down.add(2);
                continue;
            }
            if (round == 30) {
                cluster.restart(2);
                down.clear();
            }
            playRound("killed-", round, node -> !down.contains(node), tally);
        }
        assertThat(tally.failures, is(empty()));
        assertThat("some rounds had their winner", tally.roundsWon, greaterThan(0));
    }

    /** What the rounds found: rounds with a winner, and every broken rule. */
    private static final class Tally {
        int roundsWon;
        final List<String> failures = new ArrayList<>();
    }

    /** A writer's outcome: its status, or -1 when the request failed without an answer (its node died). */
    private record Attempt(int writer, String value, int status, String etag) {
        boolean unknown() {
            return status == -1 || status == 504;
        }
    }

    /**
     * One round on two keys: every writer through its own node, at once, PUTs the contended key
     * with {@code If-Match} on the version it has now, and a fresh key with {@code If-None-Match: *}.
     */
    private void playRound(String prefix, int round, java.util.function.IntPredicate nodeUp, Tally tally) throws Exception {
        String contended = prefix + "contended";
        int reader = nodeUp.test(0) ? 0 : 1;
        HttpResponse<String> before = send(reader, "GET", contended, null);
        String beforeValue = before.statusCode() == 200 ? before.body() : null;
        String[] condition = before.statusCode() == 200 ? new String[] {"If-Match", etag(before)} : new String[] {"If-None-Match", "*"};
        check(round, contended, beforeValue, race(round, contended, condition, nodeUp), tally);
        String fresh = prefix + "fresh-" + round;
        check(round, fresh, null, race(round, fresh, new String[] {"If-None-Match", "*"}, nodeUp), tally);
    }

    private List<Attempt> race(int round, String key, String[] condition, java.util.function.IntPredicate nodeUp) {
        List<CompletableFuture<Attempt>> attempts = new ArrayList<>();
        for (int writer = 0; writer < WRITERS; writer++) {
            int node = writer;
            String value = key + "-round-" + round + "-writer-" + writer;
            if (!nodeUp.test(node)) {
                continue;
            }
            attempts.add(CompletableFuture.supplyAsync(() -> {
                try {
                    HttpResponse<String> answer = send(node, "PUT", key, value, condition[0], condition[1]);
                    return new Attempt(node, value, answer.statusCode(), answer.headers().firstValue("ETag").orElse(null));
                } catch (IOException e) {
                    return new Attempt(node, value, -1, null);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, writers));
        }
        return attempts.stream().map(CompletableFuture::join).toList();
    }

    private void check(int round, String key, String beforeValue, List<Attempt> attempts, Tally tally) throws Exception {
        List<Attempt> winners = attempts.stream().filter(a -> a.status() == 201).toList();
        String where = "round " + round + " key " + key + " " + attempts;
        if (winners.size() > 1) {
            tally.failures.add("more than one winner: " + where);
        }
        for (Attempt attempt : attempts) {
            if (attempt.status() != 201 && attempt.status() != 412 && attempt.status() != 503 && !attempt.unknown()) {
                tally.failures.add("unexpected status " + attempt.status() + ": " + where);
            }
        }
        HttpResponse<String> after = readFromAnyLiveNode(key);
        if (winners.size() == 1) {
            tally.roundsWon++;
            Attempt winner = winners.getFirst();
            if (after.statusCode() != 200 || !after.body().equals(winner.value()) || !etag(after).equals(winner.etag())) {
                tally.failures.add("the key does not hold the winner's value (" + after.statusCode() + " " + after.body() + "): " + where);
            }
        } else {
            Set<String> possible = new HashSet<>();
            possible.add(beforeValue);
            attempts.stream().filter(Attempt::unknown).forEach(a -> possible.add(a.value()));
            String value = after.statusCode() == 200 ? after.body() : null;
            if (!possible.contains(value)) {
                tally.failures.add("without a winner the key holds " + value + ": " + where);
            }
        }
    }

    private HttpResponse<String> readFromAnyLiveNode(String key) throws Exception {
        for (int node = 0; node < 3; node++) {
            try {
                HttpResponse<String> got = send(node, "GET", key, null);
                if (got.statusCode() == 200 || got.statusCode() == 404) {
                    return got;
                }
            } catch (IOException nodeDown) {
                // the next node
            }
        }
        throw new AssertionError("no node answered a read of " + key);
    }

    @Test
    void forgedOrMalformedPaxosMessagesFromAPeerAre400AndChangeNothing() throws Exception {
        HttpResponse<String> created = send(0, "PUT", "target", "original", "If-None-Match", "*");
        assertThat(created.statusCode(), is(201));
        ClusterSecret secret = ClusterSecret.fromFile(cluster.secretFile());
        byte[] key = "target".getBytes(StandardCharsets.UTF_8);
        long now = System.currentTimeMillis() << 16;
        long dayAhead = (System.currentTimeMillis() + 86_400_000L) << 16;
        Map<String, byte[]> forged = new java.util.LinkedHashMap<>();
        forged.put("prepare truncated", new byte[] {0, 6, 't'});
        forged.put("prepare with an empty key", ByteBuffer.allocate(10).putShort((short) 0).putLong(now).array());
        forged.put("prepare with bytes after its end", ByteBuffer.allocate(2 + key.length + 9).putShort((short) key.length).put(key)
                .putLong(now).put((byte) 0).array());
        forged.put("prepare of ballot 0", prepare(key, 0));
        forged.put("prepare of a negative ballot", prepare(key, -5));
        forged.put("prepare a day ahead (would lock every proposer out)", prepare(key, dayAhead));
        forged.put("accept a day ahead", accept(key, dayAhead, dayAhead, (byte) 0, 0, "forged"));
        forged.put("accept of a record stamped above its ballot", accept(key, now, now + 16, (byte) 0, 0, "forged"));
        forged.put("accept with a tombstone flag of 2", accept(key, now, now, (byte) 2, 0, ""));
        forged.put("accept of a tombstone with a value", accept(key, now, now, (byte) 1, 0, "forged"));
        forged.put("accept of a negative expiry", accept(key, now, now, (byte) 0, -1, "forged"));
        ByteBuffer lying = ByteBuffer.wrap(accept(key, now, now, (byte) 0, 0, "forged"));
        lying.putInt(2 + key.length + 8 + 8 + 1 + 8, 1_000_000);
        forged.put("accept whose value length runs past the body", lying.array());
        for (int node = 0; node < 3; node++) {
            InternalAuth peer = new InternalAuth(secret, cluster.url((node + 1) % 3), topology(node), System::currentTimeMillis);
            for (Map.Entry<String, byte[]> message : forged.entrySet()) {
                String path = message.getKey().startsWith("prepare") ? "/internal/v0/paxos/prepare" : "/internal/v0/paxos/accept";
                RawHttp.Reply reply = RawHttp.send(cluster.port(node), "POST", path,
                        peer.sign(cluster.url(node), "POST", path, Map.of(), message.getValue()), message.getValue());
                assertThat(message.getKey() + " to node-" + node, reply.status(), is(400));
            }
            RawHttp.Reply unsigned = RawHttp.send(cluster.port(node), "POST", "/internal/v0/paxos/prepare", Map.of(),
                    prepare(key, now));
            assertThat("unsigned prepare to node-" + node, unsigned.status(), is(403));
        }
        for (int node = 0; node < 3; node++) {
            assertThat(send(node, "GET", "target", null).body(), is("original"));
        }
        HttpResponse<String> updated = send(1, "PUT", "target", "updated", "If-Match", etag(created));
        assertThat("conditional writes still go through", updated.statusCode(), is(201));
        assertThat(send(2, "GET", "target", null).body(), is("updated"));
    }

    private static byte[] prepare(byte[] key, long ballot) {
        return ByteBuffer.allocate(2 + key.length + 8).putShort((short) key.length).put(key).putLong(ballot).array();
    }

    private static byte[] accept(byte[] key, long ballot, long timestamp, byte tombstone, long expiresAt, String value) {
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(2 + key.length + 8 + 8 + 1 + 8 + 4 + bytes.length).putShort((short) key.length).put(key)
                .putLong(ballot).putLong(timestamp).put(tombstone).putLong(expiresAt).putInt(bytes.length).put(bytes).array();
    }

    private String topology(int node) throws Exception {
        String status = new String(RawHttp.get(cluster.port(node), "/v0/status").body(), StandardCharsets.UTF_8);
        return JsonText.stringField(status, "topology").orElseThrow(() -> new AssertionError("no topology in the status: " + status));
    }
}
