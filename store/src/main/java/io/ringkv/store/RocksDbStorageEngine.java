package io.ringkv.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.ReadTier;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.Statistics;
import org.rocksdb.Status;
import org.rocksdb.TickerType;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link StorageEngine} on one RocksDB database: records in the default column family
 * (bytewise comparator, so keys order by unsigned bytes; values are {@link RecordCodec}-encoded),
 * hinted-handoff hints in the {@value #HINTS_FAMILY} column family ({@link #hints()}) and the clock's
 * high-water mark in {@value #META_FAMILY} ({@link #clockLease()}) and each key's compare-and-set
 * state in {@value #PAXOS_FAMILY} ({@link #paxos()}), which share the write-ahead log
 * and so the durability below.
 *
 * <h2>Durability</h2>
 * The write-ahead log is always on. {@link Durability#PROCESS_CRASH} writes with
 * {@code sync=false}: the WAL record is handed to the kernel (page cache) before {@link #apply}
 * returns, so a SIGKILLed or crashed process loses nothing acknowledged; a power loss or kernel
 * panic may lose the last moments of writes. {@link Durability#POWER_LOSS} writes with
 * {@code sync=true}: the WAL is fsynced before {@code apply} returns (RocksDB group-commits
 * concurrent writers into one fsync). An orderly {@link #close()} syncs the WAL in both modes.
 *
 * <h2>Last write wins</h2>
 * {@link #apply} reads the stored record, compares, and writes, under a per-key stripe of
 * {@link StripedLocks}. A RocksDB merge operator would avoid the read, but rocksdbjni only offers
 * merge operators written in C++ (ours would have to ship native code), and a merge cannot tell
 * the caller whether its record won, which {@link StorageEngine#apply} returns.
 *
 * <h2>Threading</h2>
 * All methods are thread-safe and block on disk I/O. Every native call runs under the read side
 * of a lifecycle lock; {@link #close()} takes the write side, so it waits for running operations
 * and no native handle is used after it is freed: later calls throw {@link StoreClosedException}
 * rather than crash the JVM. Range cursors still open at close are closed with the engine.
 */
public final class RocksDbStorageEngine implements StorageEngine {

    private static final Logger log = LoggerFactory.getLogger(RocksDbStorageEngine.class);

    /** RocksDB info-log files kept in the data directory (it rotates them on restart). */
    static final int INFO_LOG_FILES_KEPT = 5;
    /**
     * Bloom filter bits per key of the SST files: about 0.1 % false positives (RocksDB's 10, its
     * usual choice, gives 1 %). Every write reads its key first, and the read of a new key on an
     * event loop asks each level's filter; a false positive whose block is not cached sends the
     * whole request, or the whole replica write batch, to the handler threads as a file read.
     * Filters stay in memory outside the block cache, so this costs 2 bytes per key instead of
     * 1.25.
     */
    static final double BLOOM_BITS_PER_KEY = 16;
    /** Share of a memtable's size given to its whole-key bloom filter (RocksDB's memtable_prefix_bloom_size_ratio). */
    static final double MEMTABLE_BLOOM_RATIO = 0.1;

    static {
        RocksDbNativeLibrary.load();
    }

    /** Column family of the hints; created on first open, so older data directories gain it. */
    static final String HINTS_FAMILY = "hints";
    /** Column family of the node's own small state (the clock's high-water mark). */
    static final String META_FAMILY = "meta";
    /** Column family of each key's compare-and-set state ({@link #paxos()}). */
    static final String PAXOS_FAMILY = "paxos";
    private static final byte[] CLOCK_LEASE_KEY = "hlc-lease-millis".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private final Path dir;
    private final RocksDB db;
    /** Column family handles, closed before the database. */
    private final List<ColumnFamilyHandle> families;
    private volatile HintLog hints;
    private final WriteOptions writeOptions;
    /** Reads that answer from memory only (memtables, block cache) or fail Incomplete: {@link #getNow}. */
    private final ReadOptions memoryOnlyReads;
    /**
     * Writes that fail Incomplete instead of waiting out a write stall ({@link #applyAllNow}); null
     * when every write is synced to disk, which no caller that must not block can wait for.
     */
    private final WriteOptions noWaitWrites;
    /** Native objects other than {@link #db}, in creation order; freed in reverse after it. */
    private final List<AutoCloseable> natives;
    private final StripedLocks keyLocks;
    private final ReentrantReadWriteLock lifecycle = new ReentrantReadWriteLock();
    private final Set<RocksDbRangeCursor> openCursors = ConcurrentHashMap.newKeySet();
    /** Guarded by {@link #lifecycle}: read under its read lock, set under its write lock. */
    private boolean closed;
    /** RocksDB's tickers (block cache hits, stall time); also one of {@link #natives}. */
    private final Statistics statistics;
    private final LongAdder keysRead = new LongAdder();
    private final LongAdder keysWritten = new LongAdder();
    /** Calls asked not to wait that would have had to ({@link WouldBlockException}), by cause ordinal. */
    private final LongAdder[] wouldBlockCounts = newAdders(WouldBlockException.Cause.values().length);
    /** Told of every stored and purged record; set before the engine is shared (volatile: read per write). */
    private volatile RecordChangeListener changeListener = RecordChangeListener.NONE;

    private RocksDbStorageEngine(Path dir, RocksDB db, List<ColumnFamilyHandle> families, WriteOptions writeOptions,
                                 List<AutoCloseable> natives, StripedLocks keyLocks, Statistics statistics) {
        this.statistics = statistics;
        this.dir = dir;
        this.db = db;
        this.families = families;
        this.writeOptions = writeOptions;
        this.natives = natives;
        this.keyLocks = keyLocks;
        // Freed with the other natives, after the database.
        this.memoryOnlyReads = track(natives, new ReadOptions().setReadTier(ReadTier.BLOCK_CACHE_TIER));
        this.noWaitWrites = writeOptions.sync() ? null
                : track(natives, new WriteOptions().setDisableWAL(false).setSync(false).setNoSlowdown(true));
    }

    /** Opens (creating if needed) the database in {@code dir} with {@link StoreConfig#defaults()}. */
    public static RocksDbStorageEngine open(Path dir) throws StoreException {
        return open(dir, StoreConfig.defaults());
    }

    /**
     * Opens (creating if needed) the database in {@code dir}.
     *
     * @throws StoreException if the directory cannot be created or opened, or another process
     *                        (or another engine in this one) holds it
     */
    public static RocksDbStorageEngine open(Path dir, StoreConfig config) throws StoreException {
        Objects.requireNonNull(dir, "dir");
        Objects.requireNonNull(config, "config");
        createDirectory(dir);
        List<AutoCloseable> natives = new ArrayList<>();
        try {
            // Tickers are per-core counters in RocksDB: cheap, and the only source of its cache hit
            // ratio and stall time. Created before the options so they are freed after them.
            Statistics statistics = track(natives, new Statistics());
            Options options = newOptions(config, natives).setStatistics(statistics);
            WriteOptions writeOptions = track(natives, new WriteOptions()
                    .setDisableWAL(false)
                    .setSync(config.durability() == Durability.POWER_LOSS));
            DBOptions dbOptions = track(natives, new DBOptions(options).setCreateMissingColumnFamilies(true));
            List<ColumnFamilyDescriptor> descriptors = List.of(
                    new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, track(natives, new ColumnFamilyOptions(options))),
                    new ColumnFamilyDescriptor(HINTS_FAMILY.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                            track(natives, new ColumnFamilyOptions())),
                    new ColumnFamilyDescriptor(META_FAMILY.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                            track(natives, new ColumnFamilyOptions())),
                    new ColumnFamilyDescriptor(PAXOS_FAMILY.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                            track(natives, new ColumnFamilyOptions())));
            List<ColumnFamilyHandle> handles = new ArrayList<>();
            RocksDB db = RocksDB.open(dbOptions, dir.toString(), descriptors, handles);
            RocksDbStorageEngine engine = new RocksDbStorageEngine(dir, db, handles, writeOptions, natives,
                    new StripedLocks(config.lockStripes()), statistics);
            try {
                engine.hints = RocksDbHintLog.open(engine, db, handles.get(1), writeOptions);
            } catch (StoreException e) {
                engine.close();
                throw e;
            }
            log.info("opened store {} (durability {}, block cache {} bytes, hints {})", dir, config.durability(),
                    config.blockCacheBytes(), engine.hints.counts());
            return engine;
        } catch (RocksDBException e) {
            closeAll(natives);
            throw openFailure(dir, e);
        }
    }

    @Override
    public Optional<Record> get(byte[] key) throws StoreException {
        Objects.requireNonNull(key, "key");
        return guarded("get", key, () -> {
            keysRead.increment();
            byte[] stored = db.get(key);
            return stored == null ? Optional.empty() : Optional.of(decode(key, stored));
        });
    }

    /**
     * From the memtables and the block cache; {@link WouldBlockException} when RocksDB would have to
     * read a file (it answers Incomplete), or while the store is being closed.
     */
    @Override
    public Optional<Record> getNow(byte[] key) throws StoreException {
        Objects.requireNonNull(key, "key");
        return guardedNow("getNow", key, () -> {
            byte[] stored = db.get(memoryOnlyReads, key);
            keysRead.increment();
            return stored == null ? Optional.empty() : Optional.of(decode(key, stored));
        });
    }

    @Override
    public boolean apply(byte[] key, Record record) throws StoreException {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(record, "record");
        return guarded("apply", key, () -> {
            Lock keyLock = keyLocks.forKey(key);
            keyLock.lock();
            try {
                byte[] stored = db.get(key);
                Record before = stored == null ? null : decode(key, stored);
                if (before != null && !record.isNewerThan(before)) {
                    return false;
                }
                db.put(writeOptions, key, RecordCodec.encode(record));
                keysWritten.increment();
                changeListener.changed(key, before, record);
                return true;
            } finally {
                keyLock.unlock();
            }
        });
    }

    /**
     * One read per key and one RocksDB write (one WAL append) for the whole batch, under the locks
     * of every stripe the batch touches, taken in ascending stripe order so that two batches never
     * wait for each other crosswise. Tells the change listener of each stored record after the
     * write, in list order.
     */
    @Override
    public Record[] applyAll(List<byte[]> keys, List<Record> records) throws StoreException {
        int[] ordered = stripesInOrder(keys, records);
        if (keys.isEmpty()) {
            return new Record[0];
        }
        return guarded("applyAll", keys.get(0), () -> {
            int locked = 0;
            try {
                for (int stripe : ordered) {
                    keyLocks.stripe(stripe).lock();
                    locked++;
                }
                return applyLocked(keys, records, null, writeOptions);
            } finally {
                for (int i = locked - 1; i >= 0; i--) {
                    keyLocks.stripe(ordered[i]).unlock();
                }
            }
        });
    }

    /**
     * As {@link #applyAll}, but a stripe lock held elsewhere, a read that needs a file, a write
     * stall, or synced writes ({@link Durability#POWER_LOSS}) end it with
     * {@link WouldBlockException} before anything is written (RocksDB refuses a write it would
     * delay as Incomplete, without applying any of it).
     */
    @Override
    public Record[] applyAllNow(List<byte[]> keys, List<Record> records) throws StoreException {
        int[] ordered = stripesInOrder(keys, records);
        if (noWaitWrites == null) {
            throw wouldBlock(WouldBlockException.Cause.SYNCED_WRITES);
        }
        if (keys.isEmpty()) {
            return new Record[0];
        }
        return guardedNow("applyAllNow", keys.get(0), () -> {
            int locked = 0;
            try {
                for (int stripe : ordered) {
                    if (!keyLocks.stripe(stripe).tryLock()) {
                        throw WouldBlockException.of(WouldBlockException.Cause.KEY_LOCK);
                    }
                    locked++;
                }
                return applyLocked(keys, records, memoryOnlyReads, noWaitWrites);
            } finally {
                for (int i = locked - 1; i >= 0; i--) {
                    keyLocks.stripe(ordered[i]).unlock();
                }
            }
        });
    }

    /**
     * The lock stripes of a batch's keys, ascending and each once: the order every batch takes
     * them in, so that two batches never wait for each other crosswise. Checks the lists first.
     */
    private int[] stripesInOrder(List<byte[]> keys, List<Record> records) {
        Objects.requireNonNull(keys, "keys");
        Objects.requireNonNull(records, "records");
        if (keys.size() != records.size()) {
            throw new IllegalArgumentException(keys.size() + " keys for " + records.size() + " records");
        }
        int[] stripes = new int[keys.size()];
        for (int i = 0; i < stripes.length; i++) {
            stripes[i] = keyLocks.stripeOf(Objects.requireNonNull(keys.get(i), "key"));
            Objects.requireNonNull(records.get(i), "record");
        }
        return stripes.length <= 1 ? stripes : Arrays.stream(stripes).sorted().distinct().toArray();
    }

    /**
     * {@link #applyAll} with its stripes held, reading with {@code readWith} (null: RocksDB's
     * defaults) and writing with {@code writeWith}.
     */
    private Record[] applyLocked(List<byte[]> keys, List<Record> records, ReadOptions readWith, WriteOptions writeWith)
            throws RocksDBException, StoreException {
        Record[] keptOut = new Record[keys.size()];
        Record[] replaced = new Record[keys.size()];
        boolean[] stored = new boolean[keys.size()];
        // What the batch itself will have left for a key it names twice (ByteBuffer: equality by content).
        Map<ByteBuffer, Record> batchLatest = new HashMap<>();
        int writes = 0;
        try (WriteBatch batch = new WriteBatch()) {
            for (int i = 0; i < keys.size(); i++) {
                byte[] key = keys.get(i);
                Record record = records.get(i);
                ByteBuffer name = ByteBuffer.wrap(key);
                Record before = batchLatest.get(name);
                if (before == null) {
                    // Incomplete here (a read that needed a file) reaches guardedNow, which tells it as FILE_READ.
                    byte[] bytes = readWith == null ? db.get(key) : db.get(readWith, key);
                    before = bytes == null ? null : decode(key, bytes);
                }
                if (before != null && !record.isNewerThan(before)) {
                    keptOut[i] = before;
                    batchLatest.put(name, before);
                    continue;
                }
                batch.put(key, RecordCodec.encode(record));
                batchLatest.put(name, record);
                replaced[i] = before;
                stored[i] = true;
                writes++;
            }
            if (writes > 0) {
                writeOrWouldBlock(writeWith, batch);
            }
        }
        keysWritten.add(writes);
        for (int i = 0; i < keys.size(); i++) {
            if (stored[i]) {
                changeListener.changed(keys.get(i), replaced[i], records.get(i));
            }
        }
        return keptOut;
    }

    @Override
    public boolean purge(byte[] key, Record expected) throws StoreException {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(expected, "expected");
        return guarded("purge", key, () -> {
            Lock keyLock = keyLocks.forKey(key);
            keyLock.lock();
            try {
                byte[] stored = db.get(key);
                if (stored == null || !decode(key, stored).equals(expected)) {
                    return false;
                }
                db.delete(writeOptions, key);
                changeListener.changed(key, expected, null);
                return true;
            } finally {
                keyLock.unlock();
            }
        });
    }

    @Override
    public void setChangeListener(RecordChangeListener listener) {
        changeListener = Objects.requireNonNull(listener, "listener");
    }

    @Override
    public ClockLease clockLease() {
        ColumnFamilyHandle meta = families.get(2);
        return new ClockLease() {
            @Override
            public long loadMillis() throws StoreException {
                return guarded("load clock mark", CLOCK_LEASE_KEY, () -> {
                    byte[] stored = db.get(meta, CLOCK_LEASE_KEY);
                    if (stored == null) {
                        return 0L;
                    }
                    if (stored.length != Long.BYTES) {
                        throw new CorruptRecordException("clock mark of " + stored.length + " bytes in " + dir);
                    }
                    return java.nio.ByteBuffer.wrap(stored).getLong();
                });
            }

            @Override
            public void storeMillis(long millis) throws StoreException {
                guarded("store clock mark", CLOCK_LEASE_KEY, () -> {
                    db.put(meta, writeOptions, CLOCK_LEASE_KEY, java.nio.ByteBuffer.allocate(Long.BYTES).putLong(millis).array());
                    return null;
                });
            }
        };
    }

    @Override
    public HintLog hints() {
        return hints;
    }

    @Override
    public PaxosStateLog paxos() {
        return new RocksDbPaxosStateLog(this, db, families.get(3), writeOptions);
    }

    /**
     * Every write changes its key under the key's lock and tells the listener before releasing
     * it, so with every lock held no write is between its change and its report: the cursor's
     * snapshot (pinned when its iterator is made) then holds exactly the changes reported to the
     * listener before, and the new listener hears of exactly the ones after.
     */
    @Override
    public RangeCursor setChangeListenerAndScan(RecordChangeListener listener) throws StoreException {
        Objects.requireNonNull(listener, "listener");
        return guarded("scan", new byte[0], () -> {
            keyLocks.lockAll();
            try {
                RocksDbRangeCursor cursor = RocksDbRangeCursor.open(this, db, new byte[0], null);
                openCursors.add(cursor);
                changeListener = listener;
                return cursor;
            } finally {
                keyLocks.unlockAll();
            }
        });
    }

    @Override
    public RangeCursor range(byte[] startInclusive, byte[] endExclusive) throws StoreException {
        Objects.requireNonNull(startInclusive, "startInclusive");
        return guarded("range", startInclusive, () -> {
            if (endExclusive != null && Arrays.compareUnsigned(startInclusive, endExclusive) >= 0) {
                return RangeCursors.empty();
            }
            RocksDbRangeCursor cursor = RocksDbRangeCursor.open(this, db, startInclusive, endExclusive);
            openCursors.add(cursor);
            return cursor;
        });
    }

    /**
     * Closes the database and frees every native handle, after running operations finish.
     * Idempotent. Open range cursors are closed too.
     */
    @Override
    public void close() {
        Lock write = lifecycle.writeLock();
        write.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            closeCursors();
            closeDatabase();
            closeAll(natives);
            log.info("closed store {}", dir);
        } finally {
            write.unlock();
        }
    }

    @Override
    public StorageStats stats() throws StoreException {
        return guarded("stats", new byte[0], () -> new StorageStats(
                db.getAggregatedLongProperty("rocksdb.cur-size-all-mem-tables"),
                db.getAggregatedLongProperty("rocksdb.live-sst-files-size"),
                db.getAggregatedLongProperty("rocksdb.estimate-pending-compaction-bytes"),
                db.getLongProperty("rocksdb.is-write-stopped") != 0,
                db.getLongProperty("rocksdb.actual-delayed-write-rate"),
                statistics.getTickerCount(TickerType.STALL_MICROS),
                statistics.getTickerCount(TickerType.BLOCK_CACHE_HIT),
                statistics.getTickerCount(TickerType.BLOCK_CACHE_MISS),
                keysRead.sum(),
                keysWritten.sum(),
                db.getLongProperty("rocksdb.estimate-num-keys"),
                directoryBytes(),
                wouldBlockByCause()));
    }

    /** Every file of the data directory (flat: RocksDB keeps no subdirectories); files deleted meanwhile count 0. */
    private long directoryBytes() {
        long total = 0;
        try (java.util.stream.Stream<Path> files = Files.list(dir)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                try {
                    total += Files.size(file);
                } catch (IOException deletedMeanwhile) {
                    // a compaction removed it between the listing and the size
                }
            }
        } catch (IOException | java.io.UncheckedIOException e) {
            log.debug("cannot list {} for its size", dir, e);
        }
        return total;
    }

    public Path directory() {
        return dir;
    }

    @Override
    public String toString() {
        return "RocksDbStorageEngine{" + dir + '}';
    }

    // ---- used by RocksDbRangeCursor

    @FunctionalInterface
    interface NativeCall<T> {
        T call() throws RocksDBException, StoreException;
    }

    /**
     * Runs {@code call} while the database is guaranteed open, translating RocksDB failures into
     * a {@link StoreException} that names the operation, key and directory.
     */
    <T> T guarded(String operation, byte[] key, NativeCall<T> call) throws StoreException {
        Lock read = lifecycle.readLock();
        read.lock();
        try {
            if (closed) {
                throw new StoreClosedException(operation + " on closed store " + dir);
            }
            return call.call();
        } catch (RocksDBException e) {
            throw new StoreException(operation + " failed for key " + Keys.describe(key) + " in " + dir + ": "
                    + e.getMessage(), e);
        } finally {
            read.unlock();
        }
    }

    /**
     * As {@link #guarded}, for a caller that must not wait: {@link WouldBlockException} when the
     * store is being closed (its lifecycle lock is taken or wanted) or RocksDB answers Incomplete
     * (the call needed a file, or a write would stall).
     */
    private <T> T guardedNow(String operation, byte[] key, NativeCall<T> call) throws StoreException {
        Lock read = lifecycle.readLock();
        if (!read.tryLock()) {
            throw wouldBlock(WouldBlockException.Cause.CLOSING);
        }
        try {
            if (closed) {
                throw new StoreClosedException(operation + " on closed store " + dir);
            }
            return call.call();
        } catch (WouldBlockException e) {
            throw wouldBlock(e.waitCause());
        } catch (RocksDBException e) {
            if (isIncomplete(e)) {
                // A read that needed a file; applyLocked's refused write is WRITE_STALL already.
                throw wouldBlock(WouldBlockException.Cause.FILE_READ);
            }
            throw new StoreException(operation + " failed for key " + Keys.describe(key) + " in " + dir + ": "
                    + e.getMessage(), e);
        } finally {
            read.unlock();
        }
    }

    /** Closes a cursor's natives without racing {@link #close()}. */
    void closeCursor(RocksDbRangeCursor cursor) {
        Lock read = lifecycle.readLock();
        read.lock();
        try {
            openCursors.remove(cursor);
            cursor.releaseNatives();
        } finally {
            read.unlock();
        }
    }

    void forgetCursor(RocksDbRangeCursor cursor) {
        openCursors.remove(cursor);
    }

    // ---- internals

    private static Options newOptions(StoreConfig config, List<AutoCloseable> natives) {
        LRUCache blockCache = track(natives, new LRUCache(config.blockCacheBytes()));
        BloomFilter bloomFilter = track(natives, new BloomFilter(BLOOM_BITS_PER_KEY));
        BlockBasedTableConfig tableConfig = new BlockBasedTableConfig()
                .setBlockCache(blockCache)
                .setFilterPolicy(bloomFilter);
        return track(natives, new Options()
                .setCreateIfMissing(true)
                .setWriteBufferSize(config.writeBufferBytes())
                .setMaxBackgroundJobs(config.backgroundJobsMax())
                .setKeepLogFileNum(INFO_LOG_FILES_KEPT)
                // Writers take turns in RocksDB's write group. Its defaults suit many cores: a
                // waiting writer spins with sched_yield, and the group's writers insert into the
                // memtable in parallel, then wait for each other. A node here runs on a core or
                // two with a bounded handler pool, where both are hand-offs that cost CPU: with
                // them off, one node's closed-loop PUT went from 15.5k ± 2.3k to 21.5k ± 3.4k
                // req/s and from 64 to 47 µs of CPU per request (bench --replicated-path, 4
                // rounds each; the profile before had 17 % of CPU in the write group's waits).
                .setEnableWriteThreadAdaptiveYield(false)
                .setAllowConcurrentMemtableWrite(false)
                // Every apply reads the key before it writes (last-write-wins), and a write of a
                // new key misses. Without a filter every read walks the memtable's skip list
                // (FindGreaterOrEqual: a quarter of a replica's CPU under PUT load). A whole-key
                // Bloom filter over the memtable (a tenth of its size) answers most misses
                // without the walk: under PUTs of new keys a replica's memtable reads fell to
                // 1.5 % of its CPU (bench/results/profile-20261125T160500Z-*). SSTs have theirs.
                .setMemtableWholeKeyFiltering(true)
                .setMemtablePrefixBloomSizeRatio(MEMTABLE_BLOOM_RATIO)
                .setTableFormatConfig(tableConfig));
    }

    /**
     * A write with {@code options}; one that RocksDB refused as Incomplete (with
     * {@code no_slowdown}: it would have been delayed or stopped) as
     * {@link WouldBlockException.Cause#WRITE_STALL}.
     */
    private void writeOrWouldBlock(WriteOptions options, WriteBatch batch) throws RocksDBException, WouldBlockException {
        try {
            db.write(options, batch);
        } catch (RocksDBException e) {
            if (isIncomplete(e)) {
                throw WouldBlockException.of(WouldBlockException.Cause.WRITE_STALL);
            }
            throw e;
        }
    }

    private static boolean isIncomplete(RocksDBException e) {
        return e.getStatus() != null && e.getStatus().getCode() == Status.Code.Incomplete;
    }

    /** Counts a call that would have waited for {@code cause}; returns the exception to throw. */
    private WouldBlockException wouldBlock(WouldBlockException.Cause cause) {
        wouldBlockCounts[cause.ordinal()].increment();
        return WouldBlockException.of(cause);
    }

    private Map<WouldBlockException.Cause, Long> wouldBlockByCause() {
        Map<WouldBlockException.Cause, Long> counts = new EnumMap<>(WouldBlockException.Cause.class);
        for (WouldBlockException.Cause cause : WouldBlockException.Cause.values()) {
            counts.put(cause, wouldBlockCounts[cause.ordinal()].sum());
        }
        return counts;
    }

    private static LongAdder[] newAdders(int count) {
        LongAdder[] adders = new LongAdder[count];
        for (int i = 0; i < count; i++) {
            adders[i] = new LongAdder();
        }
        return adders;
    }

    private static <T extends AutoCloseable> T track(List<AutoCloseable> natives, T resource) {
        natives.add(resource);
        return resource;
    }

    private static void createDirectory(Path dir) throws StoreException {
        try {
            Files.createDirectories(dir);
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            throw new StoreException("cannot create data directory " + dir + ": " + e, e);
        }
        if (!Files.isWritable(dir)) {
            throw new StoreException("data directory " + dir + " is not writable");
        }
    }

    private static StoreException openFailure(Path dir, RocksDBException e) {
        String message = String.valueOf(e.getMessage());
        if (message.toLowerCase(Locale.ROOT).contains("lock")) {
            return new StoreException("data directory " + dir
                    + " is locked: another ringkv process (or another engine in this one) has it open ("
                    + message + ")", e);
        }
        return new StoreException("cannot open RocksDB in " + dir + ": " + message, e);
    }

    static Record decode(byte[] key, byte[] stored) throws CorruptRecordException {
        try {
            return RecordCodec.decode(stored);
        } catch (CorruptRecordException e) {
            throw new CorruptRecordException("key " + Keys.describe(key) + ": " + e.getMessage());
        }
    }

    private void closeCursors() {
        for (RocksDbRangeCursor cursor : openCursors) {
            log.debug("closing range cursor left open on {}", dir);
            cursor.releaseNatives();
        }
        openCursors.clear();
    }

    private void closeDatabase() {
        try {
            // PROCESS_CRASH writes sit in the page cache; a clean shutdown makes them power-safe.
            db.syncWal();
        } catch (RocksDBException e) {
            log.warn("could not sync the WAL of {} on close", dir, e);
        }
        for (ColumnFamilyHandle family : families) {
            family.close(); // before the database, as RocksDB requires
        }
        try {
            db.closeE();
        } catch (RocksDBException e) {
            log.warn("closing RocksDB in {} reported an error", dir, e);
        }
    }

    private static void closeAll(List<AutoCloseable> natives) {
        for (int i = natives.size() - 1; i >= 0; i--) {
            try {
                natives.get(i).close();
            } catch (Exception e) {
                log.warn("could not free native RocksDB object {}", natives.get(i), e);
            }
        }
    }
}
