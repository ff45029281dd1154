package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.is;

import io.ringkv.cluster.ClusterSecret;
import io.ringkv.cluster.InternalAuth;
import io.ringkv.http.h2.DataFrame;
import io.ringkv.http.h2.ErrorCode;
import io.ringkv.http.h2.Frame;
import io.ringkv.http.h2.HeadersFrame;
import io.ringkv.http.h2.RstStreamFrame;
import io.ringkv.ops.JsonText;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Requests a node refuses at their headers, before it reads a byte of their bodies, on a
 * three-node cluster of separate processes: a stranger's bodies on the internal plane (which
 * used to be buffered whole, against the node's body memory budget, before the proof was
 * checked, so a few dozen trickling uploads, over HTTP/1.1 or HTTP/2, made every legitimate PUT a
 * 503), and the Raft
 * endpoint ({@code POST /internal/v0/raft/OP}) and the compare-and-set endpoints
 * ({@code POST /internal/v0/paxos/prepare|accept}) by name: a stranger's call, a signed malformed
 * call, a body over the route's limit, a stalled body and a peer that never reads its answers.
 * Node-2 runs with a short idle timeout, for the stalled body.
 */
@Timeout(300)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HeadAdmissionIT {
    private static final String WRITES = "/internal/v0/writes";
    private static final String RAFT = "/internal/v0/raft/";
    private static final String PAXOS_PREPARE = "/internal/v0/paxos/prepare";
    private static final String PAXOS_ACCEPT = "/internal/v0/paxos/accept";
    /** A batch of keys whose versions a cleanup asks an owner for (POST); its body a read batch's, at most 64 KiB. */
    private static final String VERSIONS = "/internal/v0/versions";
    private static final int VERSIONS_BODY_MAX = 64 * 1024;
    private static final int VERSIONS_KEYS_MAX = 256;
    /** serve --max-body's default: a Paxos accept carries a proposed record, so its route takes what a PUT may. */
    private static final int MAX_BODY_DEFAULT = 16 << 20;
    /** A legitimate value: larger than the 8 KiB a body's buffer starts with. */
    private static final String VALUE = "v".repeat(16 * 1024);
    private static final Duration STALLED_NODE_IDLE = Duration.ofSeconds(4);
    private static final Pattern METADATA = Pattern.compile("\"epoch\":(\\d+),\"leader\":(\"[^\"]*\"|null)");

    @TempDir
    static Path root;

    private ProcessCluster cluster;
    private int legitimate;

    @BeforeAll
    void start() throws Exception {
        cluster = new ProcessCluster(root, 3, List.of(), Map.of(2, List.of("--idle-timeout", STALLED_NODE_IDLE.toString())));
        awaitMetadataLeader(0);
    }

    /**
     * The metadata group elects its leader in the background, which then writes the first
     * metadata (epoch 1); the Raft tests compare leader and epoch before and after.
     */
    private void awaitMetadataLeader(int node) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < end) {
            String status = new String(RawHttp.get(cluster.port(node), "/v0/status").body(), StandardCharsets.UTF_8);
            Matcher m = METADATA.matcher(status);
            if (m.find() && !m.group(2).equals("null") && !m.group(1).equals("0")) {
                return; // a leader, and the metadata it wrote first applied
            }
            Thread.sleep(200);
        }
        throw new AssertionError("node-" + node + "'s metadata group had no leader at epoch 1 or later within 60 s");
    }

    @AfterAll
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    /**
     * The attack: waves of connections to node-0's internal plane, without any proof, each
     * announcing a body and pushing most of it, then trickling (16 MiB bodies first, then
     * smaller ones to fill what is left of the budget). A legitimate client's PUTs through
     * node-0 are answered 201 after every wave. Before the head checks they were 503 once the
     * waves had filled the body memory budget.
     */
    @Test
    void strangersCannotHoldTheBodyBudgetThroughTheInternalPlane() throws Exception {
        try (BodyHoldAttack attack = new BodyHoldAttack(cluster.port(0), "PUT", WRITES, Map.of())) {
            holdAndServe(attack, 0, null);
        }
    }

    /** The same over HTTP/2: a connection per held body, pushed within the windows the node grants. */
    @Test
    void strangersCannotHoldTheBodyBudgetThroughTheInternalPlaneOverHttp2() throws Exception {
        try (H2BodyHoldAttack attack = new H2BodyHoldAttack(cluster.port(0), "PUT", WRITES)) {
            int[][] waves = {{10, 16 << 20}, {16, 1 << 20}, {40, 64 << 10}, {8, 8 << 10}};
            for (int[] wave : waves) {
                attack.wave(wave[0], wave[1]);
                assertLegitimatePutsSucceed(0, null, "after " + wave[0] + " held h2 bodies of " + wave[1] + " bytes");
            }
        }
    }

    /**
     * Over HTTP/2: a stranger's stream, with no proof or with forged proof fields, is answered 403
     * at its HEADERS, and its body is stopped (RST_STREAM NO_ERROR).
     */
    @Test
    void overHttp2AStrangersStreamIsAnsweredAtItsHeadersAndItsBodyStopped() throws Exception {
        try (RawH2 stranger = RawH2.open(cluster.port(0), 0)) {
            stranger.send(new HeadersFrame(1, stranger.request("PUT", WRITES, "content-length", Integer.toString(16 << 20)),
                    false, true), new DataFrame(1, ByteBuffer.allocate(16 * 1024), false));
            assertThat(streamOutcomes(stranger, 1, Duration.ofSeconds(10)),
                    is(List.of("HEADERS :status=403", "RST_STREAM " + ErrorCode.NO_ERROR)));
            stranger.send(new HeadersFrame(3, stranger.request("POST", RAFT + "append-entries", "content-length",
                    Integer.toString(16 << 20)), false, true));
            assertThat(streamOutcomes(stranger, 3, Duration.ofSeconds(10)),
                    is(List.of("HEADERS :status=403", "RST_STREAM " + ErrorCode.NO_ERROR)));
            // Forged proof fields, 64 KiB announced (within the route's limit): refused at the
            // HEADERS too. Before the proof was checked at the head, the node read the DATA and
            // waited for the rest.
            String target = RAFT + "append-entries";
            List<String> fields = new ArrayList<>(lowerCasedPairs(forged(0, "POST", target)));
            fields.addAll(List.of("content-length", Integer.toString(64 * 1024)));
            stranger.send(new HeadersFrame(5, stranger.request("POST", target, fields.toArray(String[]::new)), false, true),
                    new DataFrame(5, ByteBuffer.allocate(16 * 1024), false));
            assertThat(streamOutcomes(stranger, 5, Duration.ofSeconds(10)),
                    is(List.of("HEADERS :status=403", "RST_STREAM " + ErrorCode.NO_ERROR)));
        }
        assertLegitimatePutsSucceed(0, null, "after the HTTP/2 streams");
    }

    /**
     * The body budget attack in its unknown-length form, on the Raft route: each connection
     * carries well-formed proof fields with a wrong MAC and a chunked body that announces no
     * length. Legitimate PUTs stay 201: the head is refused before its body is read. (Before the
     * proof was checked at the head, each body was read up to the route's limit; before the route
     * limits, up to {@code --max-body}, and the first wave filled the budget.)
     */
    @Test
    void forgedProofsCannotHoldTheBodyBudgetWithChunkedBodies() throws Exception {
        String target = RAFT + "append-entries";
        try (BodyHoldAttack attack = new BodyHoldAttack(cluster.port(0), "POST", target, () -> forged(0, "POST", target), true)) {
            holdAndServe(attack, 0, null);
        }
    }

    /** The same over HTTP/2, with streams that carry no content-length. */
    @Test
    void forgedProofsCannotHoldTheBodyBudgetOverHttp2WithoutContentLength() throws Exception {
        String target = RAFT + "append-entries";
        try (H2BodyHoldAttack attack = new H2BodyHoldAttack(cluster.port(0), "POST", target, () -> forged(0, "POST", target),
                false)) {
            int[][] waves = {{10, 16 << 20}, {16, 1 << 20}, {40, 64 << 10}, {8, 8 << 10}};
            for (int[] wave : waves) {
                attack.wave(wave[0], wave[1]);
                assertLegitimatePutsSucceed(0, null, "after " + wave[0] + " held h2 bodies of unknown length, " + wave[1] + " bytes");
            }
        }
    }

    /**
     * The attack: proof fields a stranger can fill in (node ids, time and topology fingerprint are
     * public; the MAC made with another secret) on a head announcing a body, and no body. The node
     * answers 403 from the head alone. Before the proof was checked at the head, the head passed
     * and the node waited for the body (then 408), so a stranger held a connection, a slot and up
     * to the route's limit of body memory.
     */
    @Test
    void aForgedProofIsRefused403BeforeItsBodyIsSent() throws Exception {
        for (String target : List.of(RAFT + "append-entries", WRITES)) {
            String method = target.equals(WRITES) ? "PUT" : "POST";
            try (Socket socket = new Socket("127.0.0.1", cluster.port(0))) {
                socket.setSoTimeout(30_000);
                socket.getOutputStream().write(head(method, target, forged(0, method, target), 64 * 1024));
                RawHttp.Reply reply = RawHttp.read(socket.getInputStream());
                assertThat(method + " " + target, reply.status(), is(403));
            }
        }
    }

    /** A signed head whose body is not the one its digest names: 403, whatever the body holds (here a well-formed vote). */
    @Test
    void aSignedHeadWithAnotherBodyIs403() throws Exception {
        String target = RAFT + "request-vote";
        String before = metadata(0);
        byte[] signedFor = requestVote(cluster.url(1), cluster.url(0), UUID.randomUUID(), 1);
        byte[] sent = requestVote(cluster.url(1), cluster.url(0), UUID.randomUUID(), Long.MAX_VALUE / 2);
        Map<String, String> signed = peer().sign(cluster.url(0), "POST", target, Map.of(), signedFor);
        assertThat(RawHttp.send(cluster.port(0), "POST", target, signed, sent).status(), is(403));
        assertThat("node-0's metadata leader and epoch", metadata(0), is(before));
    }

    /**
     * A chunked Raft call with a valid proof and 4 MiB of chunks: 413 once the body passes the
     * route's limit, and the connection closes (the rest is not read). The chunks go out one at a
     * time, and stop as soon as the answer is there or the node stops taking them.
     */
    @Test
    void aSignedChunkedRaftCallIs413AtTheRoutesLimitAndTheConnectionCloses() throws Exception {
        String target = RAFT + "append-entries";
        try (Socket socket = new Socket("127.0.0.1", cluster.port(0))) {
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            out.write(chunkedHead("POST", target, peer().sign(cluster.url(0), "POST", target, Map.of(), new byte[0])));
            byte[] chunk = chunk(16 * 1024);
            long sent = 0;
            try {
                while (sent < (4 << 20) && socket.getInputStream().available() == 0) {
                    out.write(chunk);
                    sent += 16 * 1024;
                }
            } catch (IOException closedOnUs) {
                // the node answered and closed: the rest was not read
            }
            RawHttp.Reply reply = RawHttp.read(socket.getInputStream());
            assertThat(reply.status(), is(413));
            assertThat(reply.headers().get("connection"), is("close"));
            assertThat("the node closed the connection", closedByNode(socket), is(true));
        }
    }

    /** The same over HTTP/2 without content-length: DATA past the route's limit gets 413, then RST_STREAM; the connection goes on. */
    @Test
    void overHttp2SignedRaftDataPastTheRoutesLimitIs413ThenReset() throws Exception {
        String target = RAFT + "append-entries";
        try (RawH2 client = RawH2.open(cluster.port(0), 0)) {
            List<String> fields = lowerCasedPairs(peer().sign(cluster.url(0), "POST", target, Map.of(), new byte[0]));
            client.send(new HeadersFrame(1, client.request("POST", target, fields.toArray(String[]::new)), false, true));
            assertThat(pushUntilAnswered(client, 1, 4 << 20), is(List.of("HEADERS :status=413", "RST_STREAM " + ErrorCode.NO_ERROR)));
        }
        assertLegitimatePutsSucceed(0, null, "after the h2 stream");
    }

    /** Header fields as HTTP/2 wants them: name (lower case), value, name, value... */
    private static List<String> lowerCasedPairs(Map<String, String> fields) {
        List<String> pairs = new ArrayList<>();
        fields.forEach((name, value) -> {
            pairs.add(name.toLowerCase(java.util.Locale.ROOT));
            pairs.add(value);
        });
        return pairs;
    }

    /** A chunked PUT through the public API, larger than any internal route's limit: still 201 (up to --max-body). */
    @Test
    void aLegitimateChunkedPutIsServedOverBothProtocols() throws Exception {
        String key = "chunked-" + legitimate++;
        try (Socket socket = new Socket("127.0.0.1", cluster.port(0))) {
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            out.write(chunkedHead("PUT", "/v0/entity?id=" + key, Map.of()));
            byte[] chunk = chunk(64 * 1024);
            for (int i = 0; i < 32; i++) {
                out.write(chunk); // 2 MiB
            }
            out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            assertThat(RawHttp.read(socket.getInputStream()).status(), is(201));
        }
        assertThat(cluster.get(0, key, null).body().length(), is(2 << 20));

        String h2Key = "chunked-" + legitimate++;
        try (RawH2 client = RawH2.open(cluster.port(0), 0)) {
            client.send(new HeadersFrame(1, client.request("PUT", "/v0/entity?id=" + h2Key), false, true),
                    new DataFrame(1, ByteBuffer.allocate(16 * 1024), false),
                    new DataFrame(1, ByteBuffer.allocate(16 * 1024), false),
                    new DataFrame(1, ByteBuffer.allocate(16 * 1024), true));
            assertThat(streamOutcomes(client, 1, Duration.ofSeconds(30), 1), is(List.of("HEADERS :status=201")));
        }
        assertThat(cluster.get(0, h2Key, null).body().length(), is(48 * 1024));
    }

    /** A stranger's well-formed vote with a huge term is refused (403) and changes nothing: same leader, same epoch. */
    @Test
    void aStrangersRaftCallIsRefusedAndChangesNothing() throws Exception {
        String before = metadata(0);
        byte[] vote = requestVote("attacker", cluster.url(0), UUID.randomUUID(), Long.MAX_VALUE / 2);
        for (int node = 0; node < 3; node++) {
            RawHttp.Reply refused = RawHttp.send(cluster.port(node), "POST", RAFT + "request-vote",
                    Map.of("Content-Type", "application/x-protobuf"), vote);
            assertThat("the vote to node-" + node, refused.status(), is(403));
        }
        assertThat("node-0's metadata leader and epoch", metadata(0), is(before));
        assertLegitimatePutsSucceed(1, null, "after the votes");
    }

    /** A call signed with the cluster secret whose body is not the op's protobuf: 400. */
    @Test
    void aSignedMalformedRaftCallIs400() throws Exception {
        byte[] garbage = {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF};
        String target = RAFT + "request-vote";
        Map<String, String> signed = peer().sign(cluster.url(0), "POST", target, Map.of(), garbage);
        assertThat(RawHttp.send(cluster.port(0), "POST", target, signed, garbage).status(), is(400));
    }

    /**
     * A signed head announcing a Raft call over the route's 1 MiB: 413 at once, though not a byte
     * of the body was sent (before, the node waited for the body).
     */
    @Test
    void aRaftCallOverTheRoutesLimitIs413BeforeItsBodyIsRead() throws Exception {
        int announced = 2 << 20;
        String target = RAFT + "append-entries";
        Map<String, String> signed = peer().sign(cluster.url(0), "POST", target, Map.of(), new byte[announced]);
        try (Socket socket = new Socket("127.0.0.1", cluster.port(0))) {
            socket.setSoTimeout(15_000);
            socket.getOutputStream().write(head("POST", target, signed, announced));
            RawHttp.Reply reply = RawHttp.read(socket.getInputStream());
            assertThat(reply.status(), is(413));
        }
    }

    /** A signed Raft call whose body stops half way: 408 from node-2 (idle timeout of a few seconds). */
    @Test
    void aStalledRaftBodyIs408() throws Exception {
        assertHalfSentSignedBodyIs408(RAFT + "append-entries", new byte[1024]);
    }

    /**
     * A peer that pipelines signed Raft calls and never reads an answer: the node stops reading
     * its requests (or closes the connection) instead of queueing answers without end, and the
     * metadata group keeps its leader.
     */
    @Test
    void aPeerThatNeverReadsItsAnswersIsNotServedWithoutBound() throws Exception {
        String before = metadata(0);
        pipelineWithoutReading(RAFT + "request-vote");
        // The leader itself may move on a loaded machine; what must hold is that the group has one, at the same epoch.
        awaitMetadataLeader(0);
        assertThat("node-0's metadata epoch", epochOf(metadata(0)), is(epochOf(before)));
        assertLegitimatePutsSucceed(0, null, "after the pipelining peer");
    }

    /** The same on the Paxos prepare route: the node stops reading, and conditional writes through it still decide. */
    @Test
    void aPeerThatNeverReadsItsPaxosAnswersIsNotServedWithoutBound() throws Exception {
        pipelineWithoutReading(PAXOS_PREPARE);
        assertConditionalWritesDecide(0, "after the pipelining peer");
    }

    /**
     * Pipelines 200,000 signed malformed calls to {@code target} on node-0 over one connection with
     * a small receive buffer, reading no answer: all of them must not be taken in (the writer ends
     * up blocked, or the node closes the connection).
     */
    private void pipelineWithoutReading(String target) throws Exception {
        byte[] garbage = {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF};
        Map<String, String> signed = peer().sign(cluster.url(0), "POST", target, Map.of(), garbage);
        byte[] one = head("POST", target, signed, garbage.length);
        byte[] request = new byte[one.length + garbage.length];
        System.arraycopy(one, 0, request, 0, one.length);
        System.arraycopy(garbage, 0, request, one.length, garbage.length);
        int requests = 200_000;
        AtomicLong sent = new AtomicLong();
        try (Socket socket = new Socket()) {
            socket.setReceiveBufferSize(4096);
            socket.connect(new java.net.InetSocketAddress("127.0.0.1", cluster.port(0)), 5_000);
            OutputStream out = socket.getOutputStream();
            CompletableFuture<Boolean> writer = CompletableFuture.supplyAsync(() -> {
                try {
                    for (int i = 0; i < requests; i++) {
                        out.write(request);
                        sent.incrementAndGet();
                    }
                    return true;
                } catch (IOException closedByTheNode) {
                    return false;
                }
            });
            // Every answer is a 400 of about 150 bytes: the node would have queued tens of MiB for
            // a peer that reads none, had it read every request.
            boolean wroteAll;
            try {
                // Unbounded serving would take the 200,000 requests (60 MB) in a few seconds on loopback.
                wroteAll = writer.get(10, TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException blocked) {
                wroteAll = false; // the node stopped reading: the writer is stuck, as it should be
            }
            assertThat("all " + requests + " pipelined requests were read (" + sent.get() + " written)", wroteAll, is(false));
        }
    }

    /** A stranger's versions batch, to every node: 403, the keys' versions not told. */
    @Test
    void aStrangersVersionsBatchIsRefused() throws Exception {
        byte[] batch = versionsBatch(List.of("k".getBytes(StandardCharsets.UTF_8)));
        for (int node = 0; node < 3; node++) {
            assertThat("the batch to node-" + node, RawHttp.send(cluster.port(node), "POST", VERSIONS, Map.of(), batch).status(),
                    is(403));
        }
    }

    /** Signed but not a read batch's body (no end marker; a key longer than the body; no key): 400. */
    @Test
    void aSignedMalformedVersionsBatchIs400() throws Exception {
        byte[] whole = versionsBatch(List.of("k".getBytes(StandardCharsets.UTF_8)));
        byte[] tooLong = whole.clone();
        ByteBuffer.wrap(tooLong).putInt(0, 1 << 30);
        for (byte[] body : List.of(java.util.Arrays.copyOf(whole, whole.length - 4), tooLong, versionsBatch(List.of()))) {
            Map<String, String> signed = peer().sign(cluster.url(0), "POST", VERSIONS, Map.of(), body);
            assertThat(RawHttp.send(cluster.port(0), "POST", VERSIONS, signed, body).status(), is(400));
        }
    }

    /**
     * The largest batch the route takes: 256 keys filling its 64 KiB exactly, one of them stored:
     * 200, one answer per key, the stored one's version with no value (a one-byte kind, then the
     * timestamp, flags and a zero value length), the others absent (one byte each).
     */
    @Test
    void theLargestVersionsBatchIsAnsweredKeyByKey() throws Exception {
        List<byte[]> keys = new ArrayList<>();
        int keyLength = (VERSIONS_BODY_MAX - Integer.BYTES) / VERSIONS_KEYS_MAX - Integer.BYTES;
        for (int i = 0; i < VERSIONS_KEYS_MAX - 1; i++) {
            keys.add(("versions-largest-" + i + "-").repeat(keyLength).substring(0, keyLength).getBytes(StandardCharsets.UTF_8));
        }
        int used = Integer.BYTES + keys.size() * (Integer.BYTES + keyLength);
        keys.add("v".repeat(VERSIONS_BODY_MAX - used - Integer.BYTES).getBytes(StandardCharsets.UTF_8));
        String stored = new String(keys.getFirst(), StandardCharsets.UTF_8);
        assertThat(RawHttp.send(cluster.port(0), "PUT", "/v0/entity?id=" + stored + "&replicas=3/3", Map.of(),
                "a value".getBytes(StandardCharsets.UTF_8)).status(), is(201));
        byte[] batch = versionsBatch(keys);
        assertThat(batch.length, is(VERSIONS_BODY_MAX));

        Map<String, String> signed = peer().sign(cluster.url(1), "POST", VERSIONS, Map.of(), batch);
        RawHttp.Reply answer = RawHttp.send(cluster.port(1), "POST", VERSIONS, signed, batch);

        assertThat(answer.status(), is(200));
        ByteBuffer in = ByteBuffer.wrap(answer.body());
        assertThat("found", in.get(), is((byte) 1));
        in.getLong(); // its timestamp
        assertThat("flags: a value, no expiry", in.get(), is((byte) 0));
        assertThat("no value", in.getInt(), is(0));
        assertThat("the other keys, absent", in.remaining(), is(VERSIONS_KEYS_MAX - 1));
        while (in.hasRemaining()) {
            assertThat(in.get(), is((byte) 0));
        }
    }

    /** A signed head announcing a versions batch over the route's 64 KiB: 413 before a byte of the body. */
    @Test
    void aVersionsBatchOverTheRoutesLimitIs413BeforeItsBodyIsRead() throws Exception {
        int announced = VERSIONS_BODY_MAX + 1;
        Map<String, String> signed = peer().sign(cluster.url(0), "POST", VERSIONS, Map.of(), new byte[announced]);
        try (Socket socket = new Socket("127.0.0.1", cluster.port(0))) {
            socket.setSoTimeout(15_000);
            socket.getOutputStream().write(head("POST", VERSIONS, signed, announced));
            assertThat(RawHttp.read(socket.getInputStream()).status(), is(413));
        }
    }

    /** A signed versions batch whose body stops half way: 408 from node-2 (idle timeout of a few seconds). */
    @Test
    void aStalledVersionsBodyIs408() throws Exception {
        assertHalfSentSignedBodyIs408(VERSIONS, versionsBatch(List.of(new byte[1024])));
    }

    /** A peer that pipelines signed versions batches and reads no answer: the node stops reading, PUTs through it are served. */
    @Test
    void aPeerThatNeverReadsItsVersionsAnswersIsNotServedWithoutBound() throws Exception {
        pipelineWithoutReading(VERSIONS);
        assertLegitimatePutsSucceed(0, null, "after the pipelining peer");
    }

    /**
     * A signed POST of {@code body} to node-2's {@code target} that stops half way through the
     * body: node-2 answers 408 once its idle timeout (a few seconds) passes.
     */
    private void assertHalfSentSignedBodyIs408(String target, byte[] body) throws Exception {
        Map<String, String> signed = peer().sign(cluster.url(2), "POST", target, Map.of(), body);
        try (Socket socket = new Socket("127.0.0.1", cluster.port(2))) {
            socket.setSoTimeout((int) STALLED_NODE_IDLE.multipliedBy(5).toMillis());
            OutputStream out = socket.getOutputStream();
            out.write(head("POST", target, signed, body.length));
            out.write(body, 0, body.length / 2);
            out.flush();
            assertThat(RawHttp.read(socket.getInputStream()).status(), is(408));
        }
    }

    /** A read batch's body: each key's length (int32) and bytes, then the end marker (int32 -1). */
    private static byte[] versionsBatch(List<byte[]> keys) {
        ByteBuffer out = ByteBuffer.allocate(Integer.BYTES + keys.stream().mapToInt(key -> Integer.BYTES + key.length).sum());
        keys.forEach(key -> out.putInt(key.length).put(key));
        return out.putInt(-1).array();
    }

    /**
     * A stranger's prepare with a ballot far above any clock, to every node: 403, and nothing
     * promised (had a node promised it, every later conditional write of the key would lose its
     * rounds to that ballot and answer 503).
     */
    @Test
    void aStrangersPaxosPrepareIsRefusedAndPromisesNothing() throws Exception {
        String key = "paxos-stranger";
        byte[] prepare = paxosPrepare(key, Long.MAX_VALUE / 2);
        for (int node = 0; node < 3; node++) {
            RawHttp.Reply refused = RawHttp.send(cluster.port(node), "POST", PAXOS_PREPARE, Map.of(), prepare);
            assertThat("the prepare to node-" + node, refused.status(), is(403));
        }
        assertThat("a create-only PUT of the key", conditionalPut(0, key), is(201));
    }

    /** Signed with the cluster secret but not a Paxos message: 400 on both routes, and conditional writes still decide. */
    @Test
    void aSignedMalformedPaxosCallIs400() throws Exception {
        byte[] garbage = {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF};
        for (String target : List.of(PAXOS_PREPARE, PAXOS_ACCEPT)) {
            Map<String, String> signed = peer().sign(cluster.url(0), "POST", target, Map.of(), garbage);
            assertThat(target, RawHttp.send(cluster.port(0), "POST", target, signed, garbage).status(), is(400));
        }
        assertConditionalWritesDecide(0, "after the malformed calls");
    }

    /**
     * A signed accept announcing more than --max-body (the route's limit: an accept carries a
     * record a PUT may write): 413 at its head, before a byte of the body is sent.
     */
    @Test
    void aPaxosAcceptOverTheLargestBodyIs413BeforeItsBodyIsRead() throws Exception {
        int announced = MAX_BODY_DEFAULT + (1 << 20);
        Map<String, String> signed = peer().sign(cluster.url(0), "POST", PAXOS_ACCEPT, Map.of(), new byte[announced]);
        try (Socket socket = new Socket("127.0.0.1", cluster.port(0))) {
            socket.setSoTimeout(15_000);
            socket.getOutputStream().write(head("POST", PAXOS_ACCEPT, signed, announced));
            assertThat(RawHttp.read(socket.getInputStream()).status(), is(413));
        }
        assertConditionalWritesDecide(0, "after the oversized accept");
    }

    /** A signed accept whose body stops half way: 408 from node-2 (idle timeout of a few seconds). */
    @Test
    void aStalledPaxosBodyIs408() throws Exception {
        assertHalfSentSignedBodyIs408(PAXOS_ACCEPT, new byte[1024]);
    }

    /** A prepare body ({@code PaxosMessages}): key length (u16), key, ballot. */
    private static byte[] paxosPrepare(String key, long ballot) {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(2 + k.length + Long.BYTES).putShort((short) k.length).put(k).putLong(ballot).array();
    }

    /** A create-only PUT ({@code If-None-Match: *}) of a fresh key through {@code node}: its status. */
    private int conditionalPut(int node, String key) throws IOException {
        return RawHttp.send(cluster.port(node), "PUT", "/v0/entity?id=" + key, Map.of("If-None-Match", "*"),
                "v".getBytes(StandardCharsets.UTF_8)).status();
    }

    private void assertConditionalWritesDecide(int node, String when) throws Exception {
        String key = "paxos-" + legitimate++;
        assertThat("a create-only PUT " + when, conditionalPut(node, key), is(201));
        assertThat("the same again " + when, conditionalPut(node, key), is(412));
    }

    /** Waves of held bodies on {@code node}, with legitimate PUTs after each. */
    private void holdAndServe(BodyHoldAttack attack, int node, String token) throws Exception {
        int[][] waves = {{10, 16 << 20}, {16, 1 << 20}, {40, 64 << 10}, {8, 8 << 10}};
        for (int[] wave : waves) {
            attack.wave(wave[0], wave[1]);
            assertLegitimatePutsSucceed(node, token, "after " + wave[0] + " held bodies of " + wave[1] + " bytes");
        }
    }

    private void assertLegitimatePutsSucceed(int node, String token, String when) throws Exception {
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            statuses.add(cluster.put(node, "legit-" + legitimate++, VALUE, null).statusCode());
        }
        assertThat("legitimate PUTs " + when, statuses, everyItem(is(201)));
    }

    private InternalAuth peer() throws IOException {
        ClusterSecret secret = ClusterSecret.fromFile(cluster.secretFile());
        return new InternalAuth(secret, cluster.url(1), topology(0), System::currentTimeMillis);
    }

    private String topology(int node) throws IOException {
        String status = new String(RawHttp.get(cluster.port(node), "/v0/status").body(), StandardCharsets.UTF_8);
        return JsonText.stringField(status, "topology").orElseThrow(() -> new AssertionError("no topology in " + status));
    }

    /** The metadata's epoch and leader as node {@code node}'s status tells them. */
    private String metadata(int node) throws IOException {
        String status = new String(RawHttp.get(cluster.port(node), "/v0/status").body(), StandardCharsets.UTF_8);
        Matcher m = METADATA.matcher(status);
        assertThat("metadata in the status: " + status, m.find(), is(true));
        assertThat("the metadata group has a leader: " + status, m.group(2).equals("null"), is(false));
        return "epoch " + m.group(1) + ", leader " + m.group(2);
    }

    private static String epochOf(String metadata) {
        return metadata.substring(0, metadata.indexOf(','));
    }

    /**
     * Proof fields for a request to {@code node} that are well formed and fresh but signed with
     * another secret: what a stranger can send, since every field but the MAC is public.
     */
    private Map<String, String> forged(int node, String method, String target) {
        try {
            InternalAuth forger = new InternalAuth(ClusterSecret.of(ClusterSecret.generateText()), cluster.url(1), topology(node),
                    System::currentTimeMillis);
            return forger.sign(cluster.url(node), method, target, Map.of(), new byte[0]);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static byte[] chunkedHead(String method, String target, Map<String, String> fields) {
        StringBuilder head = new StringBuilder(method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n");
        fields.forEach((name, value) -> head.append(name).append(": ").append(value).append("\r\n"));
        return head.append("\r\n").toString().getBytes(StandardCharsets.US_ASCII);
    }

    /** One chunk of {@code size} zero bytes, with its framing. */
    private static byte[] chunk(int size) {
        byte[] sizeLine = (Integer.toHexString(size) + "\r\n").getBytes(StandardCharsets.US_ASCII);
        byte[] chunk = new byte[sizeLine.length + size + 2];
        System.arraycopy(sizeLine, 0, chunk, 0, sizeLine.length);
        chunk[chunk.length - 2] = '\r';
        chunk[chunk.length - 1] = '\n';
        return chunk;
    }

    /** Whether the node closed {@code socket}: end of stream or a reset, after whatever it sent is read. */
    private static boolean closedByNode(Socket socket) {
        try {
            while (socket.getInputStream().read() != -1) {
                // draining what came after the answer (nothing should)
            }
            return true;
        } catch (SocketTimeoutException stillOpen) {
            return false;
        } catch (IOException reset) {
            return true;
        }
    }

    /**
     * Pushes DATA on {@code streamId} as the node's flow-control windows allow, up to {@code bytes},
     * until the node answers the stream; then collects its HEADERS (as :status) and RST_STREAM.
     */
    private static List<String> pushUntilAnswered(RawH2 h2, int streamId, int bytes) throws IOException {
        List<String> seen = new ArrayList<>();
        long connectionWindow = 65_535;
        long streamWindow = 65_535;
        int left = bytes;
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (seen.size() < 2 && System.nanoTime() < end) {
            int n = (int) Math.min(left, Math.min(16 * 1024, Math.min(connectionWindow, streamWindow)));
            if (n > 0 && seen.isEmpty()) {
                h2.send(new DataFrame(streamId, ByteBuffer.allocate(n), false));
                connectionWindow -= n;
                streamWindow -= n;
                left -= n;
            }
            Frame frame;
            try {
                frame = h2.next(n > 0 && seen.isEmpty() ? Duration.ofMillis(1) : Duration.ofSeconds(5));
            } catch (SocketTimeoutException nothingYet) {
                continue;
            }
            if (frame == null) {
                seen.add("closed");
                break;
            }
            switch (frame) {
                case io.ringkv.http.h2.WindowUpdateFrame w when w.streamId() == 0 -> connectionWindow += w.increment();
                case io.ringkv.http.h2.WindowUpdateFrame w when w.streamId() == streamId -> streamWindow += w.increment();
                case io.ringkv.http.h2.SettingsFrame settings when !settings.ack() -> {
                    for (io.ringkv.http.h2.SettingsFrame.Setting setting : settings.settings()) {
                        if (setting.id() == 0x4) { // SETTINGS_INITIAL_WINDOW_SIZE
                            streamWindow += setting.value() - 65_535;
                        }
                    }
                    h2.send(io.ringkv.http.h2.SettingsFrame.ACK_FRAME);
                }
                case HeadersFrame headers when headers.streamId() == streamId -> seen.add("HEADERS :status=" + h2.lastStatus());
                case RstStreamFrame reset when reset.streamId() == streamId -> seen.add("RST_STREAM " + ErrorCode.of(reset.errorCode()));
                default -> { }
            }
        }
        return seen;
    }

    private static byte[] head(String method, String target, Map<String, String> fields, int contentLength) {
        StringBuilder head = new StringBuilder(method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: "
                + contentLength + "\r\n");
        fields.forEach((name, value) -> head.append(name).append(": ").append(value).append("\r\n"));
        return head.append("\r\n").toString().getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * A Ratis RequestVoteRequestProto, encoded by hand (protobuf wire format, field numbers of
     * Ratis's Raft.proto): serverRequest (1) = {requestorId (1), replyId (2), raftGroupId (3) = {id (1)}},
     * candidateTerm (2).
     */
    private static byte[] requestVote(String requestor, String replyTo, UUID group, long term) {
        byte[] groupId = field(1, uuidBytes(group));
        java.io.ByteArrayOutputStream server = new java.io.ByteArrayOutputStream();
        server.writeBytes(field(1, requestor.getBytes(StandardCharsets.UTF_8)));
        server.writeBytes(field(2, replyTo.getBytes(StandardCharsets.UTF_8)));
        server.writeBytes(field(3, groupId));
        java.io.ByteArrayOutputStream vote = new java.io.ByteArrayOutputStream();
        vote.writeBytes(field(1, server.toByteArray()));
        vote.write(2 << 3); // field 2, varint
        vote.writeBytes(varint(term));
        return vote.toByteArray();
    }

    /** A length-delimited protobuf field. */
    private static byte[] field(int number, byte[] value) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        out.write(number << 3 | 2);
        out.writeBytes(varint(value.length));
        out.writeBytes(value);
        return out.toByteArray();
    }

    private static byte[] varint(long value) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        while ((value & ~0x7FL) != 0) {
            out.write((int) (value & 0x7F) | 0x80);
            value >>>= 7;
        }
        out.write((int) value);
        return out.toByteArray();
    }

    private static byte[] uuidBytes(UUID id) {
        return ByteBuffer.allocate(16).putLong(id.getMostSignificantBits()).putLong(id.getLeastSignificantBits()).array();
    }

    /** The HEADERS (as its :status) and RST_STREAM frames on {@code streamId} until the deadline or the close. */
    private static List<String> streamOutcomes(RawH2 h2, int streamId, Duration within) throws IOException {
        return streamOutcomes(h2, streamId, within, 2);
    }

    /** The first {@code wanted} outcomes (HEADERS, RST_STREAM) of the stream, or fewer if {@code within} passes first. */
    private static List<String> streamOutcomes(RawH2 h2, int streamId, Duration within, int wanted) throws IOException {
        List<String> seen = new ArrayList<>();
        long end = System.nanoTime() + within.toNanos();
        while (System.nanoTime() < end && seen.size() < wanted) {
            Frame frame;
            try {
                frame = h2.next(Duration.ofNanos(Math.max(1, end - System.nanoTime())));
            } catch (SocketTimeoutException e) {
                break;
            }
            if (frame == null) {
                seen.add("closed");
                break;
            }
            if (frame.streamId() != streamId) {
                continue;
            }
            if (frame instanceof HeadersFrame) {
                seen.add("HEADERS :status=" + h2.lastStatus());
            } else if (frame instanceof RstStreamFrame r) {
                seen.add("RST_STREAM " + ErrorCode.of(r.errorCode()));
            }
        }
        return seen;
    }
}
