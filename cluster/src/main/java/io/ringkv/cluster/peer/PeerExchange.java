package io.ringkv.cluster.peer;

import io.ringkv.http.Headers;
import io.ringkv.net.ScheduledTask;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * One request to a peer over {@link H2PeerTransport}, through the streams it takes: a stream the
 * peer refused unprocessed (REFUSED_STREAM, or above a GOAWAY's last stream) is tried again on
 * another, at most {@link #ATTEMPTS_MAX} times.
 *
 * <p>The answer is either whole ({@link #answer}: the body collected here, bounded by
 * {@code bodyBytesMax}) or streamed ({@link #streamed}: the head completes the future, the body
 * goes to a {@link PeerBodyStream} that credits the peer as its reader takes the bytes).
 *
 * <p>Threading: confined to the event loop of the connection that carries it, from
 * {@link PeerConnection#submit} on. Only the futures are read elsewhere.
 */
final class PeerExchange {
    /** Streams one request may take before it fails for refusals. */
    static final int ATTEMPTS_MAX = 3;
    private static final int BODY_BYTES_FIRST = 256;

    final PeerRequest request;
    private final CompletableFuture<PeerAnswer> answer;
    private final CompletableFuture<PeerStreamedAnswer> streamed;
    private final int bodyBytesMax;
    int attempts;
    /** The stream on its current connection, 0 before one opened. */
    int streamId;
    /** What is left of the request body to send while the peer's window is shut; null once all left. */
    ByteBuffer unsent;
    ScheduledTask timer;
    /** The connection that carries (or queues) it now. */
    PeerConnection carrier;
    private boolean headArrived;
    private int status;
    private Headers fields;
    private byte[] body;
    private int bodySize;
    private PeerBodyStream bodyStream;
    private boolean done;

    private PeerExchange(PeerRequest request, CompletableFuture<PeerAnswer> answer,
                         CompletableFuture<PeerStreamedAnswer> streamed, int bodyBytesMax) {
        this.request = request;
        this.answer = answer;
        this.streamed = streamed;
        this.bodyBytesMax = bodyBytesMax;
    }

    /** An exchange whose answer is read whole, up to {@code bodyBytesMax} bytes of body. */
    static PeerExchange whole(PeerRequest request, int bodyBytesMax) {
        return new PeerExchange(request, new CompletableFuture<>(), null, bodyBytesMax);
    }

    /** An exchange whose answer's body is read as it arrives. */
    static PeerExchange streamed(PeerRequest request) {
        return new PeerExchange(request, null, new CompletableFuture<>(), Integer.MAX_VALUE);
    }

    CompletableFuture<PeerAnswer> answer() {
        return answer;
    }

    CompletableFuture<PeerStreamedAnswer> streamedAnswer() {
        return streamed;
    }

    boolean isStreamed() {
        return streamed != null;
    }

    boolean headArrived() {
        return headArrived;
    }

    boolean isDone() {
        return done;
    }

    /** The final head arrived. A streamed answer's future completes now, with {@code stream} as its body. */
    void head(int status, Headers fields, long contentLength, PeerBodyStream stream) {
        headArrived = true;
        this.status = status;
        this.fields = fields;
        if (streamed != null) {
            cancelTimer(); // from now on each read of the body has its own deadline
            bodyStream = stream;
            streamed.complete(new PeerStreamedAnswer(request, status, fields, stream));
        } else if (contentLength > 0 && contentLength <= bodyBytesMax) {
            body = new byte[(int) contentLength];
        }
    }

    /** The stream the body of a streamed answer goes to; null for a whole answer. */
    PeerBodyStream bodyStream() {
        return bodyStream;
    }

    /**
     * Adds DATA to a whole answer's body.
     *
     * @return false when the body would pass its bound (nothing is added; fail the exchange)
     */
    boolean append(ByteBuffer data) {
        int n = data.remaining();
        if (n > bodyBytesMax - bodySize) {
            return false;
        }
        if (body == null || body.length - bodySize < n) {
            int wanted = Math.max(bodySize + n, body == null ? BODY_BYTES_FIRST : body.length * 2);
            byte[] grown = new byte[Math.min(wanted, bodyBytesMax)];
            if (body != null) {
                System.arraycopy(body, 0, grown, 0, bodySize);
            }
            body = grown;
        }
        data.get(body, bodySize, n);
        bodySize += n;
        return true;
    }

    int bodyBytesMax() {
        return bodyBytesMax;
    }

    /** The answer ended: a whole answer completes; a streamed one's body sees its end. */
    void end() {
        if (!finish()) {
            return;
        }
        if (streamed != null) {
            if (bodyStream != null) {
                bodyStream.end();
            }
            return;
        }
        byte[] whole = body == null ? new byte[0] : body.length == bodySize ? body : java.util.Arrays.copyOf(body, bodySize);
        answer.complete(new PeerAnswer(request, status, fields == null ? Headers.NONE : fields, whole));
    }

    /** The exchange failed: the future fails if it has not completed, a streamed body's reader sees {@code cause}. */
    void fail(IOException cause) {
        if (!finish()) {
            return;
        }
        if (streamed != null) {
            if (bodyStream != null) {
                bodyStream.fail(cause);
            } else {
                streamed.completeExceptionally(cause);
            }
        } else {
            answer.completeExceptionally(cause);
        }
    }

    /** Marks the exchange done and stops its timer; false when it was done already (the first outcome stands). */
    private boolean finish() {
        if (done) {
            return false;
        }
        done = true;
        cancelTimer();
        return true;
    }

    private void cancelTimer() {
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
    }
}
