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
 * read answers) and of an applied command's outcome. All big-endian:
 * <pre>
 *   command  = version:u8 (1) kind:u8 body                         nothing may follow the body
 *     kind 1 Initialize            rf:i32 count:u16 member*count
 *     kind 2 AddMember             member
 *     kind 3 SetMemberState        id:text state:u8
 *     kind 4 SetReplicationFactor  rf:i32
 *   member   = id:text url:text state:u8                           state: MemberState ordinal
 *   text     = length:u16 UTF-8 bytes                              1..{@link Member#TEXT_BYTES_MAX}, strict UTF-8
 *   metadata = version:u8 (1) epoch:i64 rf:i32 count:u16 member*count
 *   outcome  = version:u8 (1) applied:u8 (1 applied, 0 refused) epoch:i64 reason:text-or-empty
 * </pre>
 * Every decoder checks each length against the bytes left and that nothing is left over, and
 * throws {@link CorruptMetadataException} naming what is wrong: the bytes come from a disk or a
 * peer, and a misread member list would be worse than a stopped state machine.
 */
public final class MetadataCodec {

    static final int VERSION = 1;
    private static final int INITIALIZE = 1;
    private static final int ADD_MEMBER = 2;
    private static final int SET_MEMBER_STATE = 3;
    private static final int SET_REPLICATION_FACTOR = 4;

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
                    out.writeByte(SET_MEMBER_STATE);
                    writeText(out, set.id());
                    out.writeByte(set.state().ordinal());
                }
                case MetadataCommand.SetReplicationFactor set -> {
                    out.writeByte(SET_REPLICATION_FACTOR);
                    out.writeInt(set.replicationFactor());
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
            case SET_MEMBER_STATE -> new MetadataCommand.SetMemberState(in.text(), MemberState.ofCode(in.u8()));
            case SET_REPLICATION_FACTOR -> new MetadataCommand.SetReplicationFactor(in.i32());
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
            out.writeByte(VERSION);
            out.writeByte(outcome.applied() ? 1 : 0);
            out.writeLong(outcome.epoch());
            byte[] reason = outcome.reason() == null ? new byte[0] : truncated(outcome.reason());
            out.writeShort(reason.length);
            out.write(reason);
        });
    }

    public static Outcome decodeOutcome(byte[] bytes) throws CorruptMetadataException {
        Reader in = new Reader(bytes, "outcome");
        in.version();
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
        if (members.size() > ClusterMetadata.MEMBERS_MAX) {
            throw new IllegalArgumentException("at most " + ClusterMetadata.MEMBERS_MAX + " members, got " + members.size());
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

        Reader(byte[] bytes, String what) throws CorruptMetadataException {
            if (bytes == null || bytes.length == 0) {
                throw new CorruptMetadataException(what + ": no bytes");
            }
            this.buffer = ByteBuffer.wrap(bytes);
            this.what = what;
        }

        void version() throws CorruptMetadataException {
            int version = u8();
            if (version != VERSION) {
                throw new CorruptMetadataException(what + ": format version " + version + ", this build reads " + VERSION);
            }
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
            int length = u16();
            if (length == 0 || length > Member.TEXT_BYTES_MAX) {
                throw new CorruptMetadataException(what + ": text of " + length + " bytes at offset "
                        + (buffer.position() - 2) + "; 1.." + Member.TEXT_BYTES_MAX + " allowed");
            }
            return utf8(length);
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
            return new Member(id, url, state);
        }

        List<Member> members() throws CorruptMetadataException {
            int count = u16();
            if (count > ClusterMetadata.MEMBERS_MAX) {
                throw new CorruptMetadataException(what + ": " + count + " members; at most " + ClusterMetadata.MEMBERS_MAX);
            }
            List<Member> members = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                members.add(member());
            }
            return members;
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
