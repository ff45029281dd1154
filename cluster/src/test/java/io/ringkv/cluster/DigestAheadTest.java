package io.ringkv.cluster;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import io.ringkv.cluster.meta.ClusterMetadata;
import io.ringkv.cluster.meta.Member;
import io.ringkv.cluster.meta.MemberState;
import io.ringkv.store.InMemoryStorageEngine;
import io.ringkv.store.Record;
import io.ringkv.store.StorageEngine;
import io.ringkv.store.StoreException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Anti-entropy's digest for the owners a membership change will leave is built while the change
 * runs, so that the epoch which completes it scans nothing (every node scanned its store at that
 * moment before, under load). The digest it swaps in must equal one built from scratch for the
 * new owners, writes made during the change included; a change that ends otherwise leaves the
 * digest of the owners it started with, still current.
 */
@Timeout(60)
class DigestAheadTest {
    private static final List<String> URLS = List.of("http://n1:1", "http://n2:2", "http://n3:3", "http://n4:4");

    private final AtomicInteger scans = new AtomicInteger();
    /** Listeners set without a scan: a digest swapped in, or put back alone. */
    private final AtomicInteger listenersSet = new AtomicInteger();
    private final StorageEngine engine = WatchedEngine.of(new InMemoryStorageEngine(), (method, args, result) -> {
        switch (method.getName()) {
            case "setChangeListenerAndScan" -> scans.incrementAndGet();
            case "setChangeListener" -> listenersSet.incrementAndGet();
            default -> { }
        }
        return result;
    });
    private final ClusterNodes topology = ClusterNodes.of(URLS.subList(0, 3), URLS.get(0));

    @Test
    void aJoinsDigestIsBuiltDuringItAndInUseWithoutAScanAtTheEpochThatEndsIt() throws Exception {
        write(0, 2_000, 1);
        try (AntiEntropy antiEntropy = new AntiEntropy(engine, topology, null, AntiEntropySettings.defaults(), record -> false)) {
            assertThat("the digest built at start", scans.get(), is(1));

            topology.follow(metadata(2, MemberState.JOINING));
            await(() -> scans.get() == 2, "a digest built for the owners after the join, while it runs");
            write(1_500, 2_600, 10_000); // overwrites, new keys and tombstones while the join runs
            topology.follow(metadata(3, MemberState.NORMAL));
            RendezvousPlacement four = topology.placement();
            await(() -> antiEntropy.digestAgainst(ClusterNode.parse(URLS.get(3)), 3, four) != null,
                    "the digest of the four owners in use");

            assertThat("no scan at the epoch that ended the join", scans.get(), is(2));
            assertSameAsBuiltFromScratch(antiEntropy, four);
        }
    }

    @Test
    void anAbortedJoinLeavesTheDigestOfTheOwnersBeforeItCurrent() throws Exception {
        write(0, 2_000, 1);
        try (AntiEntropy antiEntropy = new AntiEntropy(engine, topology, null, AntiEntropySettings.defaults(), record -> false)) {
            RendezvousPlacement three = topology.placement();
            topology.follow(metadata(2, MemberState.JOINING));
            await(() -> scans.get() == 2, "a digest built for the owners after the join, while it runs");
            int set = listenersSet.get();
            topology.follow(metadata(3, MemberState.LEFT)); // aborted: the owners stay the three
            await(() -> listenersSet.get() > set, "the digest built ahead dropped, the one in use alone told of writes");
            write(1_000, 2_500, 10_000);
            RendezvousPlacement now = topology.placement();
            assertThat(java.util.Set.copyOf(now.nodes()), is(java.util.Set.copyOf(three.nodes())));

            assertThat("nothing scanned for the abort", scans.get(), is(2));
            assertSameAsBuiltFromScratch(antiEntropy, now);
        }
    }

    /** Every per-peer digest at every factor, and the whole store's, as a scan of the store now gives them. */
    private void assertSameAsBuiltFromScratch(AntiEntropy antiEntropy, RendezvousPlacement placement) throws StoreException {
        LiveDigest fresh = LiveDigest.attach(engine, placement, topology.self(), null);
        for (ClusterNode peer : placement.nodes()) {
            if (topology.isSelf(peer)) {
                continue;
            }
            for (int rf = 2; rf < placement.clusterSize(); rf++) {
                assertThat("peer " + peer + " at factor " + rf, antiEntropy.digestAgainst(peer, rf, placement),
                        is(fresh.snapshot(peer, rf)));
            }
            assertThat("the whole store", antiEntropy.digestAgainst(peer, placement.clusterSize(), placement),
                    is(fresh.snapshot()));
        }
    }

    private void write(int from, int to, long timestamp) throws StoreException {
        for (int i = from; i < to; i++) {
            byte[] key = ("key-" + i).getBytes(StandardCharsets.UTF_8);
            engine.apply(key, i % 9 == 0 && timestamp > 1 ? Record.tombstone(timestamp + i)
                    : Record.value(timestamp + i, key));
        }
    }

    private static ClusterMetadata metadata(long epoch, MemberState fourth) {
        List<Member> members = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            members.add(member(URLS.get(i), MemberState.NORMAL, i));
        }
        members.add(member(URLS.get(3), fourth, 3));
        return new ClusterMetadata(epoch, 3, members);
    }

    private static Member member(String url, MemberState state, int index) {
        return new Member(Member.idOf(ClusterNode.parse(url)), ClusterNode.parse(url).id(), state, index, null);
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 10 s: " + what);
            }
            Thread.sleep(10);
        }
    }
}
