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
 * thread sleeps until the oldest deadline still in flight, drops the operations decided
 * meanwhile, wherever they are in the queue, and hands expired ones to the executor.
 *
 * <p>Why not {@code CompletableFuture.completeOnTimeout}, as before: it schedules on the JDK's
 * shared delay thread (a signal per operation), and cancelling it when the operation is decided,
 * which almost every operation is, builds a {@code CancellationException} and a
 * {@code CompletionException} with their stack traces. A JFR/async-profiler profile of one node
 * under PUT load had 4 % of its CPU in that delay thread and 5.5 % filling in stack traces.
 * Adding here is a lock-free append: no signal and nothing to cancel, except that every
 * {@link #SWEEP_EVERY_ADDS}th add wakes the watcher (see below).
 *
 * <p>When the watcher sleeps: until the oldest undecided deadline; with nothing in flight, a
 * whole timeout, since an operation added meanwhile falls due at least that late. It used to wake
 * every 10 ms as well, to drop decided operations (which stay reachable from here, with
 * everything they hold, until dropped); at a few hundred requests a second that was most of its
 * wake-ups (0.4 a request at 500 GETs/s, counting the spare-delay queue's), each a switch of
 * thread on a shared CPU for nothing. Decided operations are now bounded by count instead: the
 * {@link #SWEEP_EVERY_ADDS}th add since the last wake-up wakes the watcher, so the queue holds at
 * most about that many of them besides those in flight, at any rate; and by age: the watcher
 * sleeps at most {@link #SLEEP_MAX_NANOS}.
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
     * Every this many adds wake the watcher to drop the decided operations: the most the queue
     * holds besides those in flight (at 30k operations/s a wake-up every 8.5 ms, as the 10 ms
     * sweep before; at 500/s one every half second instead of a hundred a second).
     */
    static final int SWEEP_EVERY_ADDS = 256;

    /** The longest the watcher sleeps: how long a decided operation may stay reachable from here. */
    static final long SLEEP_MAX_NANOS = TimeUnit.SECONDS.toNanos(1);

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
    /** Adds so far, for {@link #SWEEP_EVERY_ADDS}; wraps, which only shifts which add wakes. */
    private final AtomicInteger adds = new AtomicInteger();
    /** The running watcher thread, for the add that wakes it; null before it starts. */
    private volatile Thread watcher;
    /** Sweeps so far. For tests. */
    private volatile int sweeps;

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
        } else if ((adds.incrementAndGet() & (SWEEP_EVERY_ADDS - 1)) == 0) {
            Thread running = watcher;
            if (running != null) {
                LockSupport.unpark(running);
            }
        }
    }

    /** Sweeps the watchers of this queue made so far. For tests. */
    int sweeps() {
        return sweeps;
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
        watcher = Thread.currentThread();
        long idleSinceNanos = -1;
        while (true) {
            long now = System.nanoTime();
            long untilNext = sweep(now);
            if (untilNext > 0) {
                idleSinceNanos = -1;
                LockSupport.parkNanos(this, Math.min(untilNext, SLEEP_MAX_NANOS));
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
            // Nothing in flight: whatever is added from now on falls due a whole timeout from now or later.
            LockSupport.parkNanos(this, Math.min(timeoutNanos, SLEEP_MAX_NANOS));
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
        sweeps++; // the watcher is the only writer
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
