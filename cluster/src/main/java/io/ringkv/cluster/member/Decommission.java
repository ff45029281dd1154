package io.ringkv.cluster.member;

import io.ringkv.cluster.Cleanup;
import io.ringkv.cluster.CleanupStatus;
import io.ringkv.cluster.ClusterNode;
import io.ringkv.cluster.ClusterNodes;
import io.ringkv.cluster.InternalProtocol;
import io.ringkv.cluster.KnownMetadata;
import io.ringkv.cluster.meta.ClusterMetadata;
import io.ringkv.cluster.meta.Member;
import io.ringkv.cluster.meta.MemberState;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node leaving the cluster ({@code ringkv decommission --node URL}), as metadata steps that
 * survive a restart (a node started again while {@code leaving} takes up the steps again):
 * <ol>
 *   <li><b>Leaving.</b> The metadata makes this node {@code leaving} ({@link #begin}, refused with
 *       the metadata's reason: a change already in progress, too few members left for the
 *       replication factor). It still owns its keys; the owners its keys will have get every write
 *       too (pending replicas).
 *   <li><b>Every member knows that epoch</b> (as for a join).
 *   <li><b>Streaming.</b> A cleanup run here sends each record to the owners its key will have
 *       that do not own it yet; a run that could not hand every record over is run again.
 *   <li><b>Draining.</b> {@code /v0/status} answers {@code 503 leaving} for the drain delay, so
 *       that clients and load balancers move away before this node stops answering.
 *   <li><b>Moving its vote.</b> Waits until this node holds no vote in the metadata group: the
 *       leader moves a {@code leaving} member's vote to a {@code normal} one that has none
 *       ({@code VoterReconciler}), usually while the records stream, so a node that left never
 *       counts among the voters a majority is made of.
 *   <li><b>Left.</b> The metadata makes this node {@code left}; the node then stops
 *       ({@code onLeft}), exit status 0.
 * </ol>
 *
 * <p>Threading: {@link #begin} from a handler thread (it waits for the metadata's answer); the
 * steps after it run on their own thread ({@code ringkv-decommission}); {@link #progress} and
 * {@link #draining} from any thread.
 */
public final class Decommission implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Decommission.class);

    private final MembershipCalls calls;
    private final ClusterNodes topology;
    private final KnownMetadata known;
    private final Cleanup cleanup;
    private final Duration drainDelay;
    private final Runnable onLeft;
    private final LongSupplier wallMillis;
    private final String selfId;
    /** Whether this node still holds a vote in the metadata group's configuration. */
    private final BooleanSupplier votes;
    private final AtomicReference<MembershipProgress> progress = new AtomicReference<>(MembershipProgress.NONE);
    private final Object lock = new Object();
    /** Guarded by {@link #lock}. */
    private Thread thread;
    private volatile boolean draining;
    private volatile boolean closed;
    /** How long an abort waits for the hand-over run to stop: the chunk it is sending, at most 1,024 records or 8 MiB, to be taken. */
    static final Duration HAND_OVER_STOP_WAIT = Duration.ofSeconds(10);
    /** Set by {@link #abort}: the steps stop where they are. */
    private volatile boolean aborted;

    /**
     * @param drainDelay how long {@code /v0/status} says {@code leaving} before the node leaves
     * @param onLeft     run once the metadata says {@code left} (stops the node)
     * @param votes      whether this node holds a vote in the metadata group now (as its own server knows the configuration)
     */
    public Decommission(MembershipCalls calls, ClusterNodes topology, KnownMetadata known, Cleanup cleanup, Duration drainDelay,
                        Runnable onLeft, LongSupplier wallMillis, BooleanSupplier votes) {
        this.votes = votes;
        this.calls = calls;
        this.topology = topology;
        this.known = known;
        this.cleanup = cleanup;
        this.drainDelay = drainDelay;
        this.onLeft = onLeft;
        this.wallMillis = wallMillis;
        this.selfId = Member.idOf(topology.self());
    }

    /**
     * Makes this node {@code leaving} (or finds it so: asking twice is safe) and starts the steps
     * after it.
     *
     * @throws MembershipRefusedException when the metadata refuses (its reason says why)
     * @throws IOException                when no member of the metadata group took the step
     */
    public MembershipProgress begin() throws IOException, InterruptedException {
        ClusterMetadata now = JoinProcedure.await(calls.read());
        MemberState state = now.member(selfId).map(Member::state).orElse(MemberState.LEFT);
        if (state == MemberState.NORMAL) {
            now = JoinProcedure.await(calls.change(InternalProtocol.META_MEMBER_STATE_PATH, selfId + " leaving normal"));
        } else if (state != MemberState.LEAVING) {
            throw new MembershipRefusedException("this node is " + state.label() + "; only a normal member can be decommissioned");
        }
        known.offer(now);
        resume(now.epoch());
        return progress.get();
    }

    /**
     * Takes up the steps after {@code leaving} when the metadata says this node is leaving (a node
     * started again in the middle of its decommission); does nothing otherwise.
     */
    public void resumeIfLeaving(ClusterMetadata metadata) {
        if (metadata.member(selfId).map(Member::state).orElse(null) == MemberState.LEAVING) {
            LOG.info("decommission: this node is leaving (epoch {}); taking up the steps again", metadata.epoch());
            resume(metadata.epoch());
        }
    }

    private void resume(long epoch) {
        synchronized (lock) {
            if (thread != null || closed) {
                return;
            }
            aborted = false;
            progress.set(MembershipProgress.started("decommission", "leaving", epoch, wallMillis.getAsLong()));
            thread = new Thread(() -> runLogged(epoch), "ringkv-decommission");
            thread.setDaemon(true);
            thread.start();
        }
    }

    public MembershipProgress progress() {
        return progress.get();
    }

    /** Whether this node tells clients to go elsewhere ({@code /v0/status} 503) before it leaves. */
    public boolean draining() {
        return draining;
    }

    private void runLogged(long epoch) {
        while (!stopped()) {
            try {
                steps(epoch);
                return;
            } catch (IOException | MembershipRefusedException | IllegalArgumentException e) {
                LOG.warn("decommission: {} failed ({}); trying again in {}", progress.get().phase(), e.getMessage(),
                        JoinProcedure.RETRY_PAUSE);
                progress.updateAndGet(now -> now.failed(e.getMessage()));
            } catch (InterruptedException e) {
                return;
            }
            try {
                Thread.sleep(JoinProcedure.RETRY_PAUSE.toMillis());
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void steps(long epoch) throws IOException, InterruptedException {
        List<ClusterNode> others = topology.others();
        phase("waiting for every member to know epoch " + epoch);
        EpochWait.until(calls.calls(), others, epoch, this::stopped);
        phase("streaming");
        handOver();
        phase("draining");
        draining = true;
        Thread.sleep(drainDelay.toMillis());
        if (stopped()) {
            throw new InterruptedException("stopped");
        }
        awaitNoVote();
        ClusterMetadata after = JoinProcedure.await(calls.change(InternalProtocol.META_MEMBER_STATE_PATH, selfId + " left leaving"));
        known.offer(after);
        phase("left");
        LOG.info("decommission: this node left the cluster at epoch {}; {} records ({} bytes) handed over; stopping",
                after.epoch(), progress.get().records(), progress.get().bytes());
        onLeft.run();
    }

    /**
     * Waits until this node holds no vote in the metadata group. The leader moves it as soon as
     * this node is {@code leaving}; it cannot while a majority of the voters is down, which the
     * phase says.
     */
    private void awaitNoVote() throws InterruptedException {
        if (!votes.getAsBoolean()) {
            return;
        }
        phase("moving its vote: waiting for the metadata leader to give this node's vote to another member "
                + "(needs a majority of the metadata voters up)");
        while (votes.getAsBoolean()) {
            if (stopped()) {
                throw new InterruptedException("stopped");
            }
            Thread.sleep(RemoteRun.POLL.toMillis());
        }
        LOG.info("decommission: this node holds no vote in the metadata group any more");
    }

    /** One full cleanup run here that handed every record over; runs again until one does. */
    private void handOver() throws IOException, InterruptedException {
        while (true) {
            long after = cleanup.request();
            ScanEstimate estimate = new ScanEstimate();
            CleanupStatus status;
            do {
                if (stopped()) {
                    throw new InterruptedException("stopped");
                }
                Thread.sleep(RemoteRun.POLL.toMillis());
                status = cleanup.status();
                CleanupStatus seen = status;
                long secondsLeft = estimate.secondsLeft(wallMillis.getAsLong(), seen.scanned(), seen.toScan());
                progress.updateAndGet(now -> now.moved(seen.handedOff() + seen.dropped(),
                        seen.bytesHandedOff() + seen.bytesDropped(), seen.scanned(), seen.toScan(), secondsLeft));
            } while (status.running() || status.runsCompleted() <= after);
            if (status.error() == null && status.ownersFailed() == 0 && status.kept() == 0) {
                return;
            }
            String why = "the hand-over run fell short: " + status.toJson();
            LOG.warn("decommission: {}; running it again", why);
            progress.updateAndGet(now -> now.failed(why));
            Thread.sleep(JoinProcedure.RETRY_PAUSE.toMillis());
        }
    }

    private boolean stopped() {
        return closed || aborted;
    }

    /**
     * Rolls a decommission back ({@code ringkv abort}): the steps stop, the hand-over run stops
     * once the chunk it is sending has been taken, and the metadata makes this node {@code normal}
     * again; the records it handed over are extra copies where they went, which their holders
     * drop in the cleanup each starts on learning of it ({@code OwnershipCleanups}).
     *
     * @throws MembershipRefusedException when this node is not leaving (it left already, or never began)
     * @throws IOException                when no member of the metadata group took the step
     */
    public MembershipProgress abort() throws IOException, InterruptedException {
        Thread running;
        synchronized (lock) {
            aborted = true;
            running = thread;
        }
        if (running != null) {
            running.interrupt();
            running.join(JoinProcedure.RETRY_PAUSE.toMillis() * 10);
        }
        // Before the metadata says normal: once it does, the nodes that took copies start the
        // cleanups that drop them, and a copy still on its way then would land after them.
        if (!cleanup.stopRun(HAND_OVER_STOP_WAIT)) {
            LOG.warn("decommission abort: the hand-over did not stop within {}; copies it sends after this node is normal "
                    + "again stay on their holders until their next cleanup", HAND_OVER_STOP_WAIT);
        }
        ClusterMetadata now = JoinProcedure.await(calls.read());
        MemberState state = now.member(selfId).map(Member::state).orElse(MemberState.LEFT);
        if (state != MemberState.LEAVING) {
            throw new MembershipRefusedException("this node is " + state.label() + ", not leaving: there is no decommission "
                    + "to abort");
        }
        ClusterMetadata after = JoinProcedure.await(calls.change(InternalProtocol.META_MEMBER_STATE_PATH, selfId + " normal leaving"));
        known.offer(after);
        draining = false;
        synchronized (lock) {
            thread = null;
        }
        LOG.info("decommission aborted: this node is a normal member again at epoch {}", after.epoch());
        progress.updateAndGet(now2 -> now2.phase("aborted"));
        return progress.get();
    }

    /** Whether a decommission runs here now (begun, not left, not aborted). */
    public boolean running() {
        synchronized (lock) {
            return thread != null && thread.isAlive();
        }
    }

    private void phase(String phase) {
        LOG.info("decommission: {}", phase);
        progress.updateAndGet(now -> now.phase(phase));
    }

    @Override
    public void close() {
        synchronized (lock) {
            closed = true;
            if (thread != null) {
                thread.interrupt();
            }
        }
    }
}
