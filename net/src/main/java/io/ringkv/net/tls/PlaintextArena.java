package io.ringkv.net.tls;

import io.ringkv.net.Connection;
import io.ringkv.net.ConnectionHandler;
import java.nio.ByteBuffer;

/**
 * Where a {@link TlsConnection} decrypts records, and what the application reads in place: the
 * TLS counterpart of the plain connection's read arena. Plaintext is appended front to back; the
 * application gets a view of what is unread. If it {@linkplain Connection#retain retains} a slice
 * of that view (an HTTP/2 DATA payload for a body subscriber), the region delivered is given up
 * for good and later records are decrypted after it; when the space runs out a fresh buffer is
 * started and the old one lives on only through the retained slices. So decrypted bytes are
 * written once (by the engine) and never copied again, and the common case (nothing retained)
 * reuses one buffer.
 *
 * <p>Bytes the application left unread are presented again, ahead of newer ones; they move (are
 * copied) only when space must be made, and never over a retained region.
 *
 * <p>Threading: confined to the connection's loop.
 */
final class PlaintextArena {
    /** Buffer size in records: one retained record does not force a fresh buffer. */
    static final int RECORDS_PER_BUFFER = 4;

    private int recordBytes;
    private ByteBuffer buffer;
    private ByteBuffer writeView;
    /** Bytes before base are given up (retained): never written again. */
    private int base;
    /** The first unread plaintext byte. */
    private int start;
    /** The end of the plaintext. */
    private int end;
    private boolean delivering;
    private boolean retained;

    /** @param recordBytes the session's application buffer size (the most plaintext one record holds) */
    PlaintextArena(int recordBytes) {
        this.recordBytes = recordBytes;
        newBuffer(0);
    }

    boolean hasPlaintext() {
        return end > start;
    }

    /** The space to decrypt into, positioned after the plaintext; call {@link #filled} after the unwrap. */
    ByteBuffer space() {
        if (buffer.capacity() - end < recordBytes) {
            makeRoom(recordBytes);
        }
        return writeView.limit(writeView.capacity()).position(end);
    }

    /** The engine wrote into {@link #space()} up to its position. */
    void filled() {
        end = writeView.position();
    }

    /** The engine asked for more room than a record's worth (the session's sizes grew). */
    void grow(int newRecordBytes) {
        recordBytes = Math.max(recordBytes, newRecordBytes);
        makeRoom(Math.max(recordBytes, 2 * (buffer.capacity() - end) + 1)); // strictly more room each time
    }

    /** Hands the unread plaintext to {@code app}; what it leaves is presented again next time. */
    void deliver(ConnectionHandler app, Connection connection) {
        if (end == start) {
            return;
        }
        ByteBuffer view = buffer.slice(start, end - start);
        delivering = true;
        retained = false;
        try {
            app.onRead(connection, view);
        } finally {
            delivering = false;
        }
        start += view.position();
        if (retained) {
            base = end; // the delivered region, unread bytes included, stays as it is
        } else if (start == end) {
            start = base; // all read, nothing kept: the space is free again
            end = base;
        }
    }

    /** See {@link Connection#retain}: a read-only view of our memory, whose region is given up. */
    ByteBuffer retain(ByteBuffer slice) {
        boolean ours = slice.isReadOnly() || !slice.hasArray() || slice.array() == buffer.array();
        if (!delivering || !ours) {
            return slice; // not the plaintext being delivered (a buffer the handler made itself)
        }
        retained = true;
        return slice.asReadOnlyBuffer();
    }

    /** Moves the unread bytes to the first free place, or to a fresh buffer when that leaves too little room. */
    private void makeRoom(int needed) {
        int unread = end - start;
        if (buffer.capacity() - base - unread >= needed && start > base) {
            System.arraycopy(buffer.array(), start, buffer.array(), base, unread);
            start = base;
            end = base + unread;
            return;
        }
        if (buffer.capacity() - end >= needed) {
            return;
        }
        ByteBuffer old = buffer;
        int oldStart = start;
        newBuffer(unread + needed);
        old.get(oldStart, buffer.array(), 0, unread);
        end = unread;
    }

    private void newBuffer(int atLeast) {
        buffer = ByteBuffer.allocate(Math.max(atLeast, RECORDS_PER_BUFFER * recordBytes));
        writeView = buffer.duplicate();
        base = 0;
        start = 0;
        end = 0;
    }
}
