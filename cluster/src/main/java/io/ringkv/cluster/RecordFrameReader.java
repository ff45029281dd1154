package io.ringkv.cluster;

import io.ringkv.store.Record;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Arrays;

/**
 * Reads a {@link RecordFrames} stream incrementally: memory is one buffer plus the current
 * entry, whatever the length of the stream. Checks that keys ascend, because the cluster merge
 * depends on it. Threading: as {@link RecordStream}. May block in {@link #next()} on the input.
 */
public final class RecordFrameReader implements RecordStream {

    private static final int READ_BUFFER_BYTES = 64 * 1024;

    private final DataInputStream in;
    private final String source;
    private byte[] key;
    private Record record;
    private boolean ended;

    /** @param source names the peer in error messages */
    public RecordFrameReader(InputStream in, String source) {
        this.in = new DataInputStream(new BufferedInputStream(in, READ_BUFFER_BYTES));
        this.source = source;
    }

    @Override
    public boolean next() throws IOException {
        if (ended) {
            return false;
        }
        try {
            int keyLength = in.readInt();
            if (keyLength == RecordFrames.END_OF_STREAM) {
                ended = true;
                return false;
            }
            byte[] nextKey = readBytes(keyLength, RecordFrames.KEY_BYTES_MAX, "key");
            Record nextRecord = readRecord();
            if (key != null && Arrays.compareUnsigned(key, nextKey) >= 0) {
                throw new IOException("range stream from " + source + " is not in ascending key order");
            }
            key = nextKey;
            record = nextRecord;
            return true;
        } catch (EOFException e) {
            throw new IOException("range stream from " + source + " ended without its end marker", e);
        }
    }

    @Override
    public byte[] key() {
        return key;
    }

    @Override
    public Record record() {
        return record;
    }

    @Override
    public void close() {
        try {
            in.close();
        } catch (IOException e) {
            // Closing abandons the stream; nothing more can be learnt from it.
            throw new UncheckedIOException("closing the range stream from " + source, e);
        }
    }

    private Record readRecord() throws IOException {
        long timestamp = in.readLong();
        int flags = in.readUnsignedByte();
        String problem = RecordFrames.headProblem(timestamp, flags);
        if (problem != null) {
            throw new IOException("corrupt frame from " + source + ": " + problem);
        }
        long expiresAt = Record.NEVER;
        if ((flags & RecordFrames.FLAG_EXPIRES) != 0) {
            expiresAt = in.readLong();
            problem = RecordFrames.expiryProblem(expiresAt);
            if (problem != null) {
                throw new IOException("corrupt frame from " + source + ": " + problem);
            }
        }
        byte[] value = readBytes(in.readInt(), RecordFrames.VALUE_BYTES_MAX, "value");
        boolean tombstone = (flags & RecordFrames.FLAG_TOMBSTONE) != 0;
        if (tombstone && value.length != 0) {
            throw new IOException("corrupt frame from " + source + ": a tombstone with a value");
        }
        return new Record(timestamp, tombstone, value, expiresAt);
    }

    private byte[] readBytes(int length, int max, String what) throws IOException {
        if (length < 0 || length > max) {
            throw new IOException("corrupt frame from " + source + ": " + what + " length " + length);
        }
        byte[] bytes = new byte[length];
        in.readFully(bytes);
        return bytes;
    }
}
