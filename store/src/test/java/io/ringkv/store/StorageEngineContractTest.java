package io.ringkv.store;

import static org.hamcrest.Matchers.hasSize;

import java.nio.charset.StandardCharsets;

import java.util.Map;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The {@link StorageEngine} contract; each engine runs it through a subclass. */
@Timeout(60)
abstract class StorageEngineContractTest {

    @TempDir
    Path dir;

    StorageEngine engine;

    /** A fresh, empty engine; {@code dir} is an empty directory it may use. */
    abstract StorageEngine openEngine(Path dir) throws StoreException;

    @BeforeEach
    void openEngine() throws StoreException {
        engine = openEngine(dir.resolve("db"));
    }

    @AfterEach
    void closeEngine() {
        engine.close();
    }

    @Test
    void getOfAbsentKeyIsEmpty() throws StoreException {
        assertThat(engine.get(bytes("absent")), is(Optional.empty()));
    }

    @Test
    void appliedRecordIsReturnedByGet() throws StoreException {
        Record record = Record.value(10, bytes("v1"));
        assertThat(engine.apply(bytes("k"), record), is(true));
        assertThat(engine.get(bytes("k")), is(Optional.of(record)));
    }

    @Test
    void newerRecordReplacesOlder() throws StoreException {
        engine.apply(bytes("k"), Record.value(10, bytes("old")));
        assertThat(engine.apply(bytes("k"), Record.value(11, bytes("new"))), is(true));
        assertThat(engine.get(bytes("k")).orElseThrow().value(), equalTo(bytes("new")));
    }

    @Test
    void olderRecordArrivingLateIsIgnored() throws StoreException {
        engine.apply(bytes("k"), Record.value(20, bytes("new")));
        assertThat(engine.apply(bytes("k"), Record.value(10, bytes("old"))), is(false));
        assertThat(engine.get(bytes("k")), is(Optional.of(Record.value(20, bytes("new")))));
    }

    @Test
    void equalRecordAppliedTwiceIsNotNewer() throws StoreException {
        assertThat(engine.apply(bytes("k"), Record.value(10, bytes("v"))), is(true));
        assertThat(engine.apply(bytes("k"), Record.value(10, bytes("v"))), is(false));
    }

    @Test
    void tieOnTimestampIsWonByGreaterValueWhicheverArrivesFirst() throws StoreException {
        engine.apply(bytes("a"), Record.value(10, bytes("x")));
        engine.apply(bytes("a"), Record.value(10, bytes("y")));
        engine.apply(bytes("b"), Record.value(10, bytes("y")));
        engine.apply(bytes("b"), Record.value(10, bytes("x")));
        assertThat(engine.get(bytes("a")).orElseThrow().value(), equalTo(bytes("y")));
        assertThat(engine.get(bytes("b")).orElseThrow().value(), equalTo(bytes("y")));
    }

    @Test
    void tieOnTimestampIsWonByTombstone() throws StoreException {
        engine.apply(bytes("a"), Record.tombstone(10));
        assertThat(engine.apply(bytes("a"), Record.value(10, bytes("v"))), is(false));
        engine.apply(bytes("b"), Record.value(10, bytes("v")));
        assertThat(engine.apply(bytes("b"), Record.tombstone(10)), is(true));
        assertThat(engine.get(bytes("a")), is(Optional.of(Record.tombstone(10))));
        assertThat(engine.get(bytes("b")), is(Optional.of(Record.tombstone(10))));
    }

    @Test
    void outOfOrderArrivalConvergesToNewest() throws StoreException {
        long[] arrival = {5, 1, 9, 3, 7, 2, 8};
        for (long timestamp : arrival) {
            engine.apply(bytes("k"), Record.value(timestamp, bytes("v" + timestamp)));
        }
        assertThat(engine.get(bytes("k")), is(Optional.of(Record.value(9, bytes("v9")))));
    }

    @Test
    void tombstoneIsStoredAndReturned() throws StoreException {
        engine.apply(bytes("k"), Record.value(1, bytes("v")));
        assertThat(engine.apply(bytes("k"), Record.tombstone(2)), is(true));
        assertThat(engine.get(bytes("k")), is(Optional.of(Record.tombstone(2))));
    }

    @Test
    void olderValueDoesNotResurrectDeletedKey() throws StoreException {
        engine.apply(bytes("k"), Record.tombstone(5));
        assertThat(engine.apply(bytes("k"), Record.value(4, bytes("zombie"))), is(false));
        assertThat(engine.get(bytes("k")), is(Optional.of(Record.tombstone(5))));
    }

    @Test
    void tombstoneOfAbsentKeyIsStored() throws StoreException {
        assertThat(engine.apply(bytes("never-written"), Record.tombstone(3)), is(true));
        assertThat(engine.get(bytes("never-written")), is(Optional.of(Record.tombstone(3))));
    }

    @Test
    void emptyValueIsStoredAndDistinctFromAbsent() throws StoreException {
        engine.apply(bytes("k"), Record.value(1, new byte[0]));
        Record stored = engine.get(bytes("k")).orElseThrow();
        assertThat(stored.tombstone(), is(false));
        assertThat(stored.value().length, is(0));
    }

    @Test
    void binaryKeysWithZeroAndFfBytesAreDistinct() throws StoreException {
        byte[][] keys = {{}, {0}, {0, 0}, {(byte) 0xFF}, {(byte) 0xFF, 0}, {0, (byte) 0xFF}};
        for (int i = 0; i < keys.length; i++) {
            engine.apply(keys[i], Record.value(1, new byte[] {(byte) i}));
        }
        for (int i = 0; i < keys.length; i++) {
            assertThat(engine.get(keys[i]).orElseThrow().value(), equalTo(new byte[] {(byte) i}));
        }
    }

    @Test
    void binaryValuesRoundTripExactly() throws StoreException {
        byte[] value = new byte[256];
        for (int i = 0; i < value.length; i++) {
            value[i] = (byte) i;
        }
        engine.apply(bytes("k"), Record.value(1, value));
        assertThat(engine.get(bytes("k")).orElseThrow().value(), equalTo(value));
    }

    @Test
    void callerMutatingTheKeyAfterApplyDoesNotChangeTheStoredKey() throws StoreException {
        byte[] key = bytes("k1");
        engine.apply(key, Record.value(1, bytes("v")));
        key[1] = '2';
        assertThat(engine.get(bytes("k1")).isPresent(), is(true));
        assertThat(engine.get(bytes("k2")).isPresent(), is(false));
    }

    @Test
    void rangeWithEndIsStartInclusiveEndExclusive() throws StoreException {
        applyValues("a", "b", "c", "d");
        assertThat(keysIn(bytes("b"), bytes("d")), contains("b", "c"));
    }

    @Test
    void rangeWithoutEndRunsToTheLastKey() throws StoreException {
        applyValues("a", "b", "c", "d");
        assertThat(keysIn(bytes("b"), null), contains("b", "c", "d"));
    }

    @Test
    void rangeStartBetweenKeysBeginsAtTheNextKey() throws StoreException {
        applyValues("a", "c");
        assertThat(keysIn(bytes("b"), null), contains("c"));
    }

    @Test
    void rangeFromEmptyStartCoversEverything() throws StoreException {
        applyValues("", "a", "b");
        assertThat(keysIn(new byte[0], null), contains("", "a", "b"));
    }

    @Test
    void rangeIncludesTombstonesWithTheirFlag() throws StoreException {
        applyValues("a", "c");
        engine.apply(bytes("b"), Record.tombstone(2));
        List<Record> records = new ArrayList<>();
        try (RangeCursor cursor = engine.range(bytes("a"), null)) {
            while (cursor.next()) {
                records.add(cursor.record());
            }
        }
        assertThat(records, contains(Record.value(1, bytes("a")), Record.tombstone(2), Record.value(1, bytes("c"))));
    }

    @Test
    void emptyStoreGivesEmptyRange() throws StoreException {
        assertThat(keysIn(new byte[0], null), is(empty()));
    }

    @Test
    void rangeWithNoKeysInsideIsEmpty() throws StoreException {
        applyValues("a", "z");
        assertThat(keysIn(bytes("b"), bytes("y")), is(empty()));
    }

    @Test
    void rangeWithStartEqualToEndIsEmpty() throws StoreException {
        applyValues("a", "b");
        assertThat(keysIn(bytes("a"), bytes("a")), is(empty()));
    }

    @Test
    void rangeWithStartAfterEndIsEmpty() throws StoreException {
        applyValues("a", "b", "c");
        assertThat(keysIn(bytes("c"), bytes("a")), is(empty()));
    }

    @Test
    void rangeOrdersKeysAsUnsignedBytes() throws StoreException {
        byte[][] inserted = {{(byte) 0xFF}, {0x7F}, {(byte) 0x80}, {0}, {0, 0}, {(byte) 0xFF, (byte) 0xFF}, {1}};
        for (byte[] key : inserted) {
            engine.apply(key, Record.value(1, key));
        }
        List<byte[]> seen = rawKeysIn(new byte[0], null);
        List<String> hex = seen.stream().map(Keys::describe).toList();
        assertThat(hex, contains("0x00", "0x0000", "0x01", "0x7f", "0x80", "0xff", "0xffff"));
    }

    @Test
    void rangeEndWithFfByteExcludesOnlyKeysFromThatBound() throws StoreException {
        byte[][] inserted = {{(byte) 0xFE}, {(byte) 0xFE, (byte) 0xFF}, {(byte) 0xFF}, {(byte) 0xFF, 0}};
        for (byte[] key : inserted) {
            engine.apply(key, Record.value(1, key));
        }
        List<String> hex = rawKeysIn(new byte[] {(byte) 0xFE}, new byte[] {(byte) 0xFF}).stream()
                .map(Keys::describe).toList();
        assertThat(hex, contains("0xfe", "0xfeff"));
    }

    @Test
    void operationsAfterCloseThrowStoreClosedException() {
        engine.close();
        assertThrows(StoreClosedException.class, () -> engine.get(bytes("k")));
        assertThrows(StoreClosedException.class, () -> engine.apply(bytes("k"), Record.value(1, bytes("v"))));
        assertThrows(StoreClosedException.class, () -> engine.range(bytes("a"), null));
    }

    @Test
    void closeIsIdempotent() {
        engine.close();
        engine.close();
    }

    @Test
    void cursorAfterEngineCloseThrowsStoreExceptionInsteadOfCrashing() throws StoreException {
        applyValues("a", "b", "c");
        RangeCursor cursor = engine.range(bytes("a"), null);
        assertThat(cursor.next(), is(true));
        engine.close();
        assertThrows(StoreClosedException.class, cursor::next);
        cursor.close();
    }

    @Test
    void closedCursorThrowsOnNext() throws StoreException {
        applyValues("a");
        RangeCursor cursor = engine.range(new byte[0], null);
        cursor.close();
        assertThrows(StoreClosedException.class, cursor::next);
    }

    @Test
    void concurrentAppliesOnOneKeyConvergeToTheMaximumRecord() throws Exception {
        int threads = 8;
        int writesPerThread = 500;
        ExecutorService executor = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Integer>> wins = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                wins.add(executor.submit(writer(t, threads, writesPerThread, start)));
            }
            start.countDown();
            int totalWins = 0;
            for (Future<Integer> win : wins) {
                totalWins += win.get(60, TimeUnit.SECONDS);
            }
            long maxTimestamp = (long) threads * writesPerThread - 1;
            assertThat(engine.get(bytes("hot")), is(Optional.of(Record.value(maxTimestamp, bytes("ts" + maxTimestamp)))));
            assertThat("wins never exceed writes", totalWins <= threads * writesPerThread, is(true));
        } finally {
            executor.shutdownNow();
        }
    }

    @Test
    void aBatchAppliesEachRecordByLastWriteWinsInOrderAndSaysWhatKeptEachOut() throws StoreException {
        engine.apply(bytes("held"), Record.value(100, bytes("newer")));
        engine.apply(bytes("old"), Record.value(1, bytes("replaced")));
        List<String> changes = new ArrayList<>();
        engine.setChangeListener((key, before, after) -> changes.add(new String(key, UTF_8) + ":" + before + "->" + after));
        List<byte[]> keys = List.of(bytes("new"), bytes("held"), bytes("old"), bytes("new"), bytes("new"), bytes("held"));
        List<Record> records = List.of(Record.value(5, bytes("a")), Record.value(50, bytes("older")), Record.tombstone(2),
                Record.value(4, bytes("older than the batch's own")), Record.value(6, bytes("b")), Record.value(100, bytes("newer")));

        Record[] keptOut = engine.applyAll(keys, records);

        assertThat(java.util.Arrays.asList(keptOut), contains(null, Record.value(100, bytes("newer")), null,
                Record.value(5, bytes("a")), null, Record.value(100, bytes("newer"))));
        assertThat(engine.get(bytes("new")), is(Optional.of(Record.value(6, bytes("b")))));
        assertThat(engine.get(bytes("held")), is(Optional.of(Record.value(100, bytes("newer")))));
        assertThat(engine.get(bytes("old")), is(Optional.of(Record.tombstone(2))));
        assertThat(changes, contains("new:null->" + Record.value(5, bytes("a")),
                "old:" + Record.value(1, bytes("replaced")) + "->" + Record.tombstone(2),
                "new:" + Record.value(5, bytes("a")) + "->" + Record.value(6, bytes("b"))));
        assertThat(engine.applyAll(List.of(), List.of()).length, is(0));
        assertThrows(IllegalArgumentException.class, () -> engine.applyAll(List.of(bytes("k")), List.of()));
    }

    @Test
    void withoutWaitingRecordsInMemoryAreReadAndBatchesAppliedAsTheWaitingCallsDo() throws StoreException {
        engine.apply(bytes("held"), Record.value(100, bytes("newer")));
        List<String> changes = new ArrayList<>();
        engine.setChangeListener((key, before, after) -> changes.add(new String(key, UTF_8) + ":" + before + "->" + after));

        Record[] keptOut = engine.applyAllNow(List.of(bytes("new"), bytes("held"), bytes("new")),
                List.of(Record.value(5, bytes("a")), Record.value(50, bytes("older")), Record.value(6, bytes("b"))));

        assertThat(java.util.Arrays.asList(keptOut), contains(null, Record.value(100, bytes("newer")), null));
        assertThat(engine.getNow(bytes("new")), is(Optional.of(Record.value(6, bytes("b")))));
        assertThat(engine.getNow(bytes("held")), is(Optional.of(Record.value(100, bytes("newer")))));
        assertThat(engine.getNow(bytes("absent")), is(Optional.empty()));
        assertThat(changes, contains("new:null->" + Record.value(5, bytes("a")),
                "new:" + Record.value(5, bytes("a")) + "->" + Record.value(6, bytes("b"))));
        assertThat(engine.applyAllNow(List.of(), List.of()).length, is(0));
        assertThrows(IllegalArgumentException.class, () -> engine.applyAllNow(List.of(bytes("k")), List.of()));
    }

    /**
     * What the scan shows plus every change the listener hears after it is the store as it ends:
     * with writers running throughout, each write is either in the scan or reported, never both,
     * never neither. Summed as an XOR of per-record hashes, as anti-entropy's digest is.
     */
    @Test
    void aScanWithItsListenerAccountsForEveryConcurrentWriteExactlyOnce() throws Exception {
        for (int i = 0; i < 2_000; i++) {
            engine.apply(bytes("k" + i), Record.value(1 + i, bytes("before")));
        }
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicLong clock = new java.util.concurrent.atomic.AtomicLong(10_000);
        java.util.concurrent.atomic.AtomicLong summary = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.atomic.AtomicInteger written = new java.util.concurrent.atomic.AtomicInteger();
        ExecutorService writers = Executors.newFixedThreadPool(2);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int w = 0; w < 2; w++) {
                long seed = w;
                done.add(writers.submit(() -> {
                    java.util.Random random = new java.util.Random(seed);
                    while (!stop.get()) {
                        byte[] key = bytes("k" + random.nextInt(2_500));
                        long timestamp = clock.incrementAndGet();
                        if (random.nextInt(6) == 0) {
                            engine.get(key).ifPresent(stored -> purgeQuietly(key, stored));
                        } else {
                            engine.apply(key, Record.value(timestamp, bytes("w" + timestamp)));
                        }
                        written.incrementAndGet();
                    }
                    return null;
                }));
            }
            while (written.get() < 100) {
                Thread.onSpinWait();
            }
            int scanned = 0;
            try (RangeCursor cursor = engine.setChangeListenerAndScan((key, before, after) ->
                    summary.getAndAccumulate(hash(key, before) ^ hash(key, after), (a, b) -> a ^ b))) {
                while (cursor.next()) {
                    summary.getAndAccumulate(hash(cursor.key(), cursor.record()), (a, b) -> a ^ b);
                    if (++scanned % 100 == 0) {
                        Thread.sleep(1); // writes land behind and ahead of the scan
                    }
                }
            }
            int duringTheScan = written.get();
            stop.set(true);
            for (Future<?> writer : done) {
                writer.get();
            }
            assertThat("writes landed during the scan", duringTheScan > 200, is(true));
        } finally {
            writers.shutdownNow();
        }
        long expected = 0;
        try (RangeCursor cursor = engine.range(new byte[0], null)) {
            while (cursor.next()) {
                expected ^= hash(cursor.key(), cursor.record());
            }
        }
        assertThat(summary.get(), is(expected));
    }

    private void purgeQuietly(byte[] key, Record stored) {
        try {
            engine.purge(key, stored);
        } catch (StoreException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A 64-bit hash of one key's record (0 for none), spread so that the XOR of many tells sets apart. */
    private static long hash(byte[] key, Record record) {
        if (record == null) {
            return 0;
        }
        long h = java.util.Arrays.hashCode(key) * 0x9E3779B97F4A7C15L + record.timestamp();
        h = (h ^ (h >>> 31)) * 0xBF58476D1CE4E5B9L + java.util.Arrays.hashCode(record.value()) + (record.tombstone() ? 1 : 0);
        return h ^ (h >>> 29);
    }

    @Test
    void concurrentBatchesAndAppliesOverTheSameKeysInOpposingOrdersConvergeToTheNewest() throws Exception {
        int threads = 6;
        int rounds = 300;
        int keyCount = 40;
        ExecutorService executor = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                done.add(executor.submit(() -> {
                    start.await();
                    java.util.Random random = new java.util.Random(thread);
                    for (int round = 0; round < rounds; round++) {
                        long timestamp = (long) round * threads + thread;
                        List<byte[]> keys = new ArrayList<>();
                        List<Record> records = new ArrayList<>();
                        for (int k = 0; k < keyCount; k++) {
                            int key = thread % 2 == 0 ? k : keyCount - 1 - k; // half the threads go the other way
                            if (random.nextInt(3) != 0) {
                                keys.add(bytes("key-" + key));
                                records.add(Record.value(timestamp, bytes("t" + timestamp)));
                            }
                        }
                        if (thread == 0) {
                            for (int i = 0; i < keys.size(); i++) {
                                engine.apply(keys.get(i), records.get(i));
                            }
                        } else {
                            engine.applyAll(keys, records);
                        }
                    }
                    // The last round writes every key, so each key's newest record is known.
                    long last = (long) rounds * threads + thread;
                    List<byte[]> keys = new ArrayList<>();
                    List<Record> records = new ArrayList<>();
                    for (int k = 0; k < keyCount; k++) {
                        keys.add(bytes("key-" + k));
                        records.add(Record.value(last, bytes("t" + last)));
                    }
                    engine.applyAll(keys, records);
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> future : done) {
                future.get(60, TimeUnit.SECONDS);
            }
            long newest = (long) rounds * threads + threads - 1;
            for (int k = 0; k < keyCount; k++) {
                assertThat(engine.get(bytes("key-" + k)), is(Optional.of(Record.value(newest, bytes("t" + newest)))));
            }
        } finally {
            executor.shutdownNow();
        }
    }

    @Test
    void concurrentTiesConvergeToTheSameWinnerAsSequentialApplies() throws Exception {
        int threads = 8;
        ExecutorService executor = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Record record = t == 3 ? Record.tombstone(42) : Record.value(42, new byte[] {(byte) (t * 37)});
                done.add(executor.submit(() -> {
                    start.await();
                    for (int i = 0; i < 200; i++) {
                        engine.apply(bytes("tie-" + i), record);
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> future : done) {
                future.get(60, TimeUnit.SECONDS);
            }
            for (int i = 0; i < 200; i++) {
                assertThat(engine.get(bytes("tie-" + i)), is(Optional.of(Record.tombstone(42))));
            }
        } finally {
            executor.shutdownNow();
        }
    }

    @Test
    void closeWhileOtherThreadsWorkEndsThemWithStoreClosedExceptionOnly() throws Exception {
        applyValues("a", "b", "c");
        int threads = 4;
        int opsBeforeClose = 200;
        ExecutorService executor = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch warmedUp = new CountDownLatch(threads);
            List<Future<Throwable>> endings = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                endings.add(executor.submit(() -> workUntilFailure(id, opsBeforeClose, warmedUp)));
            }
            assertThat("workers warmed up", warmedUp.await(60, TimeUnit.SECONDS), is(true));
            engine.close();
            for (Future<Throwable> ending : endings) {
                Throwable failure = ending.get(60, TimeUnit.SECONDS);
                assertThat(String.valueOf(failure), failure instanceof StoreClosedException, is(true));
            }
        } finally {
            executor.shutdownNow();
        }
    }

    /** Mixes applies, gets and range scans until one throws; returns what it threw. */
    private Throwable workUntilFailure(int id, int opsBeforeSignal, CountDownLatch warmedUp) {
        try {
            for (long i = 0; i < Long.MAX_VALUE; i++) {
                if (i == opsBeforeSignal) {
                    warmedUp.countDown();
                }
                engine.apply(bytes("w" + id + "-" + (i % 100)), Record.value(i, bytes("v")));
                engine.get(bytes("a"));
                try (RangeCursor cursor = engine.range(bytes("a"), null)) {
                    cursor.next();
                    cursor.next();
                }
            }
            return null;
        } catch (Throwable failure) {
            return failure;
        }
    }

    /** Thread t writes timestamps t, t+threads, ... interleaved with the others, in a shuffled order. */
    private Callable<Integer> writer(int t, int threads, int writes, CountDownLatch start) {
        return () -> {
            start.await();
            int won = 0;
            for (int i = 0; i < writes; i++) {
                // A fixed permutation (i * 7 mod writes, writes being coprime to 7) so arrivals are out of order.
                long timestamp = (long) ((i * 7) % writes) * threads + t;
                if (engine.apply(bytes("hot"), Record.value(timestamp, bytes("ts" + timestamp)))) {
                    won++;
                }
            }
            return won;
        };
    }

    // ---- helpers

    @Test
    void hintsComeBackPerTargetOldestFirstAndGoWhenRemoved() throws StoreException {
        HintLog hints = engine.hints();
        hints.add("http://a:1", bytes("k1"), Record.value(5, bytes("v1")), 100);
        hints.add("http://b:2", bytes("k2"), Record.tombstone(6), 101);
        hints.add("http://a:1", bytes("k3"), Record.value(7, bytes("v3")), 102);

        List<Hint> forA = hints.oldest("http://a:1", 10);
        assertThat(forA.stream().map(h -> new String(h.key(), StandardCharsets.UTF_8)).toList(), contains("k1", "k3"));
        assertThat(forA.getFirst().record(), is(Record.value(5, bytes("v1"))));
        assertThat(forA.getFirst().createdMillis(), is(100L));
        assertThat(hints.oldest("http://a:1", 1), hasSize(1));
        assertThat(hints.counts(), is(Map.of("http://a:1", 2L, "http://b:2", 1L)));

        hints.remove(List.of(forA.getFirst()));
        assertThat(hints.oldest("http://a:1", 10).stream().map(h -> new String(h.key(), StandardCharsets.UTF_8)).toList(), contains("k3"));
        assertThat(hints.counts(), is(Map.of("http://a:1", 1L, "http://b:2", 1L)));
        assertThat("hints are not data", engine.get(bytes("k1")), is(Optional.empty()));
    }

    @Test
    void hintsAreTalliedInBytesAndReadUpToAByteBound() throws StoreException {
        HintLog hints = engine.hints();
        hints.add("http://a:1", bytes("k1"), Record.value(5, new byte[100]), 100);   // 102 bytes
        hints.add("http://a:1", bytes("k2"), Record.value(6, new byte[300]), 101);   // 302 bytes
        hints.add("http://a:1", bytes("k3"), Record.tombstone(7), 102);              // 2 bytes
        assertThat(hints.bytes("http://a:1"), is(406L));
        assertThat(hints.bytes("http://b:2"), is(0L));

        assertThat("stops before the hint that would pass the bound", keysOf(hints.oldest("http://a:1", 10, 403)),
                contains("k1"));
        assertThat(keysOf(hints.oldest("http://a:1", 10, 404)), contains("k1", "k2"));
        assertThat("the oldest comes even when it alone passes the bound", keysOf(hints.oldest("http://a:1", 10, 1)),
                contains("k1"));

        hints.remove(hints.oldest("http://a:1", 2));
        assertThat(hints.bytes("http://a:1"), is(2L));
    }

    private static List<String> keysOf(List<Hint> hints) {
        return hints.stream().map(h -> new String(h.key(), StandardCharsets.UTF_8)).toList();
    }

    @Test
    void aTargetWhoseNameIsAPrefixOfAnotherKeepsItsOwnHints() throws StoreException {
        engine.hints().add("http://a:1", bytes("k1"), Record.value(1, bytes("x")), 1);
        engine.hints().add("http://a:10", bytes("k2"), Record.value(2, bytes("y")), 2);
        assertThat(engine.hints().oldest("http://a:1", 10), hasSize(1));
        assertThat(engine.hints().oldest("http://a:10", 10), hasSize(1));
    }

    @Test
    void purgeDeletesOnlyTheExpectedRecord() throws StoreException {
        engine.apply(bytes("k"), Record.tombstone(5));
        assertThat("a different record is kept", engine.purge(bytes("k"), Record.tombstone(4)), is(false));
        assertThat(engine.get(bytes("k")), is(Optional.of(Record.tombstone(5))));
        assertThat(engine.purge(bytes("k"), Record.tombstone(5)), is(true));
        assertThat(engine.get(bytes("k")), is(Optional.empty()));
        assertThat("an absent key", engine.purge(bytes("k"), Record.tombstone(5)), is(false));
    }

    @Test
    void anExpiringRecordIsStoredReturnedAndRangedWithItsExpiry() throws StoreException {
        Record expiring = Record.expiring(10, bytes("v"), 1_700_000_002_000L);
        assertThat(engine.apply(bytes("k"), expiring), is(true));
        assertThat(engine.get(bytes("k")).orElseThrow().expiresAtMillis(), is(1_700_000_002_000L));
        try (RangeCursor cursor = engine.range(bytes("k"), null)) {
            assertThat(cursor.next(), is(true));
            assertThat(cursor.record(), is(expiring));
        }
    }

    /** An expired record is still the newest write: an older value arriving late does not replace it. */
    @Test
    void anOlderValueDoesNotReplaceAnExpiringRecord() throws StoreException {
        Record expiring = Record.expiring(10, bytes("v2"), 1);
        engine.apply(bytes("k"), expiring);
        assertThat(engine.apply(bytes("k"), Record.value(9, bytes("v1"))), is(false));
        assertThat(engine.get(bytes("k")), is(Optional.of(expiring)));
        assertThat("a newer value without expiry replaces it", engine.apply(bytes("k"), Record.value(11, bytes("v3"))), is(true));
        assertThat(engine.get(bytes("k")).orElseThrow().expires(), is(false));
    }

    @Test
    void aHintKeepsItsRecordsExpiry() throws StoreException {
        Record expiring = Record.expiring(5, bytes("v"), 1_700_000_002_000L);
        engine.hints().add("http://a:1", bytes("k"), expiring, 100);
        assertThat(engine.hints().oldest("http://a:1", 10).getFirst().record(), is(expiring));
    }

    @Test
    void purgeOfAnExpiringRecordComparesTheExpiryToo() throws StoreException {
        engine.apply(bytes("k"), Record.expiring(5, bytes("v"), 50));
        assertThat(engine.purge(bytes("k"), Record.expiring(5, bytes("v"), 60)), is(false));
        assertThat(engine.purge(bytes("k"), Record.expiring(5, bytes("v"), 50)), is(true));
        assertThat(engine.get(bytes("k")), is(Optional.empty()));
    }

    static byte[] bytes(String s) {
        return s.getBytes(UTF_8);
    }

    void applyValues(String... keys) throws StoreException {
        for (String key : keys) {
            engine.apply(bytes(key), Record.value(1, bytes(key)));
        }
    }

    List<String> keysIn(byte[] start, byte[] end) throws StoreException {
        return rawKeysIn(start, end).stream().map(k -> new String(k, UTF_8)).toList();
    }

    List<byte[]> rawKeysIn(byte[] start, byte[] end) throws StoreException {
        List<byte[]> keys = new ArrayList<>();
        try (RangeCursor cursor = engine.range(start, end)) {
            while (cursor.next()) {
                keys.add(cursor.key());
            }
        }
        return keys;
    }
}
