package io.ringkv.http.client.internal;

import io.ringkv.http.client.internal.PipeState.Consumer;
import io.ringkv.http.client.internal.PipeState.Production;
import io.ringkv.net.EventLoop;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.Flow;

/**
 * Carries a response body from a network thread to the application's subscriber with
 * back-pressure: the subscriber's {@code request(n)} allows n more {@code onNext} calls, each with
 * every buffer queued so far; the producer stops reading from the socket while
 * {@link #wantsMore()} is false and is told through its {@link Producer#resume()} when to go on.
 *
 * <p>Lifecycle: one {@link PipeState} field, changed only through {@link #move}, which refuses
 * any transition the state machine does not have. Who makes each step:
 * <ul>
 *   <li>{@code OPEN → COMPLETED} ({@link #complete}) and {@code OPEN → FAILED} ({@link #fail}):
 *       the producer, whatever the consumer's side; a body that ended stays as it ended.
 *   <li>{@code UNSUBSCRIBED → SUBSCRIBED} ({@link #subscribe}): the exchange, once; a second
 *       subscriber is refused.
 *   <li>{@code SUBSCRIBED → CANCELLED} ({@link #cancel}, or {@link #request} with n ≤ 0): the
 *       subscriber; a cancel after that, or after the end was signalled, does nothing (Reactive
 *       Streams §3.7, §1.6).
 *   <li>{@code → TERMINATED}: the drain only, so the last signal is delivered once: from
 *       {@code SUBSCRIBED} when the body ended and every queued piece was handed over
 *       ({@code onComplete} or {@code onError}), from {@code CANCELLED} at once (nothing, or
 *       {@code onError} for a non-positive request, §3.9).
 * </ul>
 * Each side retries its compare-and-set when the other side moved meanwhile. Whatever the pipe
 * must remember with a step (the failure, the subscriber, the bad request) is written before the
 * step's compare-and-set, which publishes it to whoever sees the new state.
 *
 * <p>Threading: {@code offer}/{@code complete} come from one producer thread at a time (the
 * connection's event loop); {@code fail} may also come from a thread that aborts the exchange
 * (the state machine keeps the first end). Subscriber signals are serialised by a work counter
 * (Reactive Streams §3.3) and run on the client executor, or inline in a thread that calls
 * {@code request} or {@code subscribe} (an application or executor thread, never an event loop).
 * The queue is bounded by {@link #QUEUED_BYTES_MAX} through the producer's pause, plus at most one
 * read's worth. A producing event loop signals new pieces once per loop iteration (see
 * {@link #offer}); the end of the body and failures are signalled at once.
 */
public final class BodyPipe implements Flow.Subscription {
    /** Bytes queued for the subscriber beyond which the producer pauses reading. */
    static final long QUEUED_BYTES_MAX = 1024 * 1024;

    private static final VarHandle STATE;
    private static final VarHandle ERROR;
    // Counters as fields with handles, not Atomic* objects: three allocations fewer per body.
    private static final VarHandle WORK;
    private static final VarHandle DEMAND;
    private static final VarHandle QUEUED_BYTES;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            STATE = lookup.findVarHandle(BodyPipe.class, "state", PipeState.class);
            ERROR = lookup.findVarHandle(BodyPipe.class, "error", Throwable.class);
            WORK = lookup.findVarHandle(BodyPipe.class, "work", int.class);
            DEMAND = lookup.findVarHandle(BodyPipe.class, "demand", long.class);
            QUEUED_BYTES = lookup.findVarHandle(BodyPipe.class, "queuedBytes", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * A subscriber of the client's own that takes each piece by copying it, at once, on whichever
     * thread offers it (an event loop), and runs no application code there. Once subscribed, the
     * pipe queues nothing for it: a slice of a read buffer offered through {@link #offerRead} is
     * not retained, and the flow-control credit returns on arrival. Its {@code Flow} signals still come as for any subscriber.
     */
    interface CopyingSubscriber extends Flow.Subscriber<List<ByteBuffer>> {
        /** Takes the piece's remaining bytes; the buffer is the producer's again on return. */
        void append(ByteBuffer piece);
    }

    /** What the producing codec offers back: resume reading, or stop because the body is not wanted. */
    public interface Producer {
        /** Reading may go on. Called from the client executor: hand over to the event loop. */
        void resume();

        /** The subscriber cancelled: the rest of the body will not be read. Any thread. */
        void cancel();

        /**
         * The subscriber was handed {@code bytes} more (client executor or a requesting thread).
         * HTTP/2 returns flow-control credit here: on consumption, not on arrival.
         */
        default void taken(long bytes) {
        }
    }

    private final Executor executor;
    private final Producer producer;
    /** Small at first: most bodies queue a piece or two at a time, and it grows when one does not. */
    private final ArrayDeque<ByteBuffer> queue = new ArrayDeque<>(2);
    /** Signals asked for and not yet drained (the work counter, see the class doc); through WORK. */
    private volatile int work;
    /** Items the subscriber requested and was not given yet; through DEMAND. */
    private volatile long demand;
    /** Bytes queued and not yet consumed; through QUEUED_BYTES. */
    private volatile long queuedBytes;
    /** The lifecycle; changed by {@link #move} only. */
    private volatile PipeState state = PipeState.UNSUBSCRIBED_OPEN;
    /**
     * Written after the step to {@code SUBSCRIBED} (which is the claim), before the subscribing
     * thread drains: a drain that runs in between finds none and leaves the signals to that drain.
     */
    private volatile Flow.Subscriber<? super List<ByteBuffer>> subscriber;
    /** Set once, under the queue's lock, when the subscriber copies on arrival; never cleared. */
    private volatile CopyingSubscriber copier;
    /** The cause of the step to {@code FAILED}: the first failure claims it (compare-and-set from null). */
    private volatile Throwable error;
    /** Why a non-positive request cancelled; written by the subscriber before its step to {@code CANCELLED}. */
    private IllegalArgumentException badRequest;
    /** {@code onSubscribe} was delivered; drain-confined (the work counter orders the drains). */
    private boolean subscribedSignalled;
    private volatile boolean paused;
    /** A {@link #signalDeferred} task is queued on the producing loop; that loop's thread only. */
    private boolean signalDeferred;

    public BodyPipe(Executor executor, Producer producer) {
        this.executor = executor;
        this.producer = producer;
    }

    /**
     * The one way the lifecycle changes: from {@code from} to {@code to}, if the state is still
     * {@code from}. A pair the state machine has no transition for is a bug in the caller, whatever
     * the current state.
     *
     * @return whether the state was {@code from} and is now {@code to}
     * @throws IllegalStateException if {@code from} cannot become {@code to}
     */
    boolean move(PipeState from, PipeState to) {
        if (!from.canBecome(to)) {
            throw new IllegalStateException("body pipe: no transition from " + from + " to " + to);
        }
        return STATE.compareAndSet(this, from, to);
    }

    /** The current lifecycle state (for tests and diagnostics). */
    PipeState state() {
        return state;
    }

    /**
     * Producer: one more piece of body. The buffer is owned by the pipe from now on.
     *
     * <p>From an event loop the subscriber is told once per loop iteration, by a task that runs
     * after the iteration's reads, not once per piece: a loop that reads a large body several
     * buffers at a time then wakes the consuming thread once for all of them, instead of once per
     * buffer while that thread parks between pieces. From any other thread, at once.
     */
    public void offer(ByteBuffer data) {
        if (state.consumerGone() || !data.hasRemaining()) {
            return;
        }
        int size = data.remaining();
        CopyingSubscriber target;
        synchronized (queue) {
            target = copier;
            if (target != null) {
                target.append(data);
            } else {
                queue.add(data);
            }
        }
        if (target != null) {
            producer.taken(size);
            return;
        }
        QUEUED_BYTES.getAndAdd(this, (long) size);
        EventLoop loop = EventLoop.current();
        if (loop == null) {
            signal();
        } else if (!signalDeferred && subscribed()) { // before the subscriber, subscribe drains (see signal)
            signalDeferred = true;
            loop.execute(this::signalDeferred);
        }
    }

    /** The loop iteration that offered pieces is over: tell the subscriber, unless an end already did. */
    private void signalDeferred() {
        signalDeferred = false;
        if (!isEmpty()) {
            signal();
        }
    }

    /** Producer: whether to keep reading; when false, the pipe calls {@link Producer#resume()} later. */
    public boolean wantsMore() {
        if (queuedBytes < QUEUED_BYTES_MAX || state.consumerGone()) {
            return true;
        }
        paused = true;
        // Re-check: the consumer may have drained between the test and the flag.
        if (queuedBytes < QUEUED_BYTES_MAX) {
            paused = false;
            return true;
        }
        return false;
    }

    /** Producer: the body ended normally. A body that already ended stays as it ended. */
    public void complete() {
        end(Production.COMPLETED);
    }

    /**
     * Producer, or a thread that aborts the exchange: the body cannot be completed. Ignored once
     * the body ended: a body that ended normally stays ended, and a later connection close is not
     * its failure.
     */
    public void fail(Throwable cause) {
        if (state.ended() || !ERROR.compareAndSet(this, null, cause)) {
            return;
        }
        end(Production.FAILED);
    }

    /** {@code OPEN → how}, on whichever consumer side; the subscriber hears of it if one is attached. */
    private void end(Production how) {
        PipeState from;
        do {
            from = state;
            if (from.ended()) {
                return;
            }
        } while (!move(from, from.with(how)));
        if (from.consumer == Consumer.SUBSCRIBED) {
            schedule();
        }
    }

    /**
     * Producer, on the loop of {@code source}: one more piece that is a slice of what
     * {@code source} just read. It is {@linkplain io.ringkv.net.Connection#retain retained}, so
     * that it outlives the read, unless the subscriber copies it before {@link #offer} returns.
     */
    public void offerRead(ByteBuffer slice, io.ringkv.net.Connection source) {
        offer(copiesOnArrival() ? slice : source.retain(slice));
    }

    /** Whether what is offered now is copied before {@link #offer} returns. Once true, stays true. */
    public boolean copiesOnArrival() {
        return copier != null;
    }

    /** Whether the producer ended the body (normally or not), whatever became of its subscriber. */
    public boolean isDone() {
        return state.ended();
    }

    /** Whether the producer ended the body with a failure. */
    public boolean isFailed() {
        return state.production == Production.FAILED;
    }

    /**
     * Producer, on its loop, before any subscriber: {@code target} copies every piece from now on,
     * while the application has not subscribed yet, so that nothing read in the meantime is
     * retained. Its {@code Flow} signals begin when it is {@linkplain #subscribe subscribed}; until
     * then it is only remembered ({@link #arrayBody}). Used for the JDK's
     * {@code BodyHandlers.ofByteArray()}, attached when the response head arrives, so before the
     * application can subscribe.
     */
    void copyFromNowOn(CopyingSubscriber target) {
        Objects.requireNonNull(target);
        if (copier != null || state.consumer != Consumer.UNSUBSCRIBED) {
            throw new IllegalStateException("the body already has a subscriber");
        }
        takeOverQueue(target);
    }

    /** The {@link ByteArrayBody} attached by {@link #copyFromNowOn}, or {@code null}. */
    ByteArrayBody arrayBody() {
        return copier instanceof ByteArrayBody array ? array : null;
    }

    /**
     * Consumer side: attaches the subscriber ({@code UNSUBSCRIBED → SUBSCRIBED}); {@code onSubscribe}
     * follows on the executor, or here off the event loops. A subscriber that copies on arrival is
     * either the one {@linkplain #copyFromNowOn already copying} or the first to copy; a body that
     * another already copies into its array can still be discarded by a subscriber that does not
     * copy (it sees only the end).
     *
     * @throws IllegalStateException if the pipe already has a subscriber, or another copies it
     */
    public void subscribe(Flow.Subscriber<? super List<ByteBuffer>> target) {
        Objects.requireNonNull(target);
        CopyingSubscriber copying = target instanceof CopyingSubscriber c ? c : null;
        if (copying != null && copier != null && copier != copying) {
            throw new IllegalStateException("the body is already copied by another subscriber");
        }
        PipeState from;
        do {
            from = state;
            if (from.consumer != Consumer.UNSUBSCRIBED) {
                throw new IllegalStateException("the body already has a subscriber");
            }
        } while (!move(from, from.with(Consumer.SUBSCRIBED)));
        // Until the subscriber field is set, a drain finds nobody to signal: the queue can be
        // handed over to a copier first, so that no piece reaches it by onNext out of order.
        if (copying != null && copier == null) {
            takeOverQueue(copying);
        }
        subscriber = target;
        if (EventLoop.inAnyLoop()) {
            schedule();
        } else if ((int) WORK.getAndAdd(this, 1) == 0) {
            // Already on an application or executor thread (the head's continuation): deliver
            // what has arrived now instead of hopping once more.
            drain();
        }
    }

    @Override
    public void request(long n) {
        if (n <= 0) {
            // Reactive Streams §3.9: a non-positive request cancels with IllegalArgumentException.
            cancel(new IllegalArgumentException("non-positive subscription request: " + n));
            return;
        }
        long current;
        do {
            current = demand;
        } while (!DEMAND.compareAndSet(this, current, current + n < 0 ? Long.MAX_VALUE : current + n));
        if ((int) WORK.getAndAdd(this, 1) == 0) {
            drain(); // Reactive Streams §3.3: the work counter bounds the recursion.
        }
    }

    @Override
    public void cancel() {
        cancel(null);
    }

    /** {@code SUBSCRIBED → CANCELLED}, remembering {@code reason} for the drain; else nothing (§3.7). */
    private void cancel(IllegalArgumentException reason) {
        PipeState from;
        do {
            from = state;
            if (from.consumer != Consumer.SUBSCRIBED) {
                return;
            }
            badRequest = reason;
        } while (!move(from, from.with(Consumer.CANCELLED)));
        producer.cancel();
        schedule();
    }

    /**
     * Producer side: there is something new for the subscriber. Before one is attached there is
     * nobody to tell ({@link #subscribe} drains what queued up); the state is read after the piece
     * was queued, so a concurrent subscribe either sees the piece or is seen here.
     */
    private void signal() {
        if (subscribed()) {
            schedule();
        }
    }

    private boolean subscribed() {
        return state.consumer == Consumer.SUBSCRIBED;
    }

    private void schedule() {
        if ((int) WORK.getAndAdd(this, 1) == 0) {
            Hops.run(executor, this::drain);
        }
    }

    private void drain() {
        int missed = 1;
        do {
            Flow.Subscriber<? super List<ByteBuffer>> target = subscriber;
            if (target != null && state.consumer != Consumer.TERMINATED) {
                deliver(target);
            }
            missed = (int) WORK.getAndAdd(this, -missed) - missed;
        } while (missed != 0);
    }

    private void deliver(Flow.Subscriber<? super List<ByteBuffer>> target) {
        if (!subscribedSignalled) {
            subscribedSignalled = true;
            target.onSubscribe(this);
        }
        while (demand > 0 && subscribed()) {
            List<ByteBuffer> batch = takeAll();
            if (batch.isEmpty()) {
                break;
            }
            DEMAND.getAndAdd(this, -1L);
            target.onNext(batch);
        }
        PipeState now = state;
        if (now.consumer == Consumer.CANCELLED || (now.ended() && isEmpty())) {
            signalEnd(target, terminate());
        }
    }

    /**
     * The drain's step to {@code TERMINATED}, from whatever the state is by now (a cancel may
     * overtake the end); drops what is still queued. Returns the state it left.
     */
    private PipeState terminate() {
        PipeState from;
        do {
            from = state;
        } while (!move(from, from.with(Consumer.TERMINATED)));
        synchronized (queue) {
            queue.clear();
        }
        return from;
    }

    /** The subscriber's last signal, for the state the pipe {@linkplain #terminate terminated} from. */
    private void signalEnd(Flow.Subscriber<? super List<ByteBuffer>> target, PipeState from) {
        if (from.consumer == Consumer.CANCELLED) {
            if (badRequest != null) {
                target.onError(badRequest);
            }
        } else if (from.production == Production.FAILED) {
            target.onError(error);
        } else {
            target.onComplete();
        }
    }

    /**
     * From now on {@code target} copies each piece as it is offered; what queued before it came
     * is handed to it first, in order, under the same lock as the offers.
     */
    private void takeOverQueue(CopyingSubscriber target) {
        long bytes = 0;
        synchronized (queue) {
            for (ByteBuffer buffer; (buffer = queue.poll()) != null; ) {
                bytes += buffer.remaining();
                target.append(buffer);
            }
            copier = target;
        }
        dequeued(bytes);
    }

    /**
     * What is queued, as one batch: no list at all when nothing is (each drain ends asking), and
     * an immutable one-element list for the usual single piece (subscribers only read batches).
     */
    private List<ByteBuffer> takeAll() {
        List<ByteBuffer> batch;
        long bytes = 0;
        synchronized (queue) {
            int size = queue.size();
            if (size == 0) {
                return List.of();
            }
            if (size == 1) {
                ByteBuffer only = queue.poll();
                bytes = only.remaining();
                batch = List.of(only);
            } else {
                batch = new ArrayList<>(size);
                for (ByteBuffer buffer; (buffer = queue.poll()) != null; ) {
                    bytes += buffer.remaining();
                    batch.add(buffer);
                }
            }
        }
        dequeued(bytes);
        return batch;
    }

    /** {@code bytes} left the queue for the subscriber: credit the producer, and resume it below the bound. */
    private void dequeued(long bytes) {
        if (bytes > 0) {
            producer.taken(bytes);
        }
        long left = (long) QUEUED_BYTES.getAndAdd(this, (long) -bytes) - bytes;
        if (paused && left < QUEUED_BYTES_MAX) {
            paused = false;
            producer.resume();
        }
    }

    private boolean isEmpty() {
        synchronized (queue) {
            return queue.isEmpty();
        }
    }
}
