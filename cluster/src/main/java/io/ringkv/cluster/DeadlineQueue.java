package io.ringkv.cluster;

import java.time.Duration;
import java.util.Iterator;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator's deadlines. Every operation of one coordinator gets the same timeout, so
 * deadlines are added in the order they fall due and a FIFO queue is the whole timer: one watcher
 * thread sleeps until the oldest deadline or at most {@link #SWEEP_INTERVAL_NANOS}, drops the
 * operations decided meanwhile, wherever they are in the queue, and hands expired ones to the
 * executor.
 *
 * <p>Why not {@code CompletableFuture.completeOnTimeout}, as before: it schedules on the JDK's
 * shared delay thread (a signal per operation), and cancelling it when the operation is decided,
 * which almost every operation is, builds a {@code CancellationException} and a
 * {@code CompletionException} with their stack traces. A JFR/async-profiler profile of one node
 * under PUT load had 4 % of its CPU in that delay thread and 5.5 % filling in stack traces.
 * Adding here is a lock-free append: no signal, no wake-up, nothing to cancel.
 *
 * <p>Deadlines computed on different threads may be appended a few microseconds out of order; a
 * deadline then fires that much late, behind the one ahead of it. The watcher thread stops after
 * {@link #IDLE_LINGER_MIN} or a whole timeout, whichever is longer, with nothing queued, and is
 * started again by the next {@link #add}, so a coordinator that is dropped leaves no thread behind.
 *
 * <p>Threading: {@link #add} from any thread; the watcher is the only consumer.
 */
final class DeadlineQueue {
    private static final Logger LOG = LoggerFactory.getLogger(DeadlineQueue.class);
    private static final AtomicInteger WATCHERS = new AtomicInteger();

    /** What a deadline watches. */
    interface Expiring {
        /** Whether the operation is decided already: its deadline needs no action. */
        boolean decided();

        /** The deadline passed before the operation was decided. Runs on the executor. */
        void expire();
    }

    private record Entry(long deadlineNanos, Expiring operation) {
    }

    /**
     * How often the watcher drops decided operations while one before them is still in flight.
     * Until dropped, a decided operation stays reachable from here with everything it holds, so
     * the queue retains about rate x this interval of them (300 at 30k operations/s), not
     * rate x timeout.
     */
    static final long SWEEP_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    /**
     * The least time a watcher with nothing in flight waits before it stops. A read's spare delay
     * (20 ms by default) is shorter than the gaps between requests at a few hundred a second; a
     * watcher that stopped after one such gap was started again by the next request, on that
     * request's thread (a profile of the membership bench's steady load, 2,000 requests/s over three
     * nodes, had thread starts under {@code Coordinator.startRead}, and one node's watchers were
     * numbered past 500).
     */
    static final Duration IDLE_LINGER_MIN = Duration.ofSeconds(5);

    private final long timeoutNanos;
    private final long idleLingerNanos;
    private final Executor executor;
    private final ConcurrentLinkedQueue<Entry> entries = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean watching = new AtomicBoolean();

    /**
     * @param timeout  every operation's deadline, from {@link #add}
     * @param executor runs {@link Expiring#expire}; if it refuses, the watcher runs it
     */
    DeadlineQueue(Duration timeout, Executor executor) {
        this(timeout, timeout.compareTo(IDLE_LINGER_MIN) > 0 ? timeout : IDLE_LINGER_MIN, executor);
    }

    /** @param idleLinger how long the watcher waits with nothing in flight before it stops */
    DeadlineQueue(Duration timeout, Duration idleLinger, Executor executor) {
        this.timeoutNanos = timeout.toNanos();
        this.idleLingerNanos = idleLinger.toNanos();
        this.executor = executor;
    }

    /** {@code operation} expires one timeout from now unless it is decided by then. */
    void add(Expiring operation) {
        entries.add(new Entry(System.nanoTime() + timeoutNanos, operation));
        if (!watching.get() && watching.compareAndSet(false, true)) {
            Thread.ofPlatform().daemon(true).name("ringkv-deadlines-" + WATCHERS.incrementAndGet()).start(this::watch);
        }
    }

    /** Whether a watcher thread runs for this queue. For tests. */
    boolean watching() {
        return watching.get();
    }

    /** Entries queued, decided ones not yet dropped included. O(n); for tests. */
    int size() {
        return entries.size();
    }

    private void watch() {
        long idleSinceNanos = -1;
        while (true) {
            long now = System.nanoTime();
            long untilNext = sweep(now);
            if (untilNext > 0) {
                idleSinceNanos = -1;
                LockSupport.parkNanos(this, Math.min(untilNext, SWEEP_INTERVAL_NANOS));
                continue;
            }
            if (idleSinceNanos < 0) {
                idleSinceNanos = now;
            } else if (now - idleSinceNanos >= idleLingerNanos) {
                watching.set(false);
                // An add that saw watching == true before the reset relies on us: look again.
                if (entries.isEmpty() || !watching.compareAndSet(false, true)) {
                    return;
                }
                idleSinceNanos = -1;
                continue;
            }
            // Nothing in flight, but operations may come at any moment: sweep them at the usual pace.
            LockSupport.parkNanos(this, SWEEP_INTERVAL_NANOS);
        }
    }

    /**
     * One pass over the queue: drops decided operations wherever they are, expires those whose
     * deadline passed. A pass visits the operations still in flight plus those added since the
     * last pass, so its cost per operation is constant.
     *
     * @return nanoseconds until the earliest deadline left, or 0 when nothing is left in flight
     */
    private long sweep(long nowNanos) {
        long untilNext = 0;
        for (Iterator<Entry> it = entries.iterator(); it.hasNext(); ) {
            Entry entry = it.next();
            if (entry.operation.decided()) {
                it.remove();
                continue;
            }
            long wait = entry.deadlineNanos - nowNanos;
            if (wait <= 0) {
                it.remove();
                expire(entry.operation);
            } else if (untilNext == 0 || wait < untilNext) {
                untilNext = wait;
            }
        }
        return untilNext;
    }

    private void expire(Expiring operation) {
        try {
            executor.execute(operation::expire);
        } catch (RejectedExecutionException e) {
            LOG.debug("executor refused a deadline; expiring it on the watcher");
            operation.expire();
        }
    }
}
