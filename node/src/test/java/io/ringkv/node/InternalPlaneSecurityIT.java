package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;

import io.ringkv.cluster.ClusterSecret;
import io.ringkv.cluster.InternalAuth;
import io.ringkv.ops.JsonText;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Attacks on the internal plane of a real three-node cluster of separate processes, from a raw
 * socket that does not know the cluster secret: a forged record with timestamp Long.MAX_VALUE
 * (before authentication this made the key unchangeable for good and exhausted every node's
 * clock, so every later public PUT answered 500), and a dump of the whole store by range; and
 * from one that captured a valid request: replayed to another node than the one it was made for,
 * it is refused (before requests named their receiver, any node stored it).
 */
@Timeout(180)
class InternalPlaneSecurityIT {
    /**
     * One cluster for the class: no test stops a node or changes a setting, and each names keys no
     * other does. The only state a test leaves, the topology mismatch it provokes, is the one it checks.
     */
    private static ProcessCluster cluster;

    @BeforeAll
    static void start(@TempDir Path root) throws Exception {
        cluster = new ProcessCluster(root, 3);
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    private static String key(String text) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aForgedRecordWithoutTheSecretIsRefusedAndTheClusterKeepsWorking() throws Exception {
        assertThat(cluster.put(0, "victim", "original", null).statusCode(), is(201));

        for (int node = 0; node < 3; node++) {
            RawHttp.Reply forged = RawHttp.send(cluster.port(node), "PUT", "/internal/v0/writes", Map.of(),
                    OneWriteBody.of("victim", Long.MAX_VALUE, "forged"));
            assertThat("forged PUT to node-" + node, forged.status(), is(403));
        }

        for (int node = 0; node < 3; node++) {
            assertThat("GET through node-" + node, cluster.get(node, "victim", "3/3").body(), is("original"));
            assertThat("PUT through node-" + node, cluster.put(node, "after-" + node, "v", null).statusCode(), is(201));
        }
        assertThat(cluster.put(1, "victim", "changed", "3/3").statusCode(), is(201));
        assertThat(cluster.get(2, "victim", "3/3").body(), is("changed"));
    }

    @Test
    void theStoreCannotBeDumpedWithoutTheSecret() throws Exception {
        assertThat(cluster.put(0, "secret-key", "secret-value", null).statusCode(), is(201));
        RawHttp.Reply dump = RawHttp.get(cluster.port(0), "/internal/v0/range?start=" + key("a"));
        assertThat(dump.status(), is(403));
        assertThat(new String(dump.body(), StandardCharsets.UTF_8).contains("secret-value"), is(false));
    }

    @Test
    void aWrongSecretOrAStaleProofIs403AndAnotherNodeListIs409() throws Exception {
        String target = "/internal/v0/record?key=" + key("k");
        String topology = topology(0);
        InternalAuth wrongSecret = new InternalAuth(ClusterSecret.of("not the secret of this cluster"), "attacker", topology,
                System::currentTimeMillis);
        assertThat(RawHttp.send(cluster.port(0), "GET", target, wrongSecret.sign(cluster.url(0), "GET", target, Map.of(), new byte[0]),
                new byte[0]).status(), is(403));

        ClusterSecret secret = ClusterSecret.fromFile(cluster.secretFile());
        InternalAuth stale = new InternalAuth(secret, "replayer", topology, () -> System.currentTimeMillis() - 120_000);
        assertThat(RawHttp.send(cluster.port(0), "GET", target, stale.sign(cluster.url(0), "GET", target, Map.of(), new byte[0]),
                new byte[0]).status(), is(403));

        InternalAuth otherList = new InternalAuth(secret, "misconfigured", "0000000000000000", System::currentTimeMillis);
        assertThat(RawHttp.send(cluster.port(0), "GET", target, otherList.sign(cluster.url(0), "GET", target, Map.of(), new byte[0]),
                new byte[0]).status(), is(409));
        String status = new String(RawHttp.get(cluster.port(0), "/v0/status").body(), StandardCharsets.UTF_8);
        assertThat(status, containsString("\"warnings\":[\"topology mismatch with misconfigured"));

        InternalAuth peer = new InternalAuth(secret, "peer", topology, System::currentTimeMillis);
        assertThat(RawHttp.send(cluster.port(0), "GET", target, peer.sign(cluster.url(0), "GET", target, Map.of(), new byte[0]),
                new byte[0]).status(), is(404));
    }

    @Test
    void aRequestSignedForOneNodeIsRefusedByAnotherAndAnswersCarryTheirOwnProof() throws Exception {
        ClusterSecret secret = ClusterSecret.fromFile(cluster.secretFile());
        InternalAuth peer = new InternalAuth(secret, cluster.url(2), topology(0), System::currentTimeMillis);
        String target = "/internal/v0/writes";
        byte[] body = OneWriteBody.of("replayed", 1000, "for node-0 only");
        Map<String, String> forNode0 = peer.sign(cluster.url(0), "PUT", target, Map.of(), body);

        RawHttp.Reply replayed = RawHttp.send(cluster.port(1), "PUT", target, forNode0, body);
        assertThat("the request captured on its way to node-0, replayed to node-1", replayed.status(), is(403));
        assertThat(new String(replayed.body(), StandardCharsets.UTF_8), containsString("addressed to another node"));
        assertThat("node-1 stored nothing", StoredRecord.of(cluster, 1, "replayed"), is(java.util.Optional.empty()));

        RawHttp.Reply delivered = RawHttp.send(cluster.port(0), "PUT", target, forNode0, body);
        assertThat(delivered.status(), is(200));
        assertThat(OneWriteBody.answer(delivered.body()), is(OneWriteBody.STORED));
        assertThat("the answer proves it was made for this request", peer.answers().verifies(InternalAuth.proofOf(forNode0),
                delivered.status(), clientView(delivered.headers()), delivered.body()), is(true));
    }

    private static java.net.http.HttpHeaders clientView(Map<String, String> headers) {
        Map<String, java.util.List<String>> fields = new java.util.TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        headers.forEach((name, value) -> fields.put(name, java.util.List.of(value)));
        return java.net.http.HttpHeaders.of(fields, (name, value) -> true);
    }

    private String topology(int node) throws Exception {
        String status = new String(RawHttp.get(cluster.port(node), "/v0/status").body(), StandardCharsets.UTF_8);
        return JsonText.stringField(status, "topology").orElseThrow(() -> new AssertionError("no topology in the status: " + status));
    }
}
