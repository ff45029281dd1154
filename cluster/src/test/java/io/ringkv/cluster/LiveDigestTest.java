package io.ringkv.cluster;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import io.ringkv.store.InMemoryStorageEngine;
import io.ringkv.store.Record;
import io.ringkv.store.RocksDbStorageEngine;
import io.ringkv.store.StorageEngine;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The live digest against a full scan of the same engine, after concurrent writes, overwrites and purges. */
class LiveDigestTest {
    @TempDir
    Path dir;

    @Test
    void matchesAFullScanOfAnInMemoryEngine() throws Exception {
        try (StorageEngine engine = new InMemoryStorageEngine()) {
            checkAgainstScan(engine);
        }
    }

    @Test
    void matchesAFullScanOfARocksDbEngine() throws Exception {
        try (StorageEngine engine = RocksDbStorageEngine.open(dir.resolve("db"))) {
            checkAgainstScan(engine);
        }
    }

    /**
     * Per peer and per replication factor, the digest of the keys both nodes own equals a scan of
     * those keys alone: after the starting scan, and after concurrent writes, overwrites and purges.
     */
    @Test
    void perPeerDigestsMatchAScanOfTheKeysBothOwnAtEveryFactor() throws Exception {
        List<String> urls = java.util.stream.IntStream.rangeClosed(1, 5).mapToObj(i -> "http://node-" + i + ":808" + i).toList();
        ClusterNodes topology = ClusterNodes.of(urls, urls.get(2));
        RendezvousPlacement placement = new RendezvousPlacement(topology);
        try (StorageEngine engine = new InMemoryStorageEngine()) {
            for (int i = 0; i < 500; i++) {
                engine.apply(key(i), Record.value(1 + i, utf8("before the digest")));
            }
            LiveDigest digest = LiveDigest.attach(engine, placement, topology.self());
            checkPerPeer(engine, digest, topology, placement, "built by the scan");
            Random random = new Random(7);
            for (int n = 0; n < 3_000; n++) {
                byte[] key = key(random.nextInt(800));
                long timestamp = 1_000 + random.nextInt(100_000);
                switch (random.nextInt(4)) {
                    case 0 -> engine.apply(key, Record.tombstone(timestamp));
                    case 1 -> engine.get(key).ifPresent(stored -> purge(engine, key, stored));
                    default -> engine.apply(key, Record.value(timestamp, utf8("v" + n)));
                }
            }
            checkPerPeer(engine, digest, topology, placement, "kept per write");
        }
    }

    private static void purge(StorageEngine engine, byte[] key, Record stored) {
        try {
            engine.purge(key, stored);
        } catch (io.ringkv.store.StoreException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void checkPerPeer(StorageEngine engine, LiveDigest digest, ClusterNodes topology,
                                     RendezvousPlacement placement, String when) throws Exception {
        for (ClusterNode peer : topology.others()) {
            for (int rf = 1; rf <= topology.size(); rf++) {
                int factor = rf;
                long[] scanned = DigestBuckets.digestOf(engine,
                        key -> placement.bothOwn(key, topology.self(), peer, factor));
                assertThat(when + ", " + peer + " at rf " + rf, digest.snapshot(peer, rf), is(scanned));
            }
        }
        assertThat(when + ": rf = n is every key", digest.snapshot(topology.others().get(0), topology.size()),
                is(DigestBuckets.digest(engine)));
    }

    private static void checkAgainstScan(StorageEngine engine) throws Exception {
        for (int i = 0; i < 500; i++) {
            engine.apply(key(i), Record.value(1 + i, utf8("before the digest")));
        }
        LiveDigest digest = LiveDigest.attach(engine);
        assertThat("built by the scan", digest.snapshot(), is(DigestBuckets.digest(engine)));

        ExecutorService writers = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int w = 0; w < 4; w++) {
                long seed = w;
                done.add(writers.submit(() -> {
                    Random random = new Random(seed);
                    for (int n = 0; n < 2_000; n++) {
                        byte[] key = key(random.nextInt(800));
                        long timestamp = 1_000 + random.nextInt(100_000);
                        switch (random.nextInt(4)) {
                            case 0 -> engine.apply(key, Record.tombstone(timestamp));
                            case 1 -> {
                                Optional<Record> stored = engine.get(key);
                                if (stored.isPresent()) {
                                    engine.purge(key, stored.get());
                                }
                            }
                            default -> engine.apply(key, Record.value(timestamp, utf8("v" + n)));
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> writer : done) {
                writer.get();
            }
        } finally {
            writers.shutdownNow();
        }
        assertThat("kept per write", digest.snapshot(), is(DigestBuckets.digest(engine)));
    }

    /**
     * A digest built again while writers run (as anti-entropy does when the owners change, under
     * load) ends equal to a scan of the store once they stop, and the digest it replaces went on
     * hearing of every change meanwhile. The scan is slowed (a pause every 100 records) so that
     * writes land both behind and ahead of it; before, a write to a key the scan had passed was
     * lost to the new digest.
     */
    @Test
    void aDigestBuiltAgainWhileWritersRunMissesNoWrite() throws Exception {
        try (RocksDbStorageEngine rocks = RocksDbStorageEngine.open(dir.resolve("rebuilt"))) {
            StorageEngine engine = slowScans(rocks);
            for (int i = 0; i < 3_000; i++) {
                engine.apply(key(i), Record.value(1 + i, utf8("before")));
            }
            LiveDigest previous = LiveDigest.attach(engine);
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong clock = new AtomicLong(10_000);
            AtomicInteger written = new AtomicInteger();
            ExecutorService writers = Executors.newFixedThreadPool(2);
            LiveDigest rebuilt;
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int w = 0; w < 2; w++) {
                    long seed = w;
                    done.add(writers.submit(() -> {
                        Random random = new Random(seed);
                        while (!stop.get()) {
                            byte[] key = key(random.nextInt(3_500));
                            long timestamp = clock.incrementAndGet();
                            if (random.nextInt(5) == 0) {
                                engine.apply(key, Record.tombstone(timestamp));
                            } else {
                                engine.apply(key, Record.value(timestamp, utf8("w" + timestamp)));
                            }
                            written.incrementAndGet();
                        }
                        return null;
                    }));
                }
                rebuilt = LiveDigest.attach(engine, null, null, previous);
                int duringTheScan = written.get();
                stop.set(true);
                for (Future<?> writer : done) {
                    writer.get();
                }
                assertThat("writes landed during the scan", duringTheScan > 100, is(true));
            } finally {
                writers.shutdownNow();
            }
            long[] scanned = DigestBuckets.digest(engine);
            assertThat("the digest built while writes landed", rebuilt.snapshot(), is(scanned));
            assertThat("the digest it replaces, meanwhile", previous.snapshot(), is(scanned));
        }
    }

    /** {@code engine}, its scans pausing a millisecond every 100 records (a slow disk). */
    private static StorageEngine slowScans(StorageEngine engine) {
        return WatchedEngine.of(engine, (method, args, result) -> {
            if (!(result instanceof io.ringkv.store.RangeCursor cursor)) {
                return result;
            }
            AtomicInteger read = new AtomicInteger();
            return WatchedEngine.stepping(cursor, (stepped, more) -> {
                if (read.incrementAndGet() % 100 == 0) {
                    pause();
                }
            });
        });
    }

    private static void pause() {
        try {
            Thread.sleep(1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static byte[] key(int i) {
        return utf8("key-" + i);
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
