package io.ringkv.cluster;

import io.ringkv.store.Record;
import java.io.IOException;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;

/** Fails a seeded, reproducible fraction of calls. Calls must come from one thread (the test's). */
final class FlakyReplica implements Replica {
    private final Replica delegate;
    private final SplittableRandom random;
    private final double failureRate;
    private int failures;

    FlakyReplica(Replica delegate, long seed, double failureRate) {
        this.delegate = delegate;
        this.random = new SplittableRandom(seed);
        this.failureRate = failureRate;
    }

    int failures() {
        return failures;
    }

    @Override
    public ClusterNode node() {
        return delegate.node();
    }

    @Override
    public CompletableFuture<Optional<Record>> read(byte[] key) {
        return fails() ? CompletableFuture.failedFuture(injected()) : delegate.read(key);
    }

    @Override
    public CompletableFuture<java.util.OptionalLong> write(byte[] key, Record record) {
        return fails() ? CompletableFuture.failedFuture(injected()) : delegate.write(key, record);
    }

    private boolean fails() {
        boolean fail = random.nextDouble() < failureRate;
        failures += fail ? 1 : 0;
        return fail;
    }

    private IOException injected() {
        return new IOException("injected flaky failure on " + delegate.node());
    }
}
