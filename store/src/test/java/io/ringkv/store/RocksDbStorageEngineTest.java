package io.ringkv.store;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

/** The contract on RocksDB, plus what only a disk-backed engine can show. */
class RocksDbStorageEngineTest extends StorageEngineContractTest {

    private static final int LARGE_RANGE_RECORDS = 100_000;

    @Override
    StorageEngine openEngine(Path dir) throws StoreException {
        return RocksDbStorageEngine.open(dir, StoreConfig.defaults());
    }

    @Test
    void withoutWaitingARecordOnDiskOnlyIsLeftToTheWaitingCallsAndNothingIsWritten() throws StoreException {
        engine.close();
        StoreConfig uncached = StoreConfig.defaults().withBlockCacheBytes(0);
        engine = RocksDbStorageEngine.open(dir.resolve("db"), uncached);
        engine.apply(bytes("k"), Record.value(5, bytes("old")));
        engine.close();
        // Opening again writes the recovered log to a table file: the record is on disk only, and
        // a block cache of 0 bytes keeps none of its blocks.
        engine = RocksDbStorageEngine.open(dir.resolve("db"), uncached);

        assertThrows(WouldBlockException.class, () -> engine.getNow(bytes("k")));
        assertThrows(WouldBlockException.class, () -> engine.applyAllNow(List.of(bytes("k")),
                List.of(Record.value(6, bytes("new")))));
        assertThat(engine.get(bytes("k")), is(Optional.of(Record.value(5, bytes("old")))));
        assertThat(engine.stats().wouldBlock(), is(2L));
        assertThat("both needed a file", engine.stats().wouldBlockByCause().get(WouldBlockException.Cause.FILE_READ), is(2L));

        engine.apply(bytes("k"), Record.value(7, bytes("newer")));
        assertThat("in the memtable again", engine.getNow(bytes("k")), is(Optional.of(Record.value(7, bytes("newer")))));
    }

    @Test
    void withoutWaitingABatchWhoseKeyLockAnotherWriterHoldsIsLeftToTheWaitingCall() throws Exception {
        engine.close();
        // One stripe: every key shares the lock the writer below holds.
        engine = RocksDbStorageEngine.open(dir.resolve("db"), StoreConfig.defaults().withLockStripes(1));
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        engine.setChangeListener((key, before, after) -> {
            // Told while the writer still holds its stripe.
            if (Arrays.equals(key, bytes("slow"))) {
                inside.countDown();
                awaitQuietly(release);
            }
        });
        Thread writer = Thread.ofPlatform().start(() -> {
            try {
                engine.apply(bytes("slow"), Record.value(1, bytes("v")));
            } catch (StoreException e) {
                throw new IllegalStateException(e);
            }
        });
        try {
            assertThat(inside.await(30, TimeUnit.SECONDS), is(true));
            assertThrows(WouldBlockException.class, () -> engine.applyAllNow(List.of(bytes("other")),
                    List.of(Record.value(2, bytes("w")))));
            assertThat(engine.get(bytes("other")), is(Optional.empty()));
            assertThat(engine.stats().wouldBlockByCause().get(WouldBlockException.Cause.KEY_LOCK), is(1L));
            assertThat(engine.stats().wouldBlock(), is(1L));
        } finally {
            release.countDown();
            writer.join();
        }
        assertThat(engine.applyAllNow(List.of(bytes("other")), List.of(Record.value(2, bytes("w"))))[0], is(nullValue()));
        assertThat(engine.get(bytes("other")), is(Optional.of(Record.value(2, bytes("w")))));
    }

    @Test
    void withWritesSyncedToDiskNoWriteIsMadeWithoutWaiting() throws StoreException {
        engine.close();
        engine = RocksDbStorageEngine.open(dir.resolve("db"), StoreConfig.defaults().withDurability(Durability.POWER_LOSS));
        assertThrows(WouldBlockException.class, () -> engine.applyAllNow(List.of(bytes("k")),
                List.of(Record.value(1, bytes("v")))));
        assertThat(engine.get(bytes("k")), is(Optional.empty()));
        assertThat(engine.stats().wouldBlockByCause().get(WouldBlockException.Cause.SYNCED_WRITES), is(1L));
        engine.apply(bytes("k"), Record.value(1, bytes("v")));
        assertThat("reads wait for no sync", engine.getNow(bytes("k")), is(Optional.of(Record.value(1, bytes("v")))));
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void theClockMarkSurvivesAReopen() throws StoreException {
        assertThat(engine.clockLease().loadMillis(), is(0L));
        engine.clockLease().storeMillis(1_700_000_000_123L);
        engine.close();
        engine = RocksDbStorageEngine.open(dir.resolve("db"));
        assertThat(engine.clockLease().loadMillis(), is(1_700_000_000_123L));
        HybridLogicalClock clock = HybridLogicalClock.forNode(() -> 1_000L, 1, engine.clockLease());
        assertThat("a wall clock far behind the mark", HybridLogicalClock.millisOf(clock.now()) >= 1_700_000_000_123L, is(true));
    }

    @Test
    void hintsSurviveAReopenAndNewOnesSortAfterThem() throws StoreException {
        engine.hints().add("http://a:1", bytes("old"), Record.value(3, bytes("v")), 10);
        engine.close();

        engine = RocksDbStorageEngine.open(dir.resolve("db"));
        assertThat(engine.hints().counts(), is(java.util.Map.of("http://a:1", 1L)));
        engine.hints().add("http://a:1", bytes("new"), Record.value(4, bytes("w")), 11);
        assertThat(engine.hints().oldest("http://a:1", 10).stream().map(h -> new String(h.key())).toList(),
                is(java.util.List.of("old", "new")));
    }

    @Test
    void reopenAfterCloseKeepsValuesTombstonesAndEmptyValues() throws StoreException {
        engine.apply(bytes("value"), Record.value(7, bytes("v")));
        engine.apply(bytes("empty"), Record.value(8, new byte[0]));
        engine.apply(bytes("deleted"), Record.value(1, bytes("gone")));
        engine.apply(bytes("deleted"), Record.tombstone(9));
        engine.close();

        engine = RocksDbStorageEngine.open(dir.resolve("db"));
        assertThat(engine.get(bytes("value")), is(Optional.of(Record.value(7, bytes("v")))));
        assertThat(engine.get(bytes("empty")), is(Optional.of(Record.value(8, new byte[0]))));
        assertThat(engine.get(bytes("deleted")), is(Optional.of(Record.tombstone(9))));
        assertThat(engine.apply(bytes("value"), Record.value(6, bytes("older"))), is(false));
    }

    @Test
    void powerLossDurabilityStoresAndReopens() throws StoreException {
        Path powerSafe = dir.resolve("power-safe");
        try (RocksDbStorageEngine synced = RocksDbStorageEngine.open(powerSafe,
                StoreConfig.defaults().withDurability(Durability.POWER_LOSS))) {
            synced.apply(bytes("k"), Record.value(1, bytes("v")));
        }
        try (RocksDbStorageEngine reopened = RocksDbStorageEngine.open(powerSafe)) {
            assertThat(reopened.get(bytes("k")), is(Optional.of(Record.value(1, bytes("v")))));
        }
    }

    @Test
    void openingADirectoryHeldByAnotherEngineFailsWithStoreException() {
        StoreException failure = assertThrows(StoreException.class, () -> RocksDbStorageEngine.open(dir.resolve("db")));
        assertThat(failure.getMessage(), containsString("locked"));
    }

    @Test
    void aDirectoryCanBeOpenedAgainOnceTheHolderClosed() throws StoreException {
        engine.close();
        engine = RocksDbStorageEngine.open(dir.resolve("db"));
        assertThat(engine.get(bytes("k")), is(Optional.empty()));
    }

    @Test
    void openingAPathBelowARegularFileFailsWithStoreException() throws IOException {
        // A file where a parent directory should be: fails even for root, unlike a permission test.
        Path file = Files.writeString(dir.resolve("not-a-directory"), "x");
        StoreException failure = assertThrows(StoreException.class,
                () -> RocksDbStorageEngine.open(file.resolve("db")));
        assertThat(failure.getMessage(), containsString("cannot create data directory"));
    }

    @Test
    void openingARegularFileAsTheDirectoryFailsWithStoreException() throws IOException {
        Path file = Files.writeString(dir.resolve("a-file"), "x");
        assertThrows(StoreException.class, () -> RocksDbStorageEngine.open(file));
    }

    @Test
    void corruptStoredBytesSurfaceAsCorruptRecordExceptionNamingTheKey() throws Exception {
        engine.close();
        writeRaw(dir.resolve("db"), bytes("bad"), new byte[] {42, 0, 0});
        engine = RocksDbStorageEngine.open(dir.resolve("db"));
        CorruptRecordException failure = assertThrows(CorruptRecordException.class, () -> engine.get(bytes("bad")));
        assertThat(failure.getMessage(), containsString(Keys.describe(bytes("bad"))));
        assertThrows(CorruptRecordException.class, () -> engine.apply(bytes("bad"), Record.value(1, bytes("v"))));
    }

    @Test
    void rangeOverAHundredThousandRecordsStreamsInOrderWithoutCollecting() throws StoreException {
        for (int i = 0; i < LARGE_RANGE_RECORDS; i++) {
            engine.apply(key(i), Record.value(i, ByteBuffer.allocate(Integer.BYTES).putInt(i).array()));
        }
        int seen = 0;
        byte[] previous = null;
        // Only the current and the previous entry are held: the cursor must not materialise the range.
        try (RangeCursor cursor = engine.range(key(0), null)) {
            while (cursor.next()) {
                byte[] current = cursor.key();
                assertThat(Arrays.equals(current, key(seen)), is(true));
                assertThat(ByteBuffer.wrap(cursor.record().value()).getInt(), is(seen));
                assertThat(previous == null || Arrays.compareUnsigned(previous, current) < 0, is(true));
                previous = current;
                seen++;
            }
        }
        assertThat(seen, is(LARGE_RANGE_RECORDS));
    }

    @Test
    void rangeSeesTheDatabaseAsOfItsCreation() throws StoreException {
        applyValues("a", "c");
        try (RangeCursor cursor = engine.range(bytes("a"), null)) {
            engine.apply(bytes("b"), Record.value(1, bytes("b")));
            int count = 0;
            while (cursor.next()) {
                count++;
            }
            assertThat(count, is(2));
        }
    }

    private static byte[] key(int i) {
        return ByteBuffer.allocate(Integer.BYTES).putInt(i).array();
    }

    private static void writeRaw(Path dbDir, byte[] key, byte[] value) throws RocksDBException {
        // RocksDB refuses to open the engine's database with fewer column families than it has.
        java.util.List<org.rocksdb.ColumnFamilyHandle> handles = new java.util.ArrayList<>();
        try (org.rocksdb.DBOptions options = new org.rocksdb.DBOptions();
             RocksDB db = RocksDB.open(options, dbDir.toString(), java.util.List.of(
                     new org.rocksdb.ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY),
                     new org.rocksdb.ColumnFamilyDescriptor(RocksDbStorageEngine.HINTS_FAMILY.getBytes()),
                     new org.rocksdb.ColumnFamilyDescriptor(RocksDbStorageEngine.META_FAMILY.getBytes()),
                     new org.rocksdb.ColumnFamilyDescriptor(RocksDbStorageEngine.PAXOS_FAMILY.getBytes())), handles)) {
            db.put(key, value);
            handles.forEach(org.rocksdb.ColumnFamilyHandle::close);
        }
    }
}
