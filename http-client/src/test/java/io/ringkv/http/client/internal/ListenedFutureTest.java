package io.ringkv.http.client.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.Test;

class ListenedFutureTest {
    /** What the listener heard: one entry per call, the value or the failure. */
    private final List<Object> heard = new CopyOnWriteArrayList<>();
    private final BiConsumer<String, Throwable> listener = (value, error) -> heard.add(error != null ? error : value);

    @Test
    void theListenerHearsTheValueOnceWhenItCompletes() {
        ListenedFuture<String> future = new ListenedFuture<>();
        assertTrue(future.listen(listener));
        assertEquals(List.of(), heard);
        assertTrue(future.complete("v"));
        assertFalse(future.complete("w"));
        assertFalse(future.completeExceptionally(new IOException("late")));
        assertEquals(List.of("v"), heard);
    }

    @Test
    void aListenerAfterCompletionHearsAtOnce() {
        ListenedFuture<String> future = new ListenedFuture<>();
        IOException failure = new IOException("gone");
        future.completeExceptionally(failure);
        assertTrue(future.listen(listener));
        assertEquals(List.of(failure), heard);
    }

    @Test
    void aSecondListenerIsRefusedAndWhenDoneFallsBackToWhenComplete() {
        ListenedFuture<String> future = new ListenedFuture<>();
        assertTrue(future.listen(listener));
        assertFalse(future.listen((v, e) -> heard.add("second")));
        ListenedFuture.whenDone(future, (v, e) -> heard.add("through whenComplete " + v));
        future.complete("v");
        assertEquals(2, heard.size());
        assertTrue(heard.containsAll(List.of("v", "through whenComplete v")));
    }

    @Test
    void aCancelByTheApplicationIsHeardAsACancellation() {
        ListenedFuture<String> future = new ListenedFuture<>();
        future.listen(listener);
        assertTrue(future.cancel(true));
        assertEquals(1, heard.size());
        assertInstanceOf(CancellationException.class, heard.getFirst());
    }

    @Test
    void orTimeoutAndCompleteAsyncAreHeardToo() throws Exception {
        ListenedFuture<String> timingOut = new ListenedFuture<>();
        CountDownLatch told = new CountDownLatch(2);
        timingOut.listen((v, e) -> {
            heard.add(e);
            told.countDown();
        });
        timingOut.orTimeout(1, TimeUnit.MILLISECONDS);
        ListenedFuture<String> supplied = new ListenedFuture<>();
        supplied.listen((v, e) -> {
            heard.add(v);
            told.countDown();
        });
        supplied.completeAsync(() -> "supplied");
        assertTrue(told.await(10, TimeUnit.SECONDS));
        assertTrue(heard.contains("supplied"));
        assertTrue(heard.stream().anyMatch(TimeoutException.class::isInstance));
    }

    @Test
    void aFailingSupplierFailsTheFutureAndIsHeard() throws Exception {
        ListenedFuture<String> future = new ListenedFuture<>();
        CountDownLatch told = new CountDownLatch(1);
        future.listen((v, e) -> {
            heard.add(e);
            told.countDown();
        });
        IllegalStateException broken = new IllegalStateException("broken");
        future.completeAsync(() -> {
            throw broken;
        }, Runnable::run);
        assertTrue(told.await(10, TimeUnit.SECONDS));
        assertSame(broken, heard.getFirst());
    }

    @Test
    void dependentStagesArePlainFuturesAndWorkAsUsual() {
        ListenedFuture<String> future = new ListenedFuture<>();
        future.listen(listener);
        CompletableFuture<Integer> length = future.thenApply(String::length);
        assertFalse(length instanceof ListenedFuture);
        future.complete("four");
        assertEquals(4, length.join());
        assertEquals(List.of("four"), heard);
    }
}
