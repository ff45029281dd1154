package io.ringkv.cluster.meta;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.apache.ratis.io.MD5Hash;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.RaftConfigurationProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.MD5FileUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Ratis state machine of the cluster metadata: applies {@link MetadataCommand}s from the log to
 * a {@link ClusterMetadata}, answers reads of it, and keeps snapshots of it in the group's state
 * machine directory ({@link MetadataSnapshotFile}).
 *
 * <p>Commands are checked twice: their form when a client submits one ({@link #startTransaction}),
 * so malformed bytes never enter the log, and again when applied. An entry that does not decode at
 * apply time (a damaged disk, a bug) stops this replica's applying for good: {@link #applyTransaction}
 * throws, which Ratis treats as fatal for the division, and every later call throws too. Skipping it
 * would let this replica's metadata differ from the others' at the same epoch.
 *
 * <p>Threading: Ratis applies entries one at a time on its state machine updater thread and takes
 * snapshots on the same thread; reads ({@link #metadata}, {@link #query}) come from any thread and
 * see the last applied value (a volatile, immutable {@link ClusterMetadata}).
 */
public final class MetadataStateMachine extends BaseStateMachine {

    private static final Logger LOG = LoggerFactory.getLogger(MetadataStateMachine.class);
    /** The one query there is: the whole metadata. */
    static final byte QUERY_METADATA = 1;

    private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
    private final Runnable onLeaderReady;
    private final Consumer<ClusterMetadata> onApplied;
    private final Runnable onConfigurationChanged;
    private volatile ClusterMetadata metadata = ClusterMetadata.EMPTY;
    private volatile String failure;

    /** @param onLeaderReady run (on a Ratis thread; must not block) when this replica becomes a ready leader */
    public MetadataStateMachine(Runnable onLeaderReady) {
        this(onLeaderReady, applied -> { });
    }

    /**
     * @param onApplied told of the metadata after every entry this replica applies and after a
     *                  snapshot is loaded (on the applier thread; must not block)
     */
    public MetadataStateMachine(Runnable onLeaderReady, Consumer<ClusterMetadata> onApplied) {
        this(onLeaderReady, onApplied, () -> { });
    }

    /**
     * @param onConfigurationChanged run when this replica applies a change of the group's
     *                               configuration (on the applier thread; must not block)
     */
    public MetadataStateMachine(Runnable onLeaderReady, Consumer<ClusterMetadata> onApplied, Runnable onConfigurationChanged) {
        this.onLeaderReady = onLeaderReady;
        this.onApplied = onApplied;
        this.onConfigurationChanged = onConfigurationChanged;
    }

    /** The metadata as of the last entry this replica applied. */
    public ClusterMetadata metadata() {
        return metadata;
    }

    /** Why this replica stopped applying the log, or null while it applies. */
    public String failure() {
        return failure;
    }

    @Override
    public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage) throws IOException {
        super.initialize(server, groupId, raftStorage);
        storage.init(raftStorage);
        load(storage.loadLatestSnapshot());
    }

    @Override
    public void reinitialize() throws IOException {
        load(storage.loadLatestSnapshot());
    }

    @Override
    public SimpleStateMachineStorage getStateMachineStorage() {
        return storage;
    }

    /** Refuses a command whose bytes do not decode before it reaches the log; the client is told why. */
    @Override
    public TransactionContext startTransaction(RaftClientRequest request) throws IOException {
        MetadataCodec.decodeCommand(request.getMessage().getContent().toByteArray());
        return super.startTransaction(request);
    }

    @Override
    public CompletableFuture<Message> applyTransaction(TransactionContext transaction) {
        LogEntryProto entry = transaction.getLogEntry();
        TermIndex position = TermIndex.valueOf(entry);
        if (failure != null) {
            throw new IllegalStateException("the metadata state machine stopped at an earlier entry: " + failure);
        }
        MetadataCommand command;
        try {
            command = MetadataCodec.decodeCommand(entry.getStateMachineLogEntry().getLogData().toByteArray());
        } catch (CorruptMetadataException e) {
            failure = "log entry " + position + " is corrupt (" + e.getMessage() + "); this node stopped applying the "
                    + "metadata log at epoch " + metadata.epoch();
            LOG.error("{}: the metadata of this node stays as it is until the entry is repaired", failure);
            throw new IllegalStateException(failure, e);
        }
        ClusterMetadata current = metadata;
        MetadataCodec.Outcome outcome;
        try {
            ClusterMetadata next = current.apply(command);
            metadata = next;
            outcome = new MetadataCodec.Outcome(true, next.epoch(), null);
            LOG.info("cluster metadata epoch {}: {}", next.epoch(), command);
            onApplied.accept(next);
        } catch (MetadataRefusedException refused) {
            outcome = new MetadataCodec.Outcome(false, current.epoch(), refused.getMessage());
        }
        updateLastAppliedTermIndex(position);
        return CompletableFuture.completedFuture(Message.valueOf(ByteString.copyFrom(MetadataCodec.encode(outcome))));
    }

    @Override
    public CompletableFuture<Message> query(Message request) {
        ByteString content = request.getContent();
        if (content.size() != 1 || content.byteAt(0) != QUERY_METADATA) {
            return CompletableFuture.failedFuture(new CorruptMetadataException("unknown metadata query of "
                    + content.size() + " bytes"));
        }
        return CompletableFuture.completedFuture(Message.valueOf(ByteString.copyFrom(MetadataCodec.encode(metadata))));
    }

    @Override
    public long takeSnapshot() throws IOException {
        TermIndex applied = getLastAppliedTermIndex();
        if (applied == null || applied.getIndex() < 0) {
            return -1;
        }
        Path file = storage.getSnapshotFile(applied.getTerm(), applied.getIndex()).toPath();
        MetadataSnapshotFile.write(file, metadata);
        MD5Hash md5 = MD5FileUtil.computeAndSaveMd5ForFile(file.toFile());
        storage.updateLatestSnapshot(new SingleFileSnapshotInfo(new FileInfo(file, md5), applied));
        return applied.getIndex();
    }

    @Override
    public void notifyLeaderReady() {
        onLeaderReady.run();
    }

    @Override
    public void notifyConfigurationChanged(long term, long index, RaftConfigurationProto configuration) {
        onConfigurationChanged.run();
    }

    private void load(SingleFileSnapshotInfo snapshot) throws IOException {
        if (snapshot == null) {
            return;
        }
        Path file = snapshot.getFile().getPath();
        if (!Files.exists(file)) {
            throw new CorruptMetadataException("the latest metadata snapshot " + file + " is missing");
        }
        if (snapshot.getFile().getFileDigest() != null) {
            MD5FileUtil.verifySavedMD5(file.toFile(), snapshot.getFile().getFileDigest());
        }
        metadata = MetadataSnapshotFile.read(file);
        setLastAppliedTermIndex(snapshot.getTermIndex());
        onApplied.accept(metadata);
    }
}
