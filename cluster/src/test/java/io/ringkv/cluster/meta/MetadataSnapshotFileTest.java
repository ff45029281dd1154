package io.ringkv.cluster.meta;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The snapshot file wraps the codec's metadata, so it reads the snapshots of both format versions. */
class MetadataSnapshotFileTest {

    @TempDir
    Path dir;

    @Test
    void metadataWithJoinersAndLeftMembersComesBack() throws Exception {
        ClusterMetadata metadata = new ClusterMetadata(12, 2, List.of(
                new Member("na", "http://a:1", MemberState.NORMAL, 0, null),
                new Member("nb", "http://b:1", MemberState.LEFT, 1, null),
                new Member("nc", "http://c:1", MemberState.JOINING, 1, "na")));
        Path file = dir.resolve("snapshot");
        MetadataSnapshotFile.write(file, metadata);
        assertThat(MetadataSnapshotFile.read(file), equalTo(metadata));
    }

    @Test
    void aSnapshotWrittenByAVersion1NodeStillReads() throws Exception {
        byte[] payload = MetadataCodecTest.v1(out -> {
            out.writeLong(6);
            out.writeInt(1);
            out.writeShort(2);
            MetadataCodecTest.v1Member(out, "na", "http://b:1", MemberState.NORMAL);
            MetadataCodecTest.v1Member(out, "nb", "http://a:1", MemberState.NORMAL);
        });
        CRC32C crc = new CRC32C();
        crc.update(payload);
        ByteBuffer file = ByteBuffer.allocate(4 + 1 + 4 + payload.length + 4);
        file.put(new byte[] {'R', 'K', 'V', 'M'}).put((byte) 1).putInt(payload.length).put(payload).putInt((int) crc.getValue());
        Path path = dir.resolve("snapshot");
        Files.write(path, file.array());
        assertThat(MetadataSnapshotFile.read(path), equalTo(new ClusterMetadata(6, 1, List.of(
                new Member("na", "http://b:1", MemberState.NORMAL, 1, null),
                new Member("nb", "http://a:1", MemberState.NORMAL, 0, null)))));
    }
}
