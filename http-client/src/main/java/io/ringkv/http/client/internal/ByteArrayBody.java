package io.ringkv.http.client.internal;

import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
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
 * {@link #PRESIZED_BYTES_MAX} (a length header alone never allocates more); beyond that, or
 * without a length, the array doubles as needed and is trimmed at the end.
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

    private final CompletableFuture<byte[]> result = new CompletableFuture<>();
    private final long declaredLength;
    private byte[] bytes;
    private int size;
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
        if (overflowed || !ensureRoom(length)) {
            piece.position(piece.limit());
            return;
        }
        piece.get(bytes, size, length);
        size += length;
    }

    private boolean ensureRoom(int length) {
        long needed = (long) size + length;
        if (needed > ARRAY_BYTES_MAX) {
            overflowed = true;
            return false;
        }
        if (bytes == null) {
            long first = declaredLength >= needed ? Math.min(declaredLength, PRESIZED_BYTES_MAX) : INITIAL_BYTES;
            bytes = new byte[(int) Math.max(first, needed)];
        } else if (needed > bytes.length) {
            long grown = Math.max(needed, Math.min((long) bytes.length * 2, ARRAY_BYTES_MAX));
            bytes = Arrays.copyOf(bytes, (int) grown);
        }
        return true;
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
            } else {
                body = size == bytes.length ? bytes : Arrays.copyOf(bytes, size);
            }
            bytes = null;
        }
        if (body == null) {
            // As the JDK's subscriber, which cannot size a byte[] beyond Integer.MAX_VALUE either.
            result.completeExceptionally(new IllegalArgumentException("response body too large for a byte[]"));
        } else {
            result.complete(body);
        }
    }

    @Override
    public CompletionStage<byte[]> getBody() {
        return result;
    }
}
