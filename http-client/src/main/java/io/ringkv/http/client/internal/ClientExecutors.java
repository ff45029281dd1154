package io.ringkv.http.client.internal;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The executor a client uses when the application gave none: a small fixed pool of daemon
 * threads. Its size does not depend on the load, so the thread count stays flat however many
 * requests are in flight (the JDK client's default cached pool grows instead). Idle threads time
 * out, so an idle client holds no threads.
 */
final class ClientExecutors {
    /** At least this many threads, so one blocked callback does not stall every response. */
    static final int THREADS_MIN = 2;
    static final long IDLE_THREAD_SECONDS = 60;
    private static final AtomicInteger CLIENT_IDS = new AtomicInteger();

    private ClientExecutors() {
    }

    static ExecutorService newDefault() {
        int threads = Math.max(THREADS_MIN, Runtime.getRuntime().availableProcessors());
        String prefix = "ringkv-http-client-" + CLIENT_IDS.incrementAndGet() + "-worker-";
        AtomicInteger threadIds = new AtomicInteger();
        ThreadFactory factory = task -> {
            Thread thread = new Thread(task, prefix + threadIds.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
        // The queue is unbounded in length but not in what feeds it: each task is one signal of a
        // request the application started; the application's own concurrency bounds it.
        ThreadPoolExecutor pool = new ThreadPoolExecutor(threads, threads, IDLE_THREAD_SECONDS, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), factory);
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }
}
