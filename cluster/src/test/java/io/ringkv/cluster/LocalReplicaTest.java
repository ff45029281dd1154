package io.ringkv.cluster;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ringkv.store.InMemoryStorageEngine;
import io.ringkv.store.Record;
import io.ringkv.store.StorageEngine;
import io.ringkv.store.StoreException;
import io.ringkv.store.WouldBlockException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
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
    void whatMemoryAnswersCompletesOnTheCallingThreadWithoutTheExecutor() {
        java.util.List<Runnable> handedOver = new java.util.ArrayList<>();
        LocalReplica onLoop = new LocalReplica(ClusterNode.parse("http://self:1"), engine, handedOver::add);
        assertThat(onLoop.write(key, Record.value(3, new byte[] {1})).getNow(null), is(java.util.OptionalLong.empty()));
        assertThat(onLoop.write(key, Record.value(2, new byte[] {2})).getNow(null), is(java.util.OptionalLong.of(3)));
        assertThat(onLoop.read(key).getNow(null), is(Optional.of(Record.value(3, new byte[] {1}))));
        assertThat(handedOver.size(), is(0));
    }

    @Test
    void whatWouldWaitRunsOnTheExecutorAndCompletesThere() {
        java.util.List<Runnable> handedOver = new java.util.ArrayList<>();
        LocalReplica onLoop = new LocalReplica(ClusterNode.parse("http://self:1"), alwaysWouldBlock(engine), handedOver::add);

        CompletableFuture<java.util.OptionalLong> write = onLoop.write(key, Record.value(3, new byte[] {1}));
        CompletableFuture<Optional<Record>> read = onLoop.read(key);
        assertThat("nothing done on the calling thread", write.isDone() || read.isDone(), is(false));
        assertThat(handedOver.size(), is(2));

        handedOver.get(0).run();
        handedOver.get(1).run();
        assertThat(write.getNow(null), is(java.util.OptionalLong.empty()));
        assertThat(read.getNow(null), is(Optional.of(Record.value(3, new byte[] {1}))));
    }

    @Test
    void aRefusingExecutorFailsTheCallInsteadOfRunningItHere() throws StoreException {
        LocalReplica onLoop = new LocalReplica(ClusterNode.parse("http://self:1"), alwaysWouldBlock(engine), task -> {
            throw new java.util.concurrent.RejectedExecutionException("full");
        });
        ExecutionException write = assertThrows(ExecutionException.class, () -> onLoop.write(key, Record.tombstone(1)).get());
        assertThat(write.getCause(), instanceOf(java.util.concurrent.RejectedExecutionException.class));
        assertThat(engine.get(key), is(Optional.empty()));
    }

    /** {@code engine}, whose calls that must not wait always would. */
    static StorageEngine alwaysWouldBlock(StorageEngine engine) {
        return (StorageEngine) Proxy.newProxyInstance(StorageEngine.class.getClassLoader(), new Class<?>[] {StorageEngine.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("getNow") || method.getName().equals("applyAllNow")) {
                        throw WouldBlockException.of(WouldBlockException.Cause.FILE_READ);
                    }
                    try {
                        return method.invoke(engine, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
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
