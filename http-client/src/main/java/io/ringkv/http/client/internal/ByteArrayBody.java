package io.ringkv.http.client.internal;

import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * What {@code BodyHandlers.ofByteArray()} yields (the whole body as one {@code byte[]}), built as
 * the body arrives instead of at its end. The client uses it in place of the JDK's subscriber when
 * the application passes that very handler, whose result is fully known; nothing of the
 * application runs here, so the body pipe may hand it each piece on the event loop
 * ({@link BodyPipe.CopyingSubscriber}).
 *
 * <p>Why: the JDK's subscriber keeps every piece until the end and then copies them all into the
 * result, so a 1 MiB body pins its read buffers (which the loop must then replace with fresh,
 * zeroed ones) and costs a 1 MiB copy after the last byte, in the caller's wait. Copying each piece
 * as it is read lets the loop reuse its read buffer, and the result is ready with the last byte.
 *
 * <p>Capacity: the declared {@code Content-Length} sizes the array at the first piece, up to
 * {@link #PRESIZED_BYTES_MAX} (a length header alone never allocates more); that array is the
 * result when the body fits it exactly, as it does when the length is declared and within the
 * bound. Beyond that, or without a length, the body goes on into further arrays, each as large as
 * all before it (at least {@link #INITIAL_BYTES}, at most {@link #PRESIZED_BYTES_MAX}), which are
 * joined into one at the end, on the executor: the loop copies each byte once as it arrives and
 * never moves what it already holds.
 *
 * <p>Threading: {@code append} on the producing loop, the {@code Flow} signals on the client's
 * executor, serialised by the pipe; the monitor makes the array's state visible across them.
 */
final class ByteArrayBody implements HttpResponse.BodySubscriber<byte[]>, BodyPipe.CopyingSubscriber {
    /** The largest array allocated on the strength of a {@code Content-Length} alone. */
    static final int PRESIZED_BYTES_MAX = 8 * 1024 * 1024;
    /** The first array when the length is unknown. */
    static final int INITIAL_BYTES = 16 * 1024;
    /** The largest array the VM reliably allocates. */
    private static final int ARRAY_BYTES_MAX = Integer.MAX_VALUE - 8;

    private final CompletableFuture<byte[]> result = new ListenedFuture<>();
    private final long declaredLength;
    /** The array being filled, and how much of it is. */
    private byte[] bytes;
    private int size;
    /** Arrays filled before {@link #bytes}, in order; {@code null} while there is only the one. */
    private List<byte[]> filled;
    private long filledBytes;
    private boolean overflowed;

    /** @param declaredLength the response's {@code Content-Length}, or -1 when it has none */
    ByteArrayBody(long declaredLength) {
        this.declaredLength = declaredLength;
    }

    /** For a response with this head: sized by its {@code Content-Length}, if it has a valid one. */
    static ByteArrayBody forHead(ResponseHead head) {
        long length = -1;
        var field = head.fields().first("Content-Length");
        if (field.isPresent()) {
            try {
                length = Long.parseLong(field.get().trim());
            } catch (NumberFormatException e) {
                length = -1; // the codec has judged the framing; here it only sizes a buffer
            }
        }
        return new ByteArrayBody(length);
    }

    @Override
    public synchronized void append(ByteBuffer piece) {
        int length = piece.remaining();
        if (overflowed || filledBytes + size + length > ARRAY_BYTES_MAX) {
            overflowed = true;
            piece.position(piece.limit());
            return;
        }
        if (bytes == null) {
            long first = declaredLength >= length ? Math.min(declaredLength, PRESIZED_BYTES_MAX) : INITIAL_BYTES;
            bytes = new byte[(int) Math.max(first, length)];
        }
        while (piece.hasRemaining()) {
            if (size == bytes.length) {
                startNextArray();
            }
            int taken = Math.min(piece.remaining(), bytes.length - size);
            piece.get(bytes, size, taken);
            size += taken;
        }
    }

    /**
     * The current array is full: keep it as it is and go on in one as large as all so far, up to
     * {@link #PRESIZED_BYTES_MAX}: zeroing a new array is the longest step an append takes on the
     * loop, so arrays stay at a size whose zeroing is short.
     */
    private void startNextArray() {
        if (filled == null) {
            filled = new ArrayList<>();
        }
        filled.add(bytes);
        filledBytes += size;
        long next = Math.min(Math.max(filledBytes, INITIAL_BYTES), PRESIZED_BYTES_MAX);
        if (declaredLength > filledBytes) {
            next = Math.min(next, declaredLength - filledBytes); // end on the declared length exactly
        }
        bytes = new byte[(int) Math.min(next, ARRAY_BYTES_MAX - filledBytes)];
        size = 0;
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
        subscription.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(List<ByteBuffer> items) {
        for (ByteBuffer item : items) {
            append(item);
        }
    }

    @Override
    public void onError(Throwable throwable) {
        synchronized (this) {
            bytes = null;
            filled = null;
        }
        result.completeExceptionally(throwable);
    }

    @Override
    public void onComplete() {
        byte[] body;
        synchronized (this) {
            if (overflowed) {
                body = null;
            } else if (bytes == null) {
                body = new byte[0];
            } else if (filled == null) {
                body = size == bytes.length ? bytes : Arrays.copyOf(bytes, size);
            } else {
                body = join();
            }
            bytes = null;
            filled = null;
        }
        if (body == null) {
            // As the JDK's subscriber, which cannot size a byte[] beyond Integer.MAX_VALUE either.
            result.completeExceptionally(new IllegalArgumentException("response body too large for a byte[]"));
        } else {
            result.complete(body);
        }
    }

    /** How many arrays hold the body so far (for tests: growth keeps arrays instead of copying them). */
    synchronized int arraysHeld() {
        return (filled == null ? 0 : filled.size()) + (bytes == null ? 0 : 1);
    }

    /** The filled arrays and the current one's bytes, as one array (on the executor, at the end). */
    private byte[] join() {
        byte[] body = new byte[(int) (filledBytes + size)];
        int at = 0;
        for (byte[] full : filled) {
            System.arraycopy(full, 0, body, at, full.length);
            at += full.length;
        }
        System.arraycopy(bytes, 0, body, at, size);
        return body;
    }

    @Override
    public CompletionStage<byte[]> getBody() {
        return result;
    }
}
