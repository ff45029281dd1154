package io.ringkv.cluster;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ringkv.store.InMemoryStorageEngine;
import io.ringkv.store.Record;
import io.ringkv.store.StoreException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

class LocalReplicaTest {

    private final InMemoryStorageEngine engine = new InMemoryStorageEngine();
    private final LocalReplica replica = new LocalReplica(ClusterNode.parse("http://self:1"), engine);
    private final byte[] key = "k".getBytes(StandardCharsets.UTF_8);

    @Test
    void completesBeforeReturningWithWhatTheEngineHolds() {
        CompletableFuture<java.util.OptionalLong> write = replica.write(key, Record.value(3, new byte[] {1}));
        assertThat(write.isDone() && !write.isCompletedExceptionally(), is(true));
        assertThat(replica.read(key).getNow(null), is(Optional.of(Record.value(3, new byte[] {1}))));
    }

    @Test
    void anOlderWriteStillCompletesNormallyAndLeavesTheNewerRecord() {
        replica.write(key, Record.value(5, new byte[] {5}));
        assertThat(replica.write(key, Record.value(4, new byte[] {4})).getNow(null), is(java.util.OptionalLong.of(5)));
        assertThat(replica.read(key).getNow(null), is(Optional.of(Record.value(5, new byte[] {5}))));
    }

    @Test
    void theSameRecordAgainCountsAsStoredNotAsAFresherOne() {
        replica.write(key, Record.value(5, new byte[] {5}));
        assertThat(replica.write(key, Record.value(5, new byte[] {5})).getNow(null), is(java.util.OptionalLong.empty()));
        assertThat(replica.write(key, Record.value(6, new byte[] {6})).getNow(null), is(java.util.OptionalLong.empty()));
    }

    @Test
    void storageErrorsFailTheFutureInsteadOfThrowing() {
        engine.close();
        ExecutionException read = assertThrows(ExecutionException.class, () -> replica.read(key).get());
        assertThat(read.getCause(), instanceOf(StoreException.class));
        ExecutionException write = assertThrows(ExecutionException.class, () -> replica.write(key, Record.tombstone(1)).get());
        assertThat(write.getCause(), instanceOf(StoreException.class));
    }
}
