package io.ringkv.cluster.member;

import io.ringkv.cluster.ClusterNode;
import io.ringkv.cluster.ClusterNodes;
import io.ringkv.cluster.InternalProtocol;
import io.ringkv.cluster.KnownMetadata;
import io.ringkv.cluster.meta.ClusterMetadata;
import io.ringkv.cluster.meta.Member;
import io.ringkv.cluster.meta.MemberState;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The steps of this node's join, after the metadata names it {@code joining} (the join request
 * itself is {@link JoinRequest}'s, before the node serves). Each step can be run again: a node
 * killed at any point and started again with {@code --join} goes through them from the top.
 * <ol>
 *   <li><b>Every owner knows the epoch that names this node.</b> From then on each coordinator
 *       sends this node the writes of the keys it will own (it is their pending replica), so what
 *       the next step copies cannot miss a write made after it.
 *   <li><b>Streaming.</b> Each owner runs a cleanup under that view ({@link RemoteRun}): it sends
 *       this node every record it holds of a key this node will own, at the owner's hand-over
 *       pace ({@code --stream-rate}). A majority of each key's owners are its sources
 *       ({@code Cleanup.rule}): the first sends every record, the others only those of the digest
 *       buckets where they differ from it, so the newest acknowledged version reaches this node
 *       even where the first source missed a write. A run that could not hand every record over
 *       is run again.
 *   <li><b>Normal.</b> This node asks the metadata to make it {@code normal}: from that epoch on it
 *       owns its keys and answers reads. Each former owner, as it applies that epoch, runs the
 *       cleanup that drops the keys it no longer owns once every new owner holds them
 *       ({@code OwnershipCleanups}); nothing here waits for them or asks for them, so a node killed
 *       after this step leaves no cleanup undone.
 * </ol>
 *
 * <p>Threading: runs on its own thread ({@code ringkv-join}), blocking it; {@link #progress} from
 * any thread.
 */
public final class JoinProcedure implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(JoinProcedure.class);
    /** The pause before a failed step is tried again. */
    static final Duration RETRY_PAUSE = Duration.ofSeconds(1);

    private final MembershipCalls calls;
    private final ClusterNodes topology;
    private final KnownMetadata known;
    private final String selfId;
    private final LongSupplier wallMillis;
    private final AtomicReference<MembershipProgress> progress = new AtomicReference<>(MembershipProgress.NONE);
    private final Thread thread;
    private volatile boolean closed;
    /** Set by {@link #abort}: the steps stop where they are. */
    private volatile boolean aborted;

    public JoinProcedure(MembershipCalls calls, ClusterNodes topology, KnownMetadata known, LongSupplier wallMillis) {
        this.calls = calls;
        this.topology = topology;
        this.known = known;
        this.selfId = Member.idOf(topology.self());
        this.wallMillis = wallMillis;
        this.thread = new Thread(this::runLogged, "ringkv-join");
        this.thread.setDaemon(true);
    }

    /** Starts the steps on their thread. */
    public JoinProcedure start() {
        progress.set(MembershipProgress.started("join", "starting", known.epoch(), wallMillis.getAsLong()));
        thread.start();
        return this;
    }

    public MembershipProgress progress() {
        return progress.get();
    }

    /** Waits until the steps have stopped: the join done or aborted, or the procedure closed. */
    public void awaitOver() throws InterruptedException {
        thread.join();
    }

    /** Whether the join is over: this node is a normal member. */
    public boolean done() {
        return progress.get().phase().equals("done");
    }

    private void runLogged() {
        while (!closed && !aborted) {
            try {
                if (step()) {
                    return;
                }
            } catch (IOException | MembershipRefusedException | IllegalArgumentException e) {
                LOG.warn("join: {} failed ({}); trying again in {}", progress.get().phase(), e.getMessage(), RETRY_PAUSE);
                progress.updateAndGet(now -> now.failed(e.getMessage()));
            } catch (InterruptedException e) {
                return;
            }
            try {
                Thread.sleep(RETRY_PAUSE.toMillis());
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** One pass of the steps; @return true when the join is over (done or aborted) */
    private boolean step() throws IOException, InterruptedException {
        ClusterMetadata metadata = await(calls.read());
        known.offer(metadata);
        Member self = metadata.member(selfId).orElse(null);
        if (self == null || self.state() == MemberState.LEFT) {
            progress.updateAndGet(now -> now.phase("aborted").failed("the metadata at epoch " + metadata.epoch()
                    + " no longer lists this node as joining (the join was aborted); stop it, clear its data directory "
                    + "and join again"));
            LOG.error("join: this node is no longer a member (epoch {}); it takes no keys", metadata.epoch());
            return true;
        }
        // Leaving: the node joined, and was started again in the middle of its decommission, which takes it from here.
        if (self.state() == MemberState.NORMAL || self.state() == MemberState.LEAVING) {
            progress.updateAndGet(now -> now.phase("done"));
            return true;
        }
        if (self.state() != MemberState.JOINING) {
            throw new IOException("this node is " + self.state().label() + ", not joining");
        }
        // A replacement does not wait for, nor stream from, the dead member it replaces.
        String replaced = self.replacing() == null ? null
                : metadata.member(self.replacing()).map(Member::url).map(url -> ClusterNode.parse(url).id()).orElse(null);
        List<ClusterNode> owners = topology.view().owners().stream()
                .filter(node -> !topology.isSelf(node) && !node.id().equals(replaced)).toList();
        phase("waiting for every owner to know epoch " + metadata.epoch());
        EpochWait.until(calls.calls(), owners, metadata.epoch(), () -> closed || aborted);
        phase("streaming");
        stream(owners);
        if (aborted) {
            throw new InterruptedException("aborted");
        }
        phase("becoming normal");
        ClusterMetadata after = await(calls.change(InternalProtocol.META_MEMBER_STATE_PATH, selfId + " normal joining"));
        known.offer(after);
        LOG.info("join: this node is a normal member at epoch {}; {} records ({} bytes) streamed to it", after.epoch(),
                progress.get().records(), progress.get().bytes());
        phase("done");
        return true;
    }

    /** Runs every owner's hand-over until each ran once in full; a run that fell short runs again. */
    private void stream(List<ClusterNode> owners) throws IOException, InterruptedException {
        List<RemoteRun> runs = new ArrayList<>();
        for (ClusterNode owner : owners) {
            RemoteRun run = new RemoteRun(calls.calls(), owner);
            run.start();
            runs.add(run);
        }
        List<RemoteRun> pending = new ArrayList<>(runs);
        ScanEstimate estimate = new ScanEstimate();
        while (!pending.isEmpty()) {
            if (closed || aborted) {
                throw new InterruptedException("stopped");
            }
            Thread.sleep(RemoteRun.POLL.toMillis());
            for (RemoteRun run : List.copyOf(pending)) {
                // One owner's status read or restart that fails (it sheds load, a call times out) is
                // tried again at the next poll; the other owners' runs go on meanwhile.
                try {
                    if (run.finished()) {
                        String shortfall = run.shortfall();
                        if (shortfall == null) {
                            pending.remove(run);
                        } else {
                            LOG.warn("join: {}; running it again", shortfall);
                            progress.updateAndGet(now -> now.failed(shortfall));
                            run.start();
                        }
                    }
                } catch (IOException e) {
                    LOG.debug("join: reading {}'s hand-over failed ({}); asking again", run.member().id(), e.getMessage());
                    progress.updateAndGet(now -> now.failed(e.getMessage()));
                }
            }
            long records = runs.stream().mapToLong(RemoteRun::handedOff).sum();
            long bytes = runs.stream().mapToLong(RemoteRun::bytesHandedOff).sum();
            long scanned = runs.stream().mapToLong(RemoteRun::scanned).sum();
            long toScan = runs.stream().mapToLong(RemoteRun::toScan).sum();
            long secondsLeft = estimate.secondsLeft(wallMillis.getAsLong(), scanned, toScan);
            progress.updateAndGet(now -> now.moved(records, bytes, scanned, toScan, secondsLeft));
        }
    }

    /**
     * Rolls the join back ({@code ringkv abort}): the steps stop, and the metadata makes this node
     * {@code left}; the owners keep every key, and the records they sent here stay here unused.
     * Stop this node and clear its data directory before it joins again.
     *
     * @throws MembershipRefusedException when this node is not joining (the join is done)
     * @throws IOException                when no member of the metadata group took the step
     */
    public MembershipProgress abort() throws IOException, InterruptedException {
        aborted = true;
        thread.interrupt();
        thread.join(RETRY_PAUSE.toMillis() * 10);
        ClusterMetadata now = await(calls.read());
        MemberState state = now.member(selfId).map(Member::state).orElse(MemberState.LEFT);
        if (state != MemberState.JOINING) {
            throw new MembershipRefusedException("this node is " + state.label() + ", not joining: there is no join to abort");
        }
        ClusterMetadata after = await(calls.change(InternalProtocol.META_MEMBER_STATE_PATH, selfId + " left joining"));
        known.offer(after);
        LOG.warn("join aborted at epoch {}: this node owns nothing; stop it and clear its data directory before it joins "
                + "again", after.epoch());
        progress.updateAndGet(now2 -> now2.phase("aborted"));
        return progress.get();
    }

    private void phase(String phase) {
        LOG.info("join: {}", phase);
        progress.updateAndGet(now -> now.phase(phase));
    }

    static <T> T await(java.util.concurrent.CompletableFuture<T> future) throws IOException, InterruptedException {
        try {
            return future.get(MembershipCalls.CALL_TIMEOUT.toMillis() * 4, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof MembershipRefusedException refused) {
                throw refused;
            }
            if (cause instanceof IllegalArgumentException bad) {
                throw bad;
            }
            throw cause instanceof IOException io ? io : new IOException(cause.getMessage(), cause);
        } catch (TimeoutException e) {
            future.cancel(true);
            throw new IOException("no answer from the metadata group in time", e);
        }
    }

    @Override
    public void close() {
        closed = true;
        thread.interrupt();
    }
}
