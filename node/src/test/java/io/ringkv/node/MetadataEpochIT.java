package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;

import io.ringkv.cluster.ClusterSecret;
import io.ringkv.cluster.InternalAuth;
import io.ringkv.cluster.InternalProtocol;
import io.ringkv.ops.JsonText;
import io.ringkv.store.HybridLogicalClock;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The metadata epoch on internal requests, on three node processes. A node behind (it missed a
 * replication factor change while down, and no leader can tell it) never answers an anti-entropy
 * comparison sent at the newer epoch with its old metadata: it answers 503 naming both epochs; a
 * replica write it stores at once (its epoch does not matter to it) and starts catching up. Once
 * a leader is back it catches up and answers at the new epoch. A tampered epoch fails the proof
 * (403), a forged one (wrong secret) too; a malformed one is 400, an absurd one 400 at once, one
 * above the leader's 400 once the leader said so. Before epochs, the node behind answered the
 * comparison (200) at its old epoch, without an epoch, so this fails on that code.
 */
@Timeout(300)
class MetadataEpochIT {

    /** A bound on waiting for the group, not a timing requirement: elections take a few seconds. */
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String EPOCH = InternalProtocol.EPOCH_HEADER.toLowerCase(Locale.ROOT);
    private static final String DIGEST = InternalProtocol.DIGEST_PATH + "?" + InternalProtocol.RF_PARAM + "=2";

    @TempDir
    Path root;

    @Test
    void aNodeBehindCatchesUpOrRefusesAndNeverAnswersWithItsOldMetadata() throws Exception {
        // A 5 s replica timeout gives the catch-up its full 2 s bound (half the timeout, at most 2 s).
        try (ProcessCluster cluster = new ProcessCluster(root, 3, java.util.List.of("--replica-timeout", "PT5S"))) {
            for (int node = 0; node < 3; node++) {
                awaitStatus(cluster, node, status -> epoch(status) == 1 && status.contains("\"leader\":\"n"));
            }
            int behind = 2;
            cluster.kill(behind);
            assertThat(run("meta", "set-replication-factor", "2", "--node", cluster.url(0), "--cluster-secret-file",
                    cluster.secretFile().toString()).exitCode, is(0));
            awaitStatus(cluster, 1, status -> epoch(status) == 2);
            // No majority is left to tell the node behind about epoch 2.
            cluster.kill(0);
            cluster.kill(1);
            cluster.restart(behind);
            awaitStatus(cluster, behind, status -> epoch(status) == 1);

            RawHttp.Reply refused = send(cluster, behind, "GET", DIGEST, new byte[0], "2", secret(cluster), Optional.empty());
            assertThat(text(refused), refused.status(), is(503));
            assertThat(text(refused), containsString("knows cluster metadata epoch 1"));
            assertThat(text(refused), containsString("sent at epoch 2"));
            assertThat(refused.headers().get(EPOCH), is("1"));
            assertThat(metrics(cluster, behind), containsString("ringkv_metadata_epoch_refusals_total{reason=\"behind\"} 1.0"));

            RawHttp.Reply stored = put(cluster, behind, "k-behind", "2", Optional.empty());
            assertThat("a replica write is stored whoever owns the key: " + text(stored), stored.status(), is(200));
            assertThat(stored.headers().get(EPOCH), is("1"));
            assertThat(StoredRecord.of(cluster, behind, "k-behind"), is(Optional.of(StoredRecord.VALUE)));

            // A leader again (node-0 holds epoch 2): the node behind catches up before it answers.
            cluster.restart(0);
            RawHttp.Reply answered = send(cluster, behind, "GET", DIGEST, new byte[0], "2", secret(cluster), Optional.empty());
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (answered.status() == 503 && System.nanoTime() < deadline) {
                assertThat(text(answered), containsString("sent at epoch 2"));
                answered = send(cluster, behind, "GET", DIGEST, new byte[0], "2", secret(cluster), Optional.empty());
            }
            assertThat(text(answered), answered.status(), is(200));
            assertThat("answered at the sender's epoch", answered.headers().get(EPOCH), is("2"));
            String status = cluster.send(behind, "GET", "/v0/status", null).body();
            assertThat(epoch(status), is(2L));
            assertThat(status, containsString("\"replicationFactor\":2"));
            String metrics = metrics(cluster, behind);
            assertThat(metrics, containsString("ringkv_metadata_catch_ups_total{trigger=\"request\"}"));

            // A request from a node behind is answered, with the newer epoch for its sender to catch up.
            RawHttp.Reply older = put(cluster, behind, "k-older", "1", Optional.empty());
            assertThat(text(older), older.status(), is(200));
            assertThat(older.headers().get(EPOCH), is("2"));

            hostileEpochs(cluster, behind);
        }
    }

    /** Tampered, forged, malformed and impossible epochs: each refused, nothing stored. */
    private void hostileEpochs(ProcessCluster cluster, int node) throws Exception {
        RawHttp.Reply tampered = put(cluster, node, "k-tampered", "2", Optional.of(signed -> signed.put(EPOCH, "1")));
        assertThat(text(tampered), tampered.status(), is(403));
        RawHttp.Reply stripped = put(cluster, node, "k-tampered", "2", Optional.of(signed -> signed.remove(EPOCH)));
        assertThat(text(stripped), stripped.status(), is(403));
        RawHttp.Reply forged = send(cluster, node, "PUT", InternalProtocol.WRITES_PATH, writeOf("k-tampered"), "2",
                ClusterSecret.of("not the secret of this cluster"), Optional.empty());
        assertThat(text(forged), forged.status(), is(403));
        for (String malformed : new String[] {"-1", "+2", "two", "0x2", "1234567890123456789"}) {
            RawHttp.Reply reply = put(cluster, node, "k-tampered", malformed, Optional.empty());
            assertThat("epoch [" + malformed + "]: " + text(reply), reply.status(), is(400));
        }
        RawHttp.Reply absurd = put(cluster, node, "k-tampered", "999999999999999999", Optional.empty());
        assertThat(text(absurd), absurd.status(), is(400));
        assertThat(text(absurd), containsString("epochs above this node's 2"));
        RawHttp.Reply beyond = send(cluster, node, "GET", DIGEST, new byte[0], "9", secret(cluster), Optional.empty());
        assertThat(text(beyond), beyond.status(), is(400));
        assertThat(text(beyond), containsString("above the cluster's: the metadata leader is at epoch 2"));
        assertThat(StoredRecord.of(cluster, node, "k-tampered"), is(Optional.empty()));
        String metrics = metrics(cluster, node);
        assertThat(metrics, containsString("ringkv_metadata_epoch_refusals_total{reason=\"malformed\"} 5.0"));
        assertThat(metrics, containsString("ringkv_metadata_epoch_refusals_total{reason=\"beyond_cluster\"} 2.0"));
    }

    private static ClusterSecret secret(ProcessCluster cluster) throws Exception {
        return ClusterSecret.fromFile(cluster.secretFile());
    }

    /** A write batch of one: {@code key} gets the value {@code v}, stamped now. */
    private static byte[] writeOf(String key) {
        return OneWriteBody.of(key, HybridLogicalClock.timestampOf(System.currentTimeMillis(), 0), "v");
    }

    /** A replica write of {@code key} to {@code node} at {@code epoch}; {@code tamper} edits it after signing. */
    private static RawHttp.Reply put(ProcessCluster cluster, int node, String key, String epoch,
                                     Optional<java.util.function.Consumer<Map<String, String>>> tamper) throws Exception {
        return send(cluster, node, "PUT", InternalProtocol.WRITES_PATH, writeOf(key), epoch, secret(cluster), tamper);
    }

    /** An internal request signed with {@code secret}, at {@code epoch}; {@code tamper} edits its fields after signing. */
    private static RawHttp.Reply send(ProcessCluster cluster, int node, String method, String target, byte[] body,
                                      String epoch, ClusterSecret secret,
                                      Optional<java.util.function.Consumer<Map<String, String>>> tamper) throws Exception {
        String status = cluster.send(node, "GET", "/v0/status", null).body();
        String topology = JsonText.stringField(status, "topology").orElseThrow();
        // Sent as node-1 would (a digest names the keys both sides own, so its sender must be a peer).
        int sender = node == 1 ? 0 : 1;
        InternalAuth auth = new InternalAuth(secret, cluster.url(sender), topology, System::currentTimeMillis);
        Map<String, String> withEpoch = new TreeMap<>();
        withEpoch.put(InternalProtocol.EPOCH_HEADER, epoch);
        Map<String, String> signed = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        signed.putAll(auth.sign(cluster.url(node), method, target, withEpoch, body));
        tamper.ifPresent(edit -> edit.accept(signed));
        return RawHttp.send(cluster.port(node), method, target, signed, body);
    }

    private static String text(RawHttp.Reply reply) {
        return reply.status() + " " + new String(reply.body(), StandardCharsets.UTF_8);
    }

    private static String metrics(ProcessCluster cluster, int node) throws Exception {
        return cluster.send(node, "GET", "/metrics", null).body();
    }

    private static void awaitStatus(ProcessCluster cluster, int node, Predicate<String> condition) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        String last = null;
        while (System.nanoTime() < deadline) {
            last = cluster.send(node, "GET", "/v0/status", null).body();
            if (condition.test(last)) {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("node-" + node + " did not reach the state within " + WAIT + "; last status: " + last);
    }

    private static long epoch(String status) {
        String metadata = status.substring(status.indexOf("\"metadata\":{"));
        return JsonText.numberField(metadata, "epoch").map(Double::longValue).orElse(-1L);
    }

    private record Run(int exitCode, String output, String errors) {
    }

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(new PrintWriter(out), new PrintWriter(err), args);
        return new Run(code, out.toString(), err.toString());
    }
}
