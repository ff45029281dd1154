package io.ringkv.node.metrics;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.ringkv.store.StorageEngine;
import io.ringkv.store.StorageStats;
import io.ringkv.store.StoreException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store's own statistics (RocksDB properties and tickers, keys read and written), read once
 * per scrape. A store that cannot answer (closing) contributes no families to that scrape.
 *
 * <p>Threading: stateless; {@link #collect} on the scraping thread.
 */
final class StorageCollector implements MultiCollector {
    private static final Logger log = LoggerFactory.getLogger(StorageCollector.class);

    private final StorageEngine engine;

    StorageCollector(StorageEngine engine) {
        this.engine = engine;
    }

    @Override
    public MetricSnapshots collect() {
        StorageStats stats;
        try {
            stats = engine.stats();
        } catch (StoreException | RuntimeException e) {
            log.debug("no storage metrics this scrape: {}", e.toString());
            return new MetricSnapshots();
        }
        long lookups = stats.blockCacheHits() + stats.blockCacheMisses();
        return new Families()
                .gauge("ringkv_storage_memtable_bytes", "Bytes in RocksDB's memtables, all column families", stats.memtableBytes())
                .gauge("ringkv_storage_live_sst_bytes", "Bytes of the SST files RocksDB's current version uses", stats.liveSstBytes())
                .gauge("ringkv_storage_pending_compaction_bytes", "RocksDB's estimate of the bytes compaction must rewrite",
                        stats.pendingCompactionBytes())
                .gauge("ringkv_storage_writes_stopped", "1 while RocksDB stops writes (too many memtables or L0 files)",
                        stats.writesStopped() ? 1 : 0)
                .gauge("ringkv_storage_delayed_write_rate_bytes", "Bytes/s RocksDB slows writes to; 0 while not delayed",
                        stats.delayedWriteRate())
                .counter("ringkv_storage_write_stall_seconds", "Time writers spent stalled (delayed or stopped) by RocksDB",
                        stats.stallMicros() / 1e6)
                .counter("ringkv_storage_block_cache_hits", "Block cache lookups that found their block", stats.blockCacheHits())
                .counter("ringkv_storage_block_cache_misses", "Block cache lookups that read from disk", stats.blockCacheMisses())
                .gauge("ringkv_storage_block_cache_hit_ratio", "Block cache hits over lookups since start (NaN before the first)",
                        lookups == 0 ? Double.NaN : (double) stats.blockCacheHits() / lookups)
                .counter("ringkv_storage_keys_read", "Point reads of records from the store", stats.keysRead())
                .counter("ringkv_storage_keys_written", "Records stored (writes that were newer than what the store held)",
                        stats.keysWritten())
                .gauge("ringkv_storage_estimated_keys", "RocksDB's estimate of the keys stored, tombstones included",
                        stats.estimatedKeys())
                .gauge("ringkv_storage_disk_bytes", "Bytes of all files in the data directory", stats.diskBytes())
                .counter("ringkv_storage_would_block", "Storage calls of requests run on an event loop that would have had "
                        + "to wait and went to the handler executor, by what they would have waited for", "cause",
                        wouldBlockByLabel(stats))
                .build();
    }

    private static Map<String, Long> wouldBlockByLabel(StorageStats stats) {
        Map<String, Long> byLabel = new LinkedHashMap<>();
        stats.wouldBlockByCause().forEach((cause, count) -> byLabel.put(cause.label(), count));
        return byLabel;
    }
}
