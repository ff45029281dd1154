package io.ringkv.http.server.internal;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** Builds the server's bounded handler executor. */
public final class HandlerExecutor {
    private HandlerExecutor() {
    }

    /**
     * A fixed pool of {@code threads} with a queue of {@code 2 x inFlightMax} tasks: at most
     * inFlightMax handler calls plus one body pull per streaming response can be waiting, so the
     * queue only overflows on a bug; an overflow is refused (and answered 503), never blocked on.
     */
    public static ExecutorService create(int threads, int inFlightMax) {
        AtomicInteger counter = new AtomicInteger();
        ThreadPoolExecutor executor = new ThreadPoolExecutor(threads, threads, 0, TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(2 * inFlightMax),
                task -> Thread.ofPlatform().name("ringkv-handler-" + counter.incrementAndGet()).daemon(true)
                        .unstarted(task),
                new ThreadPoolExecutor.AbortPolicy());
        executor.prestartAllCoreThreads();
        return executor;
    }
}
