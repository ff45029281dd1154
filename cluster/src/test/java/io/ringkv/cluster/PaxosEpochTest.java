package io.ringkv.cluster;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ringkv.cluster.meta.ClusterMetadata;
import io.ringkv.cluster.meta.Member;
import io.ringkv.cluster.meta.MemberState;
import io.ringkv.cluster.peer.PeerTransport;
import io.ringkv.store.HybridLogicalClock;
import io.ringkv.store.InMemoryStorageEngine;
import io.ringkv.store.Record;
import io.ringkv.store.StorageEngine;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A compare-and-set's acceptor, served on a real port with its node's metadata at epoch 3, takes
 * part only in rounds started under that epoch and no change in progress. A round started under
 * another epoch (a proposer that has not heard of the change, whose key's replicas may differ) is
 * refused with a retryable 503, before anything is promised or accepted: rounds under two owner
 * sets could otherwise each win a majority of their own. Before, an acceptor answered every round
 * whatever the epoch its proposer had.
 */
@Timeout(60)
class PaxosEpochTest {
    private static final HybridLogicalClock CLOCK = new HybridLogicalClock(() -> 1_700_000_000_000L);
    private static final long EPOCH = 3;
    private static final byte[] KEY = "k".getBytes(StandardCharsets.UTF_8);

    private final ExecutorService clientExecutor = InterNodeHttpClients.newExecutor(2);
    private final PeerTransport http = TestAuth.peers(clientExecutor);
    private final StorageEngine engine = new InMemoryStorageEngine();
    private final List<AutoCloseable> resources = new ArrayList<>();
    private final ReplicaClient proposer = TestAuth.client(http, Duration.ofSeconds(5));

    @AfterEach
    void closeEverything() throws Exception {
        TestAuth.closeAll(resources, http, clientExecutor);
    }

    @Test
    void aRoundStartedUnderAnOlderEpochIsRefusedAndPromisesNothing() throws Exception {
        ClusterNode acceptor = acceptorAt(false);

        assertRefused(proposer.paxosPrepare(acceptor, new PaxosMessages.Prepare(KEY, 100), EPOCH - 1));
        assertRefused(proposer.paxosAccept(acceptor, new PaxosMessages.Accept(KEY, 100, Record.value(100, utf8("old"))),
                EPOCH - 1));

        PaxosMessages.Promise now = proposer.paxosPrepare(acceptor, new PaxosMessages.Prepare(KEY, 50), EPOCH)
                .get(10, TimeUnit.SECONDS);
        assertThat("ballot 100 was never promised", now.granted(), is(true));
        assertThat("nothing was accepted", now.acceptedBallot(), is(0L));
        assertThat(proposer.paxosAccept(acceptor, new PaxosMessages.Accept(KEY, 50, Record.value(50, utf8("new"))), EPOCH)
                .get(10, TimeUnit.SECONDS).granted(), is(true));
    }

    @Test
    void aRoundIsRefusedWhileAMemberJoins() throws Exception {
        ClusterNode acceptor = acceptorAt(true);

        assertRefused(proposer.paxosPrepare(acceptor, new PaxosMessages.Prepare(KEY, 100), EPOCH));

        assertThat("the refused ballot was not promised", proposer.paxosPrepare(acceptor, new PaxosMessages.Prepare(KEY, 50),
                PaxosAcceptor.NO_EPOCH).get(10, TimeUnit.SECONDS).granted(), is(true));
    }

    /** A round from a node ahead waits for this one to catch up; with no metadata leader to read from, it is refused. */
    @Test
    void aRoundStartedUnderANewerEpochThanThisNodeCanLearnIsRefused() throws Exception {
        ClusterNode acceptor = acceptorAt(false);

        assertRefused(proposer.paxosPrepare(acceptor, new PaxosMessages.Prepare(KEY, 100), EPOCH + 1));

        assertThat(proposer.paxosPrepare(acceptor, new PaxosMessages.Prepare(KEY, 50), EPOCH).get(10, TimeUnit.SECONDS)
                .granted(), is(true));
    }

    /** Refused with a retryable status (the reasons' texts: PaxosAcceptorTest). */
    private static void assertRefused(java.util.concurrent.CompletableFuture<?> call) {
        ExecutionException refused = assertThrows(ExecutionException.class, () -> call.get(10, TimeUnit.SECONDS));
        assertThat(refused.getCause(), instanceOf(ReplicaException.class));
        assertThat(refused.getCause().getMessage(), containsString("status 503"));
    }

    /** The acceptor's node: itself and a peer normal at {@link #EPOCH}, and a third node joining when {@code changing}. */
    private ClusterNode acceptorAt(boolean changing) throws Exception {
        ServerHarness server = ServerHarness.startFor(url -> handler(url, changing));
        resources.add(server);
        return ClusterNode.parse(server.url());
    }

    private InternalApiHandler handler(String url, boolean changing) {
        String peer = "http://127.0.0.1:1";
        List<Member> members = new ArrayList<>(List.of(member(url, 0, MemberState.NORMAL), member(peer, 1, MemberState.NORMAL)));
        if (changing) {
            members.add(member("http://127.0.0.1:2", 2, MemberState.JOINING));
        }
        ClusterMetadata metadata = new ClusterMetadata(EPOCH, 2, members);
        ClusterNodes topology = ClusterNodes.of(List.of(url, peer), url);
        topology.follow(metadata);
        return TestAuth.handlerKnowing(url, engine, CLOCK, metadata, new PaxosAcceptor(engine, timestamp -> false, topology::view),
                Duration.ofMillis(200));
    }

    private static Member member(String url, int index, MemberState state) {
        ClusterNode node = ClusterNode.parse(url);
        return new Member(Member.idOf(node), node.id(), state, index, null);
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
