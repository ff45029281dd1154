package io.ringkv.cluster;

import io.ringkv.cluster.peer.PeerTransport;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;

import io.ringkv.cluster.meta.ClusterMetadata;
import io.ringkv.cluster.meta.Member;
import io.ringkv.cluster.meta.MemberState;
import io.ringkv.store.HybridLogicalClock;
import io.ringkv.store.InMemoryStorageEngine;
import io.ringkv.store.Record;
import io.ringkv.store.StorageEngine;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A join's hand-over as the second source of a key runs it: three owners at RF 3 (this node, a
 * first source served on a real port, a third owner that does not answer) and a fourth node
 * joining, served too, which receives what this node sends. Real engines, real sockets, this node's
 * and the first source's live digests.
 */
@Timeout(60)
class JoinHandOverTest {
    private static final HybridLogicalClock CLOCK = new HybridLogicalClock(() -> 1_700_000_000_000L);
    private static final int KEYS = 3_000;

    private final ExecutorService clientExecutor = InterNodeHttpClients.newExecutor(2);
    private final PeerTransport http = TestAuth.peers(clientExecutor);
    private final ReplicaClient client = TestAuth.client(http, Duration.ofSeconds(2));
    private final StorageEngine engine = new InMemoryStorageEngine();
    private final StorageEngine firstEngine = new InMemoryStorageEngine();
    private final StorageEngine joiningEngine = new InMemoryStorageEngine();
    private final List<AutoCloseable> resources = new ArrayList<>();
    private ClusterNode self;
    private ClusterNode first;
    private ClusterNode silent;
    private MembershipView view;
    private Cleanup cleanup;

    @BeforeEach
    void fourNodes() throws Exception {
        String selfUrl = TestAuth.SELF; // the node the test's client speaks for; never called
        String silentUrl;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            silentUrl = "http://127.0.0.1:" + probe.getLocalPort(); // refuses connections once closed
        }
        ServerHarness firstServer = ServerHarness.startFor(url -> firstSource(url, selfUrl, silentUrl));
        resources.add(firstServer);
        ServerHarness joiningServer = ServerHarness.startFor(url -> TestAuth.handler(url, joiningEngine, CLOCK));
        resources.add(joiningServer);

        List<String> owners = List.of(selfUrl, firstServer.url(), silentUrl);
        ClusterMetadata metadata = metadata(owners, joiningServer.url());
        ClusterNodes topology = ClusterNodes.of(owners, selfUrl);
        topology.follow(metadata);
        view = topology.view();
        self = topology.self();
        first = ClusterNode.parse(firstServer.url());
        silent = ClusterNode.parse(silentUrl);
        AntiEntropy antiEntropy = new AntiEntropy(engine, topology, client, AntiEntropySettings.defaults(), record -> false,
                () -> 3);
        resources.add(antiEntropy);
        cleanup = new Cleanup(engine, topology, () -> 3, client, new ScanPacer(1_000_000_000L), Duration.ofSeconds(5),
                antiEntropy::digestAgainst);
        resources.add(cleanup);
    }

    /** The first source: its own view of the owners, its digest kept per write as a node's is. */
    private InternalApiHandler firstSource(String url, String selfUrl, String silentUrl) {
        try {
            AntiEntropy antiEntropy = new AntiEntropy(firstEngine, ClusterNodes.of(List.of(selfUrl, url, silentUrl), url),
                    client, AntiEntropySettings.defaults(), record -> false, () -> 3);
            resources.add(antiEntropy);
            return TestAuth.handler(url, firstEngine, CLOCK, antiEntropy);
        } catch (io.ringkv.store.StoreException e) {
            throw new IllegalStateException(e);
        }
    }

    private static ClusterMetadata metadata(List<String> owners, String joining) {
        List<Member> members = new ArrayList<>();
        for (int i = 0; i < owners.size(); i++) {
            members.add(member(owners.get(i), MemberState.NORMAL, i));
        }
        members.add(member(joining, MemberState.JOINING, owners.size()));
        return new ClusterMetadata(2, 3, members);
    }

    private static Member member(String url, MemberState state, int index) {
        ClusterNode node = ClusterNode.parse(url);
        return new Member(Member.idOf(node), node.id(), state, index, null);
    }

    @AfterEach
    void closeEverything() throws Exception {
        TestAuth.closeAll(resources, http, clientExecutor);
    }

    private static byte[] key(int i) {
        return ("key-" + i).getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The joining node gets, from this node: every record of the keys it sends first; every record
     * of the keys whose first source cannot be asked; and, of the keys the first source sends, only
     * those of the buckets where the two differ, among them the write the first source missed.
     * Without the comparison it would get every key of which this node is a source, about twice
     * what it needs; with only the first sources sending, the missed write would not reach it.
     */
    @Test
    void aSecondSourceSendsOnlyTheBucketsWhereTheFirstSourceDiffersAndSoTheWriteItMissed() throws Exception {
        byte[] missed = null;
        for (int i = 0; i < KEYS; i++) {
            byte[] key = key(i);
            Record record = Record.value(100 + i, key);
            engine.apply(key, record);
            firstEngine.apply(key, record);
            if (missed == null && isSecondAfterFirst(key)) {
                missed = key;
            }
        }
        // A write acknowledged by this node and the third owner that the first source missed.
        byte[] missedKey = missed;
        engine.apply(missedKey, Record.value(1_000_000, "acknowledged".getBytes(StandardCharsets.UTF_8)));
        int missedBucket = DigestBuckets.bucketOf(missedKey);

        CleanupStatus status = cleanup.run();

        assertThat("the write the first source missed", joiningEngine.get(missedKey)
                .map(record -> new String(record.value(), StandardCharsets.UTF_8)), is(java.util.Optional.of("acknowledged")));
        List<String> wrong = new ArrayList<>();
        int sentFirst = 0;
        int unsentSecond = 0;
        int sentForSilent = 0;
        for (int i = 0; i < KEYS; i++) {
            byte[] key = key(i);
            if (view.pending(key, 3).isEmpty()) {
                continue;
            }
            Cleanup.SendRule rule = Cleanup.rule(view, self, key, 3);
            boolean received = joiningEngine.get(key).isPresent();
            boolean expected = rule.sends() && (rule.firstSource() == null || rule.firstSource().equals(silent)
                    || DigestBuckets.bucketOf(key) == missedBucket);
            if (received != expected && wrong.size() < 5) {
                wrong.add("key-" + i + " (" + rule + ", received " + received + ")");
            }
            sentFirst += rule.equals(Cleanup.SendRule.ALWAYS) ? 1 : 0;
            unsentSecond += first.equals(rule.firstSource()) && !expected ? 1 : 0;
            sentForSilent += silent.equals(rule.firstSource()) ? 1 : 0;
        }
        assertThat("the first keys sent or left wrongly", wrong, is(empty()));
        assertThat("keys this node sends first", sentFirst, greaterThan(0));
        assertThat("keys left to the first source", unsentSecond, greaterThan(0));
        assertThat("keys of a first source that cannot be asked", sentForSilent, greaterThan(0));
        assertThat(status.handedOff(), is((long) joiningEngineSize()));
    }

    private boolean isSecondAfterFirst(byte[] key) {
        return !view.pending(key, 3).isEmpty() && first.equals(Cleanup.rule(view, self, key, 3).firstSource());
    }

    private int joiningEngineSize() throws Exception {
        int count = 0;
        try (var cursor = joiningEngine.range(new byte[0], null)) {
            while (cursor.next()) {
                count++;
            }
        }
        return count;
    }
}
