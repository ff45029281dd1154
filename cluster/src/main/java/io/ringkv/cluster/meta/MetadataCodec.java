package io.ringkv.cluster.meta;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The binary forms of the metadata's commands (Raft log entries), of the metadata itself (snapshots,
 * read answers) and of an applied command's outcome. All big-endian; this build writes version 2
 * (outcomes version 1, which has not changed) and reads versions 1 and 2:
 * <pre>
 *   command  = version:u8 kind:u8 body                             nothing may follow the body
 *     kind 1 Initialize            rf:i32 count:u16 member*count
 *     kind 2 AddMember             member
 *     kind 3 SetMemberState        id:text state:u8
 *     kind 4 SetReplicationFactor  rf:i32
 *     kind 5 Replace               deadId:text member              version 2 only
 *     kind 6 SetMemberStateFrom    id:text state:u8 from:u8         version 2 only; SetMemberState with a from
 *   member   = id:text url:text state:u8 index:u8 replacing:text-or-empty
 *                                                                  state: MemberState ordinal; index 0..15;
 *                                                                  replacing: length 0 = none
 *   text     = length:u16 UTF-8 bytes                              1..{@link Member#TEXT_BYTES_MAX}, strict UTF-8
 *   text-or-empty = length:u16 UTF-8 bytes                         0..{@link Member#TEXT_BYTES_MAX}
 *   metadata = version:u8 epoch:i64 rf:i32 count:u16 member*count  count: at most {@link ClusterMetadata#ENTRIES_MAX}
 *   outcome  = version:u8 applied:u8 (1 applied, 0 refused) epoch:i64 reason:text-or-empty
 * </pre>
 * Version 1 (stage 1 of issue 33, still in stored logs and snapshots) differs only in its member,
 * {@code id:text url:text state:u8}, and in having no kind 5 and at most 16 members. Reading it,
 * the members of metadata and of Initialize get their indexes by the order of their URLs
 * ({@link Member#initial}), which is what nodes of that version stamp their clocks with; an
 * AddMember's member gets index 0, which applying it replaces anyway.
 *
 * <p>Every decoder checks each length against the bytes left and that nothing is left over, and
 * throws {@link CorruptMetadataException} naming what is wrong: the bytes come from a disk or a
 * peer, and a misread member list would be worse than a stopped state machine.
 */
public final class MetadataCodec {

    static final int VERSION = 2;
    /** The first version, still read: members without index and replacing. */
    static final int VERSION_1 = 1;
    /** Outcomes did not change in version 2; writing 1 keeps them readable by a node of version 1. */
    static final int OUTCOME_VERSION = 1;
    private static final int INITIALIZE = 1;
    private static final int ADD_MEMBER = 2;
    private static final int SET_MEMBER_STATE = 3;
    private static final int SET_REPLICATION_FACTOR = 4;
    private static final int REPLACE = 5;
    private static final int SET_MEMBER_STATE_FROM = 6;

    private MetadataCodec() {
    }

    public static byte[] encode(MetadataCommand command) {
        return write(out -> {
            out.writeByte(VERSION);
            switch (command) {
                case MetadataCommand.Initialize init -> {
                    out.writeByte(INITIALIZE);
                    out.writeInt(init.replicationFactor());
                    writeMembers(out, init.members());
                }
                case MetadataCommand.AddMember add -> {
                    out.writeByte(ADD_MEMBER);
                    writeMember(out, add.member());
                }
                case MetadataCommand.SetMemberState set -> {
                    out.writeByte(set.from() == null ? SET_MEMBER_STATE : SET_MEMBER_STATE_FROM);
                    writeText(out, set.id());
                    out.writeByte(set.state().ordinal());
                    if (set.from() != null) {
                        out.writeByte(set.from().ordinal());
                    }
                }
                case MetadataCommand.SetReplicationFactor set -> {
                    out.writeByte(SET_REPLICATION_FACTOR);
                    out.writeInt(set.replicationFactor());
                }
                case MetadataCommand.Replace replace -> {
                    out.writeByte(REPLACE);
                    writeText(out, replace.deadId());
                    writeMember(out, replace.member());
                }
            }
        });
    }

    public static MetadataCommand decodeCommand(byte[] bytes) throws CorruptMetadataException {
        Reader in = new Reader(bytes, "command");
        in.version();
        int kind = in.u8();
        MetadataCommand command = switch (kind) {
            case INITIALIZE -> {
                int factor = in.i32();
                yield new MetadataCommand.Initialize(in.members(), factor);
            }
            case ADD_MEMBER -> new MetadataCommand.AddMember(in.member());
            case SET_MEMBER_STATE -> new MetadataCommand.SetMemberState(in.text(), MemberState.ofCode(in.u8()), null);
            case SET_MEMBER_STATE_FROM -> {
                if (in.version == VERSION_1) {
                    throw new CorruptMetadataException("command: kind " + SET_MEMBER_STATE_FROM + " (SetMemberStateFrom) in format version 1");
                }
                String id = in.text();
                MemberState state = MemberState.ofCode(in.u8());
                yield new MetadataCommand.SetMemberState(id, state, MemberState.ofCode(in.u8()));
            }
            case SET_REPLICATION_FACTOR -> new MetadataCommand.SetReplicationFactor(in.i32());
            case REPLACE -> {
                if (in.version == VERSION_1) {
                    throw new CorruptMetadataException("command: kind " + REPLACE + " (Replace) in format version 1");
                }
                String deadId = in.text();
                Member member = in.member();
                try {
                    yield new MetadataCommand.Replace(deadId, member);
                } catch (IllegalArgumentException e) {
                    throw new CorruptMetadataException("command: " + e.getMessage());
                }
            }
            default -> throw new CorruptMetadataException("unknown command kind " + kind);
        };
        in.end();
        return command;
    }

    public static byte[] encode(ClusterMetadata metadata) {
        return write(out -> {
            out.writeByte(VERSION);
            out.writeLong(metadata.epoch());
            out.writeInt(metadata.replicationFactor());
            writeMembers(out, metadata.members());
        });
    }

    public static ClusterMetadata decodeMetadata(byte[] bytes) throws CorruptMetadataException {
        Reader in = new Reader(bytes, "metadata");
        in.version();
        long epoch = in.i64();
        int factor = in.i32();
        List<Member> members = in.members();
        in.end();
        try {
            return new ClusterMetadata(epoch, factor, members);
        } catch (IllegalArgumentException e) {
            throw new CorruptMetadataException("metadata: " + e.getMessage());
        }
    }

    /** What applying a command came to, as the state machine answers it. */
    public record Outcome(boolean applied, long epoch, String reason) {
    }

    public static byte[] encode(Outcome outcome) {
        return write(out -> {
            out.writeByte(OUTCOME_VERSION);
            out.writeByte(outcome.applied() ? 1 : 0);
            out.writeLong(outcome.epoch());
            byte[] reason = outcome.reason() == null ? new byte[0] : truncated(outcome.reason());
            out.writeShort(reason.length);
            out.write(reason);
        });
    }

    public static Outcome decodeOutcome(byte[] bytes) throws CorruptMetadataException {
        Reader in = new Reader(bytes, "outcome");
        in.version(); // 1 and 2 are alike
        int applied = in.u8();
        if (applied > 1) {
            throw new CorruptMetadataException("outcome: applied flag " + applied);
        }
        long epoch = in.i64();
        int length = in.u16();
        String reason = length == 0 ? null : in.utf8(length);
        in.end();
        return new Outcome(applied == 1, epoch, reason);
    }

    private static byte[] truncated(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        return bytes.length <= Member.TEXT_BYTES_MAX ? bytes
                : text.substring(0, Math.min(text.length(), Member.TEXT_BYTES_MAX / 4)).getBytes(StandardCharsets.UTF_8);
    }

    private interface Body {
        void writeTo(DataOutputStream out) throws IOException;
    }

    private static byte[] write(Body body) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(128);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            body.writeTo(out);
        } catch (IOException e) {
            throw new UncheckedIOException("writing to memory cannot fail", e);
        }
        return bytes.toByteArray();
    }

    private static void writeMembers(DataOutputStream out, List<Member> members) throws IOException {
        if (members.size() > ClusterMetadata.ENTRIES_MAX) {
            throw new IllegalArgumentException("at most " + ClusterMetadata.ENTRIES_MAX + " members, got " + members.size());
        }
        out.writeShort(members.size());
        for (Member member : members) {
            writeMember(out, member);
        }
    }

    private static void writeMember(DataOutputStream out, Member member) throws IOException {
        writeText(out, member.id());
        writeText(out, member.url());
        out.writeByte(member.state().ordinal());
        out.writeByte(member.index());
        if (member.replacing() == null) {
            out.writeShort(0);
        } else {
            writeText(out, member.replacing());
        }
    }

    private static void writeText(DataOutputStream out, String text) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (bytes.length == 0 || bytes.length > Member.TEXT_BYTES_MAX) {
            throw new IllegalArgumentException("text of " + bytes.length + " bytes; 1.." + Member.TEXT_BYTES_MAX + " allowed");
        }
        out.writeShort(bytes.length);
        out.write(bytes);
    }

    /** Bounds-checked reads; every failure is a {@link CorruptMetadataException} naming what was read. */
    private static final class Reader {
        private final ByteBuffer buffer;
        private final String what;
        /** The format version read by {@link #version}: how members are laid out. */
        private int version;

        Reader(byte[] bytes, String what) throws CorruptMetadataException {
            if (bytes == null || bytes.length == 0) {
                throw new CorruptMetadataException(what + ": no bytes");
            }
            this.buffer = ByteBuffer.wrap(bytes);
            this.what = what;
        }

        void version() throws CorruptMetadataException {
            int read = u8();
            if (read != VERSION_1 && read != VERSION) {
                throw new CorruptMetadataException(what + ": format version " + read + ", this build reads "
                        + VERSION_1 + " and " + VERSION);
            }
            version = read;
        }

        int u8() throws CorruptMetadataException {
            need(1);
            return buffer.get() & 0xff;
        }

        int u16() throws CorruptMetadataException {
            need(2);
            return buffer.getShort() & 0xffff;
        }

        int i32() throws CorruptMetadataException {
            need(4);
            return buffer.getInt();
        }

        long i64() throws CorruptMetadataException {
            need(8);
            return buffer.getLong();
        }

        String text() throws CorruptMetadataException {
            String text = textOrNone();
            if (text == null) {
                throw new CorruptMetadataException(what + ": empty text at offset " + (buffer.position() - 2)
                        + "; 1.." + Member.TEXT_BYTES_MAX + " bytes allowed");
            }
            return text;
        }

        /** A text-or-empty: null for length 0. */
        String textOrNone() throws CorruptMetadataException {
            int length = u16();
            if (length > Member.TEXT_BYTES_MAX) {
                throw new CorruptMetadataException(what + ": text of " + length + " bytes at offset "
                        + (buffer.position() - 2) + "; at most " + Member.TEXT_BYTES_MAX + " allowed");
            }
            return length == 0 ? null : utf8(length);
        }

        String utf8(int length) throws CorruptMetadataException {
            need(length);
            ByteBuffer slice = buffer.slice(buffer.position(), length);
            buffer.position(buffer.position() + length);
            try {
                return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT).decode(slice).toString();
            } catch (CharacterCodingException e) {
                throw new CorruptMetadataException(what + ": text that is not UTF-8");
            }
        }

        Member member() throws CorruptMetadataException {
            String id = text();
            String url = text();
            MemberState state = MemberState.ofCode(u8());
            int index = 0;
            String replacing = null;
            if (version != VERSION_1) {
                index = u8();
                if (index > Member.INDEX_MAX) {
                    throw new CorruptMetadataException(what + ": member " + id + " has index " + index + "; 0.."
                            + Member.INDEX_MAX + " allowed");
                }
                replacing = textOrNone();
            }
            try {
                return new Member(id, url, state, index, replacing);
            } catch (IllegalArgumentException e) {
                throw new CorruptMetadataException(what + ": " + e.getMessage());
            }
        }

        /** A member list; a version 1 list gets its indexes by URL order ({@link Member#indexedByUrl}). */
        List<Member> members() throws CorruptMetadataException {
            int count = u16();
            int max = version == VERSION_1 ? ClusterMetadata.MEMBERS_MAX : ClusterMetadata.ENTRIES_MAX;
            if (count > max) {
                throw new CorruptMetadataException(what + ": " + count + " members; at most " + max);
            }
            List<Member> members = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                members.add(member());
            }
            return version == VERSION_1 ? Member.indexedByUrl(members) : members;
        }

        void end() throws CorruptMetadataException {
            if (buffer.hasRemaining()) {
                throw new CorruptMetadataException(what + ": " + buffer.remaining() + " bytes after the end");
            }
        }

        private void need(int bytes) throws CorruptMetadataException {
            if (buffer.remaining() < bytes) {
                throw new CorruptMetadataException(what + ": cut short at offset " + buffer.position() + " (needs "
                        + bytes + " more bytes, " + buffer.remaining() + " left)");
            }
        }
    }
}
