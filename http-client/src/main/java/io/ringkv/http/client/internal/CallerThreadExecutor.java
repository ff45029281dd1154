package io.ringkv.http.client.internal;

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The executor of one synchronous {@code send}: its tasks (the response head's continuation, the
 * body subscriber's signals, request body publishing) run on the thread that called {@code send}
 * and is waiting for the answer anyway, instead of on the client executor.
 *
 * <p>Why: a synchronous exchange on the client executor costs two thread hand-offs on top of
 * the network (event loop to a pool thread, pool thread to the waiting caller); here the event
 * loop wakes the caller directly, which then does the work itself. The caller is never an event
 * loop, so application code still never runs on one.
 *
 * <p>Once the caller stops waiting (the response is complete, for handlers such as
 * {@code ofInputStream} only its head, or the caller was interrupted), tasks that are still
 * queued or arrive later go to the client executor, so a body that outlives {@code send} keeps
 * flowing.
 *
 * <p>Before parking, the caller may busy-wait a little for its work, as the client's
 * {@link SpinPolicy} allows: a parked caller costs a thread wake-up per answer, and on a machine
 * whose other CPUs are idle that is the wake-up of a halted CPU. A spin that times out is not
 * repeated within the same send, so a slow answer costs at most one.
 *
 * <p>The queue is two fields and, only past two tasks, a deque, all under this object's monitor:
 * a send runs one to three tasks, and a concurrent queue's head node and node per task were
 * about 110 of the 2,200 bytes a small h2c GET allocated. The event loop and the caller meet on the monitor
 * for a few instructions per task.
 *
 * <p>Threading: {@link #execute} from any thread; {@link #await} only from the caller.
 */
final class CallerThreadExecutor implements Executor {
    private static final Logger log = LoggerFactory.getLogger(CallerThreadExecutor.class);
    /** Polls between clock reads while spinning. */
    private static final int POLLS_PER_CLOCK_READ = 64;

    private final Thread caller = Thread.currentThread();
    private final Executor fallback;
    // The queue, oldest first: first, then second, then more. Guarded by this; first is null
    // only when all three are empty, second only when more is.
    private Runnable first;
    private Runnable second;
    private ArrayDeque<Runnable> more;
    /** Tasks queued; written under the monitor, read without it by the spin. */
    private volatile int queued;
    private final SpinPolicy spin;
    private volatile boolean released;
    /** Cleared once a spin times out: a slow answer is waited for by parking only. */
    private boolean mayStillSpin = true;

    /**
     * @param fallback the client executor, for the tasks that come after the caller stopped waiting
     * @param spin     the client's policy on busy-waiting before parking
     */
    CallerThreadExecutor(Executor fallback, SpinPolicy spin) {
        this.fallback = fallback;
        this.spin = spin;
    }

    @Override
    public void execute(Runnable task) {
        if (released) {
            fallback.execute(task);
            return;
        }
        offer(task);
        if (released) {
            handOver(); // the caller left between the check and the add
        } else if (Thread.currentThread() != caller) {
            LockSupport.unpark(caller);
        }
    }

    /**
     * Runs this call's tasks on the calling thread until {@code result} is complete, then returns
     * its value.
     *
     * @param result complete already, or the result of a {@link Call} run on this executor: a
     *               completion from another thread (cancel, a failure completed elsewhere) must
     *               wake the caller, and the call does ({@link Call#accept} calls
     *               {@link #resultCompleted}), so no completion is registered here per send
     */
    <T> T await(CompletableFuture<T> result) throws InterruptedException, ExecutionException {
        try {
            while (true) {
                for (Runnable task; (task = poll()) != null; ) {
                    runContained(task);
                }
                if (result.isDone()) {
                    return result.get();
                }
                if (mayStillSpin && spin.tryBegin()) {
                    boolean foundWork = spinUntilWork(result);
                    spin.end(foundWork);
                    mayStillSpin = foundWork;
                    if (foundWork) {
                        if (Thread.interrupted()) {
                            throw new InterruptedException();
                        }
                        continue;
                    }
                }
                LockSupport.park(this);
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
            }
        } finally {
            released = true;
            handOver();
        }
    }

    /** The awaited result completed (any thread): wakes the caller. */
    void resultCompleted() {
        LockSupport.unpark(caller);
    }

    /** Busy-waits for a task or the result; false when the spin timed out. */
    private boolean spinUntilWork(CompletableFuture<?> result) {
        long deadline = System.nanoTime() + spin.spinNanos();
        do {
            for (int i = 0; i < POLLS_PER_CLOCK_READ; i++) {
                if (queued != 0 || result.isDone()) {
                    return true;
                }
                Thread.onSpinWait();
            }
        } while (System.nanoTime() - deadline < 0);
        return false;
    }

    private void handOver() {
        for (Runnable task; (task = poll()) != null; ) {
            Hops.run(fallback, task);
        }
    }

    private synchronized void offer(Runnable task) {
        if (first == null) {
            first = task;
        } else if (second == null) {
            second = task;
        } else {
            if (more == null) {
                more = new ArrayDeque<>();
            }
            more.add(task);
        }
        queued++;
    }

    /**
     * The oldest task, or {@code null} when none is queued. An empty queue is seen without the
     * monitor: a task queued just after is followed by an unpark, or by a hand-over once
     * {@code released} is set, so the caller never sleeps on it.
     */
    private Runnable poll() {
        return queued == 0 ? null : pollLocked();
    }

    private synchronized Runnable pollLocked() {
        Runnable task = first;
        if (task != null) {
            first = second;
            second = more == null ? null : more.poll();
            queued--;
        }
        return task;
    }

    private static void runContained(Runnable task) {
        try {
            task.run();
        } catch (RuntimeException e) {
            // A pool thread would log and go on; so does the caller, which still owes its result.
            log.warn("task of a synchronous send failed", e);
        }
    }
}
