package io.ringkv.cluster.meta;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class MetadataCodecTest {

    private static final Member A = new Member("na", "http://127.0.0.1:8080", MemberState.NORMAL, 0, null);
    private static final Member B = new Member("nb", "https://db-2.example:8443", MemberState.JOINING, 15, null);
    private static final Member C = new Member("nc", "http://127.0.0.1:8082", MemberState.JOINING, 3, "na");
    private static final Member GONE = new Member("nd", "http://127.0.0.1:8083", MemberState.LEFT, 0, null);

    @Test
    void everyCommandAndTheMetadataComeBackAsTheyWent() throws Exception {
        for (MetadataCommand command : List.of(new MetadataCommand.Initialize(List.of(A, B), 2),
                new MetadataCommand.AddMember(B), new MetadataCommand.SetMemberState("nb", MemberState.LEFT),
                new MetadataCommand.SetMemberState("nb", MemberState.LEFT, MemberState.JOINING),
                new MetadataCommand.SetReplicationFactor(3), new MetadataCommand.Replace("na", C))) {
            assertThat(MetadataCodec.decodeCommand(MetadataCodec.encode(command)), equalTo(command));
        }
        // GONE shares index 0 with A: a LEFT member's index is free.
        ClusterMetadata metadata = new ClusterMetadata(7, 2, List.of(B, A, C, GONE));
        assertThat(MetadataCodec.decodeMetadata(MetadataCodec.encode(metadata)), equalTo(metadata));
        assertThat(MetadataCodec.decodeMetadata(MetadataCodec.encode(metadata)).member("nc").orElseThrow().replacing(), is("na"));
        assertThat(MetadataCodec.encode(metadata)[0], is((byte) 2));
    }

    @Test
    void aReplaceTakesItsDeadIdIntoTheMemberAndRefusesAnother() {
        Member plain = new Member("nc", "http://127.0.0.1:8082", MemberState.JOINING, 0, null);
        assertThat(new MetadataCommand.Replace("na", plain).member().replacing(), is("na"));
        assertThrows(IllegalArgumentException.class, () -> new MetadataCommand.Replace("nb", C));
    }

    @Test
    void everyTruncationAndEveryExtraByteIsRefused() {
        for (MetadataCommand command : List.of(new MetadataCommand.Initialize(List.of(A, B), 2),
                new MetadataCommand.Replace("na", C), new MetadataCommand.SetMemberState("nb", MemberState.NORMAL, MemberState.JOINING))) {
            byte[] whole = MetadataCodec.encode(command);
            for (int length = 0; length < whole.length; length++) {
                byte[] cut = Arrays.copyOf(whole, length);
                assertThrows(CorruptMetadataException.class, () -> MetadataCodec.decodeCommand(cut), "cut to " + length);
            }
            byte[] longer = Arrays.copyOf(whole, whole.length + 1);
            CorruptMetadataException extra = assertThrows(CorruptMetadataException.class, () -> MetadataCodec.decodeCommand(longer));
            assertThat(extra.getMessage(), containsString("1 bytes after the end"));
        }
    }

    @Test
    void anotherVersionAnUnknownStateAndBadTextAreRefused() {
        byte[] command = MetadataCodec.encode(new MetadataCommand.SetMemberState("nb", MemberState.NORMAL));
        byte[] version = command.clone();
        version[0] = 3;
        assertThat(assertThrows(CorruptMetadataException.class, () -> MetadataCodec.decodeCommand(version)).getMessage(),
                containsString("format version 3"));
        byte[] state = command.clone();
        state[state.length - 1] = 9;
        assertThat(assertThrows(CorruptMetadataException.class, () -> MetadataCodec.decodeCommand(state)).getMessage(),
                containsString("unknown member state code 9"));
        byte[] text = command.clone();
        text[4] = (byte) 0xff; // inside the id "nb": not UTF-8
        assertThat(assertThrows(CorruptMetadataException.class, () -> MetadataCodec.decodeCommand(text)).getMessage(),
                containsString("not UTF-8"));
    }

    @Test
    void anIndexAbove15IsRefusedInBytesAndInAMember() {
        byte[] add = MetadataCodec.encode(new MetadataCommand.AddMember(B));
        assertThat(add[add.length - 3], is((byte) 15)); // index, then replacing: length 0
        add[add.length - 3] = 16;
        assertThat(assertThrows(CorruptMetadataException.class, () -> MetadataCodec.decodeCommand(add)).getMessage(),
                containsString("index 16"));
        add[add.length - 3] = (byte) 0xff;
        assertThat(assertThrows(CorruptMetadataException.class, () -> MetadataCodec.decodeCommand(add)).getMessage(),
                containsString("index 255"));
        assertThrows(IllegalArgumentException.class, () -> new Member("na", "http://a:1", MemberState.NORMAL, 16, null));
        assertThrows(IllegalArgumentException.class, () -> new Member("na", "http://a:1", MemberState.NORMAL, -1, null));
    }

    @Test
    void replacingIsNoneOrAnIdNeverEmptyNorItself() throws Exception {
        assertThrows(IllegalArgumentException.class, () -> new Member("nc", "http://c:1", MemberState.JOINING, 0, ""));
        assertThrows(IllegalArgumentException.class, () -> new Member("nc", "http://c:1", MemberState.JOINING, 0, "nc"));
        // Length 0 reads as none; a replacing field cut off is refused, not read as none.
        byte[] none = MetadataCodec.encode(new MetadataCommand.AddMember(B));
        assertThat(((MetadataCommand.AddMember) MetadataCodec.decodeCommand(none)).member().replacing(), nullValue());
        byte[] missing = Arrays.copyOf(none, none.length - 2);
        assertThat(assertThrows(CorruptMetadataException.class, () -> MetadataCodec.decodeCommand(missing)).getMessage(),
                containsString("cut short"));
        // The bytes of a member replacing itself, or a Replace whose member replaces another, are corrupt.
        byte[] self = v2AddMember("nc", "http://c:1", 0, "nc");
        assertThat(assertThrows(CorruptMetadataException.class, () -> MetadataCodec.decodeCommand(self)).getMessage(),
                containsString("cannot replace itself"));
        byte[] replace = MetadataCodec.encode(new MetadataCommand.Replace("na", C));
        replace[5] = 'x'; // the dead id "na" (bytes 4, 5) becomes "nx"; the member still replaces "na"
        assertThat(assertThrows(CorruptMetadataException.class, () -> MetadataCodec.decodeCommand(replace)).getMessage(),
                containsString("replaces na, not nx"));
    }

    @Test
    void twoActiveMembersWithOneIndexAreCorrupt() {
        byte[] bytes = MetadataCodec.encode(new ClusterMetadata(3, 1, List.of(A, GONE))); // both index 0; GONE last
        assertThat(bytes[bytes.length - 4], is((byte) MemberState.LEFT.ordinal())); // state, index, replacing (2 bytes)
        bytes[bytes.length - 4] = (byte) MemberState.NORMAL.ordinal();
        assertThat(assertThrows(CorruptMetadataException.class, () -> MetadataCodec.decodeMetadata(bytes)).getMessage(),
                containsString("index 0 is held by two members"));
    }

    @Test
    void version1BytesStillDecodeWithIndexesByUrlOrder() throws Exception {
        // Ids in one order, URLs in another: the index follows the URL.
        byte[] metadata = v1(out -> {
            out.writeLong(4);
            out.writeInt(2);
            out.writeShort(3);
            v1Member(out, "na", "http://z:1", MemberState.NORMAL);
            v1Member(out, "nb", "http://a:1", MemberState.NORMAL);
            v1Member(out, "nc", "http://m:1", MemberState.NORMAL);
        });
        ClusterMetadata read = MetadataCodec.decodeMetadata(metadata);
        assertThat(read.epoch(), is(4L));
        assertThat(read.replicationFactor(), is(2));
        assertThat(read.members(), equalTo(List.of(new Member("na", "http://z:1", MemberState.NORMAL, 2, null),
                new Member("nb", "http://a:1", MemberState.NORMAL, 0, null),
                new Member("nc", "http://m:1", MemberState.NORMAL, 1, null))));

        byte[] initialize = v1(out -> {
            out.writeByte(1);
            out.writeInt(1);
            out.writeShort(2);
            v1Member(out, "na", "http://z:1", MemberState.NORMAL);
            v1Member(out, "nb", "http://a:1", MemberState.NORMAL);
        });
        assertThat(MetadataCodec.decodeCommand(initialize), equalTo(new MetadataCommand.Initialize(List.of(
                new Member("na", "http://z:1", MemberState.NORMAL, 1, null),
                new Member("nb", "http://a:1", MemberState.NORMAL, 0, null)), 1)));

        byte[] add = v1(out -> {
            out.writeByte(2);
            v1Member(out, "nq", "http://q:1", MemberState.JOINING);
        });
        assertThat(MetadataCodec.decodeCommand(add),
                equalTo(new MetadataCommand.AddMember(new Member("nq", "http://q:1", MemberState.JOINING, 0, null))));
        byte[] state = v1(out -> {
            out.writeByte(3);
            text(out, "nq");
            out.writeByte(MemberState.LEFT.ordinal());
        });
        assertThat(MetadataCodec.decodeCommand(state), equalTo(new MetadataCommand.SetMemberState("nq", MemberState.LEFT)));
        byte[] factor = v1(out -> {
            out.writeByte(4);
            out.writeInt(3);
        });
        assertThat(MetadataCodec.decodeCommand(factor), equalTo(new MetadataCommand.SetReplicationFactor(3)));

        byte[] replace = v1(out -> {
            out.writeByte(5);
            text(out, "na");
            v1Member(out, "nq", "http://q:1", MemberState.JOINING);
        });
        assertThat(assertThrows(CorruptMetadataException.class, () -> MetadataCodec.decodeCommand(replace)).getMessage(),
                containsString("in format version 1"));
        byte[] stateFrom = v1(out -> {
            out.writeByte(6);
            text(out, "nq");
            out.writeByte(MemberState.LEFT.ordinal());
            out.writeByte(MemberState.JOINING.ordinal());
        });
        assertThat(assertThrows(CorruptMetadataException.class, () -> MetadataCodec.decodeCommand(stateFrom)).getMessage(),
                containsString("in format version 1"));
    }

    @Test
    void version1ListsAreStrictToo() throws Exception {
        byte[] seventeen = v1(out -> {
            out.writeLong(1);
            out.writeInt(1);
            out.writeShort(17);
        });
        assertThat(assertThrows(CorruptMetadataException.class, () -> MetadataCodec.decodeMetadata(seventeen)).getMessage(),
                containsString("17 members; at most 16"));
        byte[] sameUrl = v1(out -> {
            out.writeLong(1);
            out.writeInt(1);
            out.writeShort(2);
            v1Member(out, "na", "http://a:1", MemberState.NORMAL);
            v1Member(out, "nb", "http://a:1", MemberState.NORMAL);
        });
        assertThrows(CorruptMetadataException.class, () -> MetadataCodec.decodeMetadata(sameUrl));
        byte[] trailing = Arrays.copyOf(MetadataCodec.encode(new MetadataCommand.SetReplicationFactor(2)), 7);
        trailing[0] = 1;
        assertThat(assertThrows(CorruptMetadataException.class, () -> MetadataCodec.decodeCommand(trailing)).getMessage(),
                containsString("1 bytes after the end"));
    }

    @Test
    void outcomesOfBothVersionsDecode() throws Exception {
        MetadataCodec.Outcome refused = new MetadataCodec.Outcome(false, 9, "no member nx");
        byte[] bytes = MetadataCodec.encode(refused);
        assertThat(bytes[0], is((byte) 1));
        assertThat(MetadataCodec.decodeOutcome(bytes), equalTo(refused));
        bytes[0] = 2;
        assertThat(MetadataCodec.decodeOutcome(bytes), equalTo(refused));
        bytes[0] = 3;
        assertThrows(CorruptMetadataException.class, () -> MetadataCodec.decodeOutcome(bytes));
    }

    interface Body {
        void writeTo(DataOutputStream out) throws IOException;
    }

    /** Version 1 bytes as a stage 1 node wrote them, built by hand (not by the codec under test). */
    static byte[] v1(Body body) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(1);
            body.writeTo(out);
        }
        return bytes.toByteArray();
    }

    static void v1Member(DataOutputStream out, String id, String url, MemberState state) throws IOException {
        text(out, id);
        text(out, url);
        out.writeByte(state.ordinal());
    }

    private static byte[] v2AddMember(String id, String url, int index, String replacing) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(2);
            out.writeByte(2);
            text(out, id);
            text(out, url);
            out.writeByte(MemberState.JOINING.ordinal());
            out.writeByte(index);
            text(out, replacing);
        }
        return bytes.toByteArray();
    }

    private static void text(DataOutputStream out, String text) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        out.writeShort(bytes.length);
        out.write(bytes);
    }
}
