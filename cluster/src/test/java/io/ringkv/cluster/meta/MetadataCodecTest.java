package io.ringkv.cluster.meta;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class MetadataCodecTest {

    private static final Member A = new Member("na", "http://127.0.0.1:8080", MemberState.NORMAL);
    private static final Member B = new Member("nb", "https://db-2.example:8443", MemberState.JOINING);

    @Test
    void everyCommandAndTheMetadataComeBackAsTheyWent() throws Exception {
        for (MetadataCommand command : List.of(new MetadataCommand.Initialize(List.of(A, B), 2),
                new MetadataCommand.AddMember(B), new MetadataCommand.SetMemberState("nb", MemberState.LEFT),
                new MetadataCommand.SetReplicationFactor(3))) {
            assertThat(MetadataCodec.decodeCommand(MetadataCodec.encode(command)), equalTo(command));
        }
        ClusterMetadata metadata = new ClusterMetadata(7, 2, List.of(B, A));
        assertThat(MetadataCodec.decodeMetadata(MetadataCodec.encode(metadata)), equalTo(metadata));
    }

    @Test
    void everyTruncationAndEveryExtraByteIsRefused() {
        byte[] whole = MetadataCodec.encode(new MetadataCommand.Initialize(List.of(A, B), 2));
        for (int length = 0; length < whole.length; length++) {
            byte[] cut = Arrays.copyOf(whole, length);
            assertThrows(CorruptMetadataException.class, () -> MetadataCodec.decodeCommand(cut), "cut to " + length);
        }
        byte[] longer = Arrays.copyOf(whole, whole.length + 1);
        CorruptMetadataException extra = assertThrows(CorruptMetadataException.class, () -> MetadataCodec.decodeCommand(longer));
        assertThat(extra.getMessage(), containsString("1 bytes after the end"));
    }

    @Test
    void anotherVersionAnUnknownStateAndBadTextAreRefused() {
        byte[] command = MetadataCodec.encode(new MetadataCommand.SetMemberState("nb", MemberState.NORMAL));
        byte[] version = command.clone();
        version[0] = 2;
        assertThat(assertThrows(CorruptMetadataException.class, () -> MetadataCodec.decodeCommand(version)).getMessage(),
                containsString("format version 2"));
        byte[] state = command.clone();
        state[state.length - 1] = 9;
        assertThat(assertThrows(CorruptMetadataException.class, () -> MetadataCodec.decodeCommand(state)).getMessage(),
                containsString("unknown member state code 9"));
        byte[] text = command.clone();
        text[4] = (byte) 0xff; // inside the id "nb": not UTF-8
        assertThat(assertThrows(CorruptMetadataException.class, () -> MetadataCodec.decodeCommand(text)).getMessage(),
                containsString("not UTF-8"));
    }
}
