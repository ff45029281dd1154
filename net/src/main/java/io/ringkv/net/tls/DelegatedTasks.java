package io.ringkv.net.tls;

import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The executor for {@link javax.net.ssl.SSLEngine} delegated tasks (certificate path checks,
 * signatures, key exchange) of TLS connections whose owner passed none: shared by every such
 * connection in the JVM, so a handshake storm does not create a thread per connection.
 *
 * <p>Sized on purpose: the tasks are pure CPU work, so more threads than cores buys nothing, and
 * a handful is enough for the handshakes a client or a node runs at once; {@value #THREADS_MAX}
 * caps it on large machines. The queue is bounded too: when it is full, {@link TlsConnection}
 * runs the tasks on its event loop instead (slower for that loop, never lost). Idle threads end
 * after {@value #IDLE_SECONDS} s, so a JVM that stopped handshaking holds none.
 */
final class DelegatedTasks {
    static final int THREADS_MAX = 4;
    static final int QUEUE_MAX = 1024;
    static final long IDLE_SECONDS = 30;

    private DelegatedTasks() {
    }

    static Executor shared() {
        return Holder.SHARED;
    }

    private static final class Holder {
        static final Executor SHARED = create();

        private static Executor create() {
            int threads = Math.max(1, Math.min(THREADS_MAX, Runtime.getRuntime().availableProcessors()));
            AtomicInteger ids = new AtomicInteger();
            ThreadPoolExecutor pool = new ThreadPoolExecutor(threads, threads, IDLE_SECONDS, TimeUnit.SECONDS,
                    new LinkedBlockingQueue<>(QUEUE_MAX), task -> {
                        Thread thread = new Thread(task, "ringkv-tls-task-" + ids.incrementAndGet());
                        thread.setDaemon(true);
                        return thread;
                    });
            pool.allowCoreThreadTimeOut(true);
            return pool;
        }
    }
}
