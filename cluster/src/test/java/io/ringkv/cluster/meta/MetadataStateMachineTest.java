package io.ringkv.cluster.meta;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.StateMachineLogEntryProto;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.SizeInBytes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The metadata state machine alone, fed log entries as Ratis would, with its snapshot storage on disk. */
class MetadataStateMachineTest {

    private static final Member A = new Member("na", "http://127.0.0.1:8080", MemberState.NORMAL, 0, null);
    private static final Member B = new Member("nb", "http://127.0.0.1:8081", MemberState.NORMAL, 1, null);
    private static final Member C = new Member("nc", "http://127.0.0.1:8082", MemberState.NORMAL, 2, null);

    /** Just enough of a server for the state machine's name: its id. */
    private static final org.apache.ratis.server.RaftServer SERVER = (org.apache.ratis.server.RaftServer)
            java.lang.reflect.Proxy.newProxyInstance(MetadataStateMachineTest.class.getClassLoader(),
                    new Class<?>[] {org.apache.ratis.server.RaftServer.class},
                    (proxy, method, args) -> switch (method.getName()) {
                        case "getId" -> org.apache.ratis.protocol.RaftPeerId.valueOf("na");
                        case "toString" -> "test server na";
                        default -> throw new UnsupportedOperationException(method.getName());
                    });

    @TempDir
    Path dir;

    private RaftStorage storage;
    private long index;

    @AfterEach
    void closeStorage() throws IOException {
        if (storage != null) {
            storage.close();
        }
    }

    @Test
    void appliesCommandsRaisingTheEpochAndRefusesWhatDoesNotApply() throws Exception {
        MetadataStateMachine machine = started();
        assertThat(machine.metadata(), equalTo(ClusterMetadata.EMPTY));

        MetadataCodec.Outcome init = apply(machine, new MetadataCommand.Initialize(List.of(C, A, B), 3));
        assertThat(init, equalTo(new MetadataCodec.Outcome(true, 1, null)));
        assertThat(machine.metadata().members(), equalTo(List.of(A, B, C)));
        assertThat(machine.metadata().replicationFactor(), is(3));

        assertThat(apply(machine, new MetadataCommand.SetReplicationFactor(2)).epoch(), is(2L));
        MetadataCodec.Outcome tooMany = apply(machine, new MetadataCommand.SetReplicationFactor(4));
        assertThat(tooMany.applied(), is(false));
        assertThat(tooMany.reason(), containsString("between 1 and the number of members (3)"));
        assertThat(apply(machine, new MetadataCommand.SetMemberState("nb", MemberState.LEAVING)).epoch(), is(3L));
        assertThat(machine.metadata().member("nb").orElseThrow().state(), is(MemberState.LEAVING));

        MetadataCodec.Outcome busy = apply(machine, new MetadataCommand.SetReplicationFactor(1));
        assertThat(busy.applied(), is(false));
        assertThat(busy.reason(), containsString("change is in progress"));
        MetadataCodec.Outcome again = apply(machine, new MetadataCommand.Initialize(List.of(A), 1));
        assertThat(again.applied(), is(false));
        assertThat(machine.metadata().epoch(), is(3L));
        assertThat(machine.getLastAppliedTermIndex().getIndex(), is(index));
    }

    @Test
    void aSnapshotRestoresTheMetadataInANewStateMachine() throws Exception {
        MetadataStateMachine machine = started();
        apply(machine, new MetadataCommand.Initialize(List.of(A, B, C), 3));
        apply(machine, new MetadataCommand.SetReplicationFactor(2));
        long snapshotIndex = machine.takeSnapshot();
        assertThat(snapshotIndex, is(index));
        ClusterMetadata before = machine.metadata();

        MetadataStateMachine restarted = new MetadataStateMachine(() -> { });
        restarted.initialize(SERVER, MetadataGroup.GROUP_ID, storage);
        assertThat(restarted.metadata(), equalTo(before));
        assertThat(restarted.getLastAppliedTermIndex().getIndex(), is(snapshotIndex));
    }

    @Test
    void aDamagedSnapshotIsRefusedNotReadAsEmpty() throws Exception {
        MetadataStateMachine machine = started();
        apply(machine, new MetadataCommand.Initialize(List.of(A, B, C), 3));
        machine.takeSnapshot();
        Path file = snapshotFile();
        byte[] bytes = Files.readAllBytes(file);
        bytes[bytes.length - 6] ^= 0x40; // inside the payload: only the checksum can tell
        Files.write(file, bytes);
        org.apache.ratis.io.MD5Hash md5 = org.apache.ratis.util.MD5FileUtil.computeMd5ForFile(file.toFile());
        org.apache.ratis.util.MD5FileUtil.saveMD5File(file.toFile(), md5); // Ratis's own MD5 agrees: ours must catch it

        MetadataStateMachine restarted = new MetadataStateMachine(() -> { });
        IOException refused = assertThrows(IOException.class, () -> restarted.initialize(SERVER, MetadataGroup.GROUP_ID, storage));
        assertThat(refused.getMessage(), containsString("checksum mismatch"));
    }

    @Test
    void aCorruptEntryStopsApplyingForGoodAndIsNeverSkipped() throws Exception {
        MetadataStateMachine machine = started();
        apply(machine, new MetadataCommand.Initialize(List.of(A, B, C), 3));
        byte[] damaged = MetadataCodec.encode(new MetadataCommand.SetReplicationFactor(2));
        damaged = java.util.Arrays.copyOf(damaged, damaged.length - 1);
        byte[] cut = damaged;

        IllegalStateException stopped = assertThrows(IllegalStateException.class, () -> machine.applyTransaction(entry(cut)));
        assertThat(stopped.getMessage(), containsString("is corrupt"));
        assertThat(machine.failure(), containsString("stopped applying the metadata log at epoch 1"));

        // A good entry after it is not applied either: skipping the bad one would fork this replica.
        byte[] good = MetadataCodec.encode(new MetadataCommand.SetReplicationFactor(2));
        assertThrows(IllegalStateException.class, () -> machine.applyTransaction(entry(good)));
        assertThat(machine.metadata().epoch(), is(1L));
        assertThat(machine.metadata().replicationFactor(), is(3));
    }

    @Test
    void aMalformedCommandNeverReachesTheLog() throws Exception {
        MetadataStateMachine machine = started();
        org.apache.ratis.protocol.RaftClientRequest request = org.apache.ratis.protocol.RaftClientRequest.newBuilder()
                .setClientId(org.apache.ratis.protocol.ClientId.randomId())
                .setServerId(org.apache.ratis.protocol.RaftPeerId.valueOf("na"))
                .setGroupId(MetadataGroup.GROUP_ID).setCallId(1)
                .setMessage(org.apache.ratis.protocol.Message.valueOf(ByteString.copyFrom(new byte[] {1, 99})))
                .setType(org.apache.ratis.protocol.RaftClientRequest.writeRequestType()).build();
        CorruptMetadataException refused = assertThrows(CorruptMetadataException.class, () -> machine.startTransaction(request));
        assertThat(refused.getMessage(), containsString("unknown command kind 99"));
        assertThat(machine.failure(), nullValue());
    }

    /**
     * A node's replication factor follows the metadata it applies: the configured value until the
     * group is initialised, then the group's, and a later change as soon as its entry is applied.
     */
    @Test
    void aNodesReplicationFactorFollowsEachAppliedEntry() throws Exception {
        io.ringkv.cluster.ReplicationFactor rf = new io.ringkv.cluster.ReplicationFactor(3, 3);
        MetadataStateMachine machine = started(rf::follow);
        assertThat(rf.current(), is(3));
        assertThat(rf.fromMetadata(), is(false));
        apply(machine, new MetadataCommand.Initialize(List.of(A, B, C), 2));
        assertThat(rf.current(), is(2));
        assertThat(rf.fromMetadata(), is(true));
        apply(machine, new MetadataCommand.SetReplicationFactor(1));
        assertThat(rf.current(), is(1));
        apply(machine, new MetadataCommand.SetReplicationFactor(4)); // refused: above the members
        assertThat(rf.current(), is(1));
    }

    private MetadataStateMachine started() throws IOException {
        return started(applied -> { });
    }

    private MetadataStateMachine started(java.util.function.Consumer<ClusterMetadata> applied) throws IOException {
        storage = RaftStorage.newBuilder().setDirectory(dir.toFile()).setOption(RaftStorage.StartupOption.RECOVER)
                .setStorageFreeSpaceMin(SizeInBytes.valueOf(0)).build();
        storage.initialize();
        MetadataStateMachine machine = new MetadataStateMachine(() -> { }, applied);
        machine.initialize(SERVER, MetadataGroup.GROUP_ID, storage);
        return machine;
    }

    private MetadataCodec.Outcome apply(MetadataStateMachine machine, MetadataCommand command) throws Exception {
        org.apache.ratis.protocol.Message reply = machine.applyTransaction(entry(MetadataCodec.encode(command))).get();
        return MetadataCodec.decodeOutcome(reply.getContent().toByteArray());
    }

    private TransactionContext entry(byte[] data) {
        index++;
        LogEntryProto entry = LogEntryProto.newBuilder().setTerm(1).setIndex(index)
                .setStateMachineLogEntry(StateMachineLogEntryProto.newBuilder().setLogData(ByteString.copyFrom(data)))
                .build();
        return TransactionContext.newBuilder().setStateMachine(new MetadataStateMachine(() -> { })).setLogEntry(entry).build();
    }

    private Path snapshotFile() throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(path -> path.getFileName().toString().startsWith("snapshot.")
                    && !path.getFileName().toString().endsWith(".md5")).findFirst().orElseThrow();
        }
    }
}
