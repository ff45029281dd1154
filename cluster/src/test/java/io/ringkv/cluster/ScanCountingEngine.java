package io.ringkv.cluster;

import io.ringkv.store.ClockLease;
import io.ringkv.store.HintLog;
import io.ringkv.store.RangeCursor;
import io.ringkv.store.Record;
import io.ringkv.store.RecordChangeListener;
import io.ringkv.store.StorageEngine;
import io.ringkv.store.StorageStats;
import io.ringkv.store.StoreException;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/** A real engine that counts the ranges (scans) opened on it. */
final class ScanCountingEngine implements StorageEngine {
    private final StorageEngine delegate;
    final AtomicInteger rangesOpened = new AtomicInteger();

    ScanCountingEngine(StorageEngine delegate) {
        this.delegate = delegate;
    }

    @Override
    public Optional<Record> get(byte[] key) throws StoreException {
        return delegate.get(key);
    }

    @Override
    public boolean apply(byte[] key, Record record) throws StoreException {
        return delegate.apply(key, record);
    }

    @Override
    public RangeCursor range(byte[] startInclusive, byte[] endExclusive) throws StoreException {
        rangesOpened.incrementAndGet();
        return delegate.range(startInclusive, endExclusive);
    }

    @Override
    public boolean purge(byte[] key, Record expected) throws StoreException {
        return delegate.purge(key, expected);
    }

    @Override
    public void setChangeListener(RecordChangeListener listener) {
        delegate.setChangeListener(listener);
    }

    @Override
    public RangeCursor setChangeListenerAndScan(RecordChangeListener listener) throws StoreException {
        rangesOpened.incrementAndGet();
        return delegate.setChangeListenerAndScan(listener);
    }

    @Override
    public ClockLease clockLease() {
        return delegate.clockLease();
    }

    @Override
    public HintLog hints() {
        return delegate.hints();
    }

    @Override
    public io.ringkv.store.PaxosStateLog paxos() {
        return delegate.paxos();
    }

    @Override
    public StorageStats stats() throws StoreException {
        return delegate.stats();
    }

    @Override
    public void close() {
        delegate.close();
    }
}
