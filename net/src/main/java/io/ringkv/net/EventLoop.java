package io.ringkv.net;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One selector thread: it owns the channels registered with it, runs tasks submitted from other
 * threads, and fires timers.
 *
 * <p>Threading: {@link #execute} and {@link #schedule} may be called from any thread; everything
 * else runs on the loop thread. A channel registered here is read only by this thread. Tasks and
 * timers must not block: a blocked loop stalls every connection it owns.
 *
 * <p>The loop owns the buffers its connections read into ({@link ReadArena}); see
 * {@link ConnectionHandler#onRead} and {@link Connection#retain}.
 */
public final class EventLoop implements Executor {
    private static final Logger log = LoggerFactory.getLogger(EventLoop.class);

    /** Tasks run per loop iteration, so a flood of tasks cannot starve socket I/O. */
    static final int TASKS_PER_ITERATION_MAX = 1024;
    /** A read gets a fresh buffer when less than this is left of the current one (see {@link ReadArena}). */
    static final int READ_FREE_BYTES_MIN = 16 * 1024;

    enum State { RUNNING, STOPPING, TERMINATED }

    private final String name;
    private final Selector selector;
    private final Thread thread;
    private final LongSupplier nanoClock;
    private final Consumer<Throwable> onFailure;
    private final ReadArena readArena;
    private final TimerQueue timers = new TimerQueue();
    // Unbounded by type, bounded in practice: producers submit a constant number of tasks per
    // connection event (register, change interest, signal writability).
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean wakeupPending = new AtomicBoolean();
    /** Timers scheduled from other threads, moved into {@link #timers} by the loop. */
    private final ConcurrentLinkedQueue<ScheduledTask> incomingTimers = new ConcurrentLinkedQueue<>();
    /** What the loop is doing, for {@link #schedule}: {@link #AWAKE}, {@link #SLEEPING_UNTIL} or {@link #SLEEPING}. */
    private volatile int sleepState = AWAKE;
    /** With {@link #SLEEPING_UNTIL}: when the loop's select times out; written before {@link #sleepState}. */
    private volatile long sleepDeadlineNanos;
    private static final int AWAKE = 0;
    private static final int SLEEPING_UNTIL = 1;
    private static final int SLEEPING = 2;
    private final AtomicLong timerSequence = new AtomicLong();
    private final AtomicReference<State> state = new AtomicReference<>(State.RUNNING);
    private final CountDownLatch terminated = new CountDownLatch(1);
    // Counters for metrics. Read and busy time are loop-confined: the loop adds with an ordered
    // store (no fence, no contention), any thread reads. Writes come from any thread that wins a
    // connection's flush, hence an adder.
    private final AtomicLong bytesRead = new AtomicLong();
    private final LongAdder bytesWritten = new LongAdder();
    private final AtomicLong busyNanos = new AtomicLong();
    /** The timer queue's size at the end of the loop's last iteration; loop writes (ordered store), any thread reads. */
    private final AtomicInteger timersPending = new AtomicInteger();
    /** Loop-confined: when the current iteration's select woke, 0 until its first dispatch. */
    private long wokeNanos;
    /** The loop the current thread runs, if it is a loop thread. */
    private static final ThreadLocal<EventLoop> CURRENT = new ThreadLocal<>();

    EventLoop(String name, int readBufferBytes, LongSupplier nanoClock) throws IOException {
        this(name, readBufferBytes, nanoClock, failure -> { });
    }

    /**
     * @param onFailure told, after the loop closed its channels, when the loop thread died of an
     *                  exception or error (an {@code OutOfMemoryError}, a bug): the owner decides
     *                  whether the process can go on without it
     */
    EventLoop(String name, int readBufferBytes, LongSupplier nanoClock, Consumer<Throwable> onFailure) throws IOException {
        this.onFailure = onFailure;
        this.name = name;
        this.nanoClock = nanoClock;
        this.readArena = new ReadArena(readBufferBytes, READ_FREE_BYTES_MIN);
        this.selector = Selector.open();
        this.thread = Thread.ofPlatform().name(name).daemon(true).unstarted(this::run);
    }

    void start() {
        thread.start();
    }

    public boolean inLoop() {
        return Thread.currentThread() == thread;
    }

    /**
     * Whether the calling thread is the thread of any event loop. Code that may run application
     * callbacks inline asks this first: such code must hop off a loop, and need not hop otherwise.
     */
    public static boolean inAnyLoop() {
        return CURRENT.get() != null;
    }

    /**
     * The loop whose thread is calling, or {@code null} on any other thread. For work that should
     * wait until the loop has finished the current iteration's reads: {@link #execute} on it.
     */
    public static EventLoop current() {
        return CURRENT.get();
    }

    /** The loop's clock, in nanoseconds (System.nanoTime unless a test clock was given). */
    public long nanoTime() {
        return nanoClock.getAsLong();
    }

    /**
     * Runs {@code task} on the loop thread, after the current loop iteration's I/O.
     *
     * @throws RejectedExecutionException when the loop has stopped
     */
    @Override
    public void execute(Runnable task) {
        if (state.get() == State.TERMINATED) {
            throw new RejectedExecutionException(name + " has stopped");
        }
        tasks.add(task);
        if (!inLoop() && wakeupPending.compareAndSet(false, true)) {
            selector.wakeup();
        }
    }

    /** Runs {@code task} now when called on the loop, else submits it; drops it once the loop has stopped. */
    void runOnLoop(Runnable task) {
        if (inLoop()) {
            task.run();
            return;
        }
        try {
            execute(task);
        } catch (RejectedExecutionException e) {
            log.debug("{} stopped, dropping task", name);
        }
    }

    /** Runs {@code task} once on the loop after {@code delay}. May be called from any thread. */
    public ScheduledTask schedule(Runnable task, Duration delay) {
        return schedule(task, delay.toNanos(), TimeUnit.NANOSECONDS);
    }

    /**
     * Like {@link #schedule(Runnable, Duration)}. From another thread the timer goes to a queue the
     * loop drains each iteration, and the selector is woken only when the loop sleeps past the new
     * deadline: a request timeout scheduled per request (the HTTP client's) usually falls after
     * the loop's next wake-up anyway, and then costs no system call.
     */
    public ScheduledTask schedule(Runnable task, long delay, TimeUnit unit) {
        long deadline = nanoTime() + Math.max(0, unit.toNanos(delay));
        ScheduledTask scheduled = new ScheduledTask(deadline, timerSequence.incrementAndGet(), task);
        if (inLoop()) {
            timers.add(scheduled);
            return scheduled;
        }
        if (state.get() == State.TERMINATED) {
            log.debug("{} stopped, dropping a timer", name);
            return scheduled;
        }
        incomingTimers.add(scheduled);
        // Dekker with runOnce: the loop publishes its sleep state, then looks at incomingTimers
        // again; we added, then read the state. One of us sees the other.
        int sleeping = sleepState;
        if (sleeping == SLEEPING || (sleeping == SLEEPING_UNTIL && deadline - sleepDeadlineNanos < 0)) {
            if (wakeupPending.compareAndSet(false, true)) {
                selector.wakeup();
            }
        }
        return scheduled;
    }

    /** Registers {@code channel} (already non-blocking) with this loop. Loop thread only. */
    SelectionKey register(SelectableChannel channel, int ops, SelectionHandler handler) throws IOException {
        assert inLoop();
        return channel.register(selector, ops, handler);
    }

    /** Where this loop's socket reads land. Loop thread only. */
    ReadArena readArena() {
        assert inLoop();
        return readArena;
    }

    State state() {
        return state.get();
    }

    /** Asks the loop to close its channels and stop; returns at once. */
    void stop() {
        if (state.compareAndSet(State.RUNNING, State.STOPPING)) {
            selector.wakeup();
        }
    }

    boolean awaitTermination(Duration timeout) throws InterruptedException {
        return terminated.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    private void run() {
        CURRENT.set(this);
        try {
            while (state.get() == State.RUNNING) {
                runOnce();
            }
        } catch (Throwable e) {
            log.error("{} failed; closing its channels", name, e);
            try {
                shutDown();
            } finally {
                onFailure.accept(e);
            }
            return;
        }
        shutDown();
    }

    /** Bytes read from sockets by this loop since it started. Any thread. */
    public long bytesRead() {
        return bytesRead.get();
    }

    /** Bytes written to this loop's sockets since it started, by whichever thread wrote them. Any thread. */
    public long bytesWritten() {
        return bytesWritten.sum();
    }

    /**
     * Nanoseconds this loop spent working (timers, dispatching ready channels, tasks) rather than
     * waiting in {@code select}, since it started. Any thread; for a busy ratio, compare two reads.
     */
    public long busyNanos() {
        return busyNanos.get();
    }

    /**
     * Timers this loop held at the end of its last iteration, cancelled ones not yet dropped
     * included. Owners schedule a constant number per connection, so a count that grows with the
     * request count is a leak (a timer per request that outlives its request). Any thread.
     */
    public int timersPending() {
        return timersPending.get();
    }

    /** Loop thread: a read of {@code n > 0} bytes. */
    void countRead(int n) {
        bytesRead.lazySet(bytesRead.get() + n);
    }

    /** Any thread: a write of {@code n > 0} bytes to one of this loop's sockets. */
    void countWritten(long n) {
        bytesWritten.add(n);
    }

    private void runOnce() throws IOException {
        // Busy time costs three clock reads per iteration (not per event): start, before the
        // select, and when it woke (the first dispatch, or its return when nothing was ready).
        long start = System.nanoTime();
        sleepState = AWAKE;
        drainIncomingTimers();
        long now = nanoTime();
        long untilNextTimer = timers.runDue(now);
        // Clear before looking at the task queue: a task added after this point wakes the select.
        wakeupPending.set(false);
        long beforeSelect = System.nanoTime();
        wokeNanos = 0;
        if (!tasks.isEmpty()) {
            selector.selectNow(this::dispatch);
        } else {
            long timeoutMillis = untilNextTimer == TimerQueue.NO_DEADLINE ? 0
                    : Math.max(1, TimeUnit.NANOSECONDS.toMillis(untilNextTimer + 999_999));
            if (timeoutMillis == 0) {
                sleepState = SLEEPING;
            } else {
                sleepDeadlineNanos = now + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
                sleepState = SLEEPING_UNTIL;
            }
            if (!incomingTimers.isEmpty()) {
                selector.selectNow(this::dispatch); // a timer came in before we published the state
            } else if (timeoutMillis == 0) {
                selector.select(this::dispatch);
            } else {
                selector.select(this::dispatch, timeoutMillis);
            }
            sleepState = AWAKE;
        }
        long woke = wokeNanos != 0 ? wokeNanos : System.nanoTime();
        runTasks();
        long end = System.nanoTime();
        busyNanos.lazySet(busyNanos.get() + (beforeSelect - start) + (end - woke));
        timersPending.lazySet(timers.size());
    }

    private void drainIncomingTimers() {
        for (ScheduledTask timer = incomingTimers.poll(); timer != null; timer = incomingTimers.poll()) {
            timers.add(timer);
        }
    }

    private void dispatch(SelectionKey key) {
        if (wokeNanos == 0) {
            wokeNanos = System.nanoTime();
        }
        SelectionHandler handler = (SelectionHandler) key.attachment();
        try {
            if (key.isValid()) {
                handler.onSelected(key.readyOps());
            }
        } catch (RuntimeException e) {
            log.error("{}: unexpected failure in {}; closing it", name, handler, e);
            handler.onLoopClosing();
        }
    }

    private void runTasks() {
        for (int i = 0; i < TASKS_PER_ITERATION_MAX; i++) {
            Runnable task = tasks.poll();
            if (task == null) {
                return;
            }
            try {
                task.run();
            } catch (RuntimeException e) {
                log.error("{}: task failed", name, e);
            }
        }
    }

    private void shutDown() {
        List<SelectionHandler> handlers = new ArrayList<>();
        try {
            for (SelectionKey key : selector.keys()) {
                handlers.add((SelectionHandler) key.attachment());
            }
        } catch (RuntimeException e) {
            log.debug("{}: cannot list keys", name, e);
        }
        for (SelectionHandler handler : handlers) {
            try {
                handler.onLoopClosing();
            } catch (RuntimeException e) {
                log.warn("{}: failed to close {}", name, handler, e);
            }
        }
        runTasks(); // close notifications queued by the handlers above
        state.set(State.TERMINATED);
        timers.clear();
        incomingTimers.clear();
        tasks.clear();
        try {
            selector.close();
        } catch (IOException e) {
            log.debug("{}: closing the selector failed", name, e);
        } finally {
            terminated.countDown();
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
