package io.ringkv.cluster.meta;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * A snapshot of the metadata in one file:
 * {@code "RKVM" version:u8 (1) length:i32 metadata crc32c:i32}, the metadata in
 * {@link MetadataCodec}'s form and the checksum over it. Written to a temporary file and moved
 * into place, so a crash leaves the old snapshot or the new one, never half of one. Ratis keeps an
 * MD5 beside it too; this checksum makes the file check itself wherever it is copied.
 */
final class MetadataSnapshotFile {

    private static final byte[] MAGIC = {'R', 'K', 'V', 'M'};
    private static final int VERSION = 1;
    private static final int HEADER_BYTES = MAGIC.length + 1 + Integer.BYTES;
    /** Far above any real metadata (16 members); a larger length field is corruption. */
    private static final int PAYLOAD_BYTES_MAX = 1 << 20;

    private MetadataSnapshotFile() {
    }

    static void write(Path file, ClusterMetadata metadata) throws IOException {
        byte[] payload = MetadataCodec.encode(metadata);
        ByteBuffer out = ByteBuffer.allocate(HEADER_BYTES + payload.length + Integer.BYTES);
        out.put(MAGIC).put((byte) VERSION).putInt(payload.length).put(payload).putInt(crc(payload));
        io.ringkv.cluster.FileReplacement.write(file, out.array());
    }

    static ClusterMetadata read(Path file) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        ByteBuffer in = ByteBuffer.wrap(bytes);
        if (bytes.length < HEADER_BYTES + Integer.BYTES) {
            throw new CorruptMetadataException("snapshot " + file + ": " + bytes.length + " bytes, shorter than its header");
        }
        byte[] magic = new byte[MAGIC.length];
        in.get(magic);
        int version = in.get() & 0xff;
        int length = in.getInt();
        if (!java.util.Arrays.equals(magic, MAGIC) || version != VERSION) {
            throw new CorruptMetadataException("snapshot " + file + ": not a ringkv metadata snapshot of version " + VERSION);
        }
        if (length < 0 || length > PAYLOAD_BYTES_MAX || length != bytes.length - HEADER_BYTES - Integer.BYTES) {
            throw new CorruptMetadataException("snapshot " + file + ": length field " + length + " does not match the file's "
                    + bytes.length + " bytes");
        }
        byte[] payload = new byte[length];
        in.get(payload);
        if (in.getInt() != crc(payload)) {
            throw new CorruptMetadataException("snapshot " + file + ": checksum mismatch");
        }
        return MetadataCodec.decodeMetadata(payload);
    }

    private static int crc(byte[] payload) {
        CRC32C crc = new CRC32C();
        crc.update(payload);
        return (int) crc.getValue();
    }
}
