package io.ringkv.http.h1;

import io.ringkv.http.Headers;
import io.ringkv.http.h1.ResponseHead.Framing;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * Incremental HTTP/1.1 response parser (RFC 9110, RFC 9112), for the client: bytes in, events
 * out.
 *
 * <p>Use: {@link #begin(String)} with the request's method before writing each request (HEAD,
 * CONNECT and the status decide whether a body follows), then feed bytes to {@link #next} until
 * it returns null, as with {@link RequestParser}. An exchange is
 * {@code (InterimResponse)* ResponseHead (BodyChunk)* MessageEnd}; after the MessageEnd the
 * parser is idle until the next {@code begin}. When the server closes the connection, call
 * {@link #endOfInput()}: it ends a body delimited by the close and rejects a truncated message.
 *
 * <p>Errors: malformed or over-limit input throws {@link MalformedResponseException}; the parser
 * then keeps throwing it. Limits come from {@link H1Limits}; {@code requestLineBytesMax} bounds
 * the status line. The same strict field and chunk rules as for requests apply.
 *
 * <pre>
 *   IDLE --begin--> STATUS_LINE --line--> HEADER_FIELDS --1xx--> (InterimResponse) STATUS_LINE
 *     HEADER_FIELDS --final--> MESSAGE_END | FIXED_BODY | CHUNKED_BODY | UNTIL_CLOSE_BODY | SWITCHING
 *     bodies --end--> (MessageEnd) IDLE;   SWITCHING --(MessageEnd)--> SWITCHED (terminal, bytes left alone)
 *     UNTIL_CLOSE_BODY --endOfInput--> (MessageEnd) IDLE;   any --malformed--> FAILED (terminal)
 * </pre>
 *
 * <p>Threading: not thread-safe; confined to the connection's event loop. No I/O, no blocking.
 * Buffers: does not pool; body slices alias the caller's buffer (see {@link BodyChunk}).
 */
public final class ResponseParser {
    private enum State {
        IDLE, STATUS_LINE, HEADER_FIELDS, FIXED_BODY, CHUNKED_BODY, UNTIL_CLOSE_BODY, MESSAGE_END, SWITCHING,
        SWITCHED, FAILED
    }

    private final H1Limits limits;
    private final MessageHeadReader head;
    private final ChunkedBodyDecoder chunkedBody;
    /** A Content-Length body's bytes left, or the bytes an until-close body may still have. */
    private final BoundedBody boundedBody = new BoundedBody();

    private State state = State.IDLE;
    private String requestMethod;
    /** The end of every response without trailers: one immutable instance, not one per response. */
    private static final MessageEnd WITHOUT_TRAILERS = new MessageEnd(Headers.NONE);
    private StatusLine statusLine;
    private MalformedResponseException failure;

    public ResponseParser(H1Limits limits) {
        this.limits = limits;
        this.head = new MessageHeadReader(limits, H1ParseException.badRequest("status_line_too_long"), true);
        this.chunkedBody = new ChunkedBodyDecoder(limits, true);
    }

    /**
     * Announces the next response: the method of the request it answers.
     *
     * @throws IllegalStateException unless the previous exchange has ended (pipelining is not
     *         supported here: begin the next exchange after the previous MessageEnd)
     */
    public void begin(String method) {
        Objects.requireNonNull(method, "method");
        if (state != State.IDLE) {
            throw new IllegalStateException("previous response not finished: " + state);
        }
        requestMethod = method;
        state = State.STATUS_LINE;
    }

    /**
     * Consumes bytes from {@code in} and returns the next event, or null when more bytes are
     * needed. Bytes arriving while idle (no request announced) are an error
     * ({@code unsolicited_response}); after a protocol switch they are left in {@code in} for
     * the new protocol.
     */
    public H1ResponseEvent next(ByteBuffer in) throws MalformedResponseException {
        if (state == State.FAILED) {
            throw failure;
        }
        try {
            return advance(in);
        } catch (H1ParseException e) {
            throw fail(e.reason());
        }
    }

    /**
     * The server closed the connection; call after {@link #next} has returned null.
     *
     * @return the MessageEnd of a body delimited by the close; null if no response was in
     *         progress (idle, or after a protocol switch)
     * @throws MalformedResponseException {@code truncated_response} if a message was incomplete
     */
    public MessageEnd endOfInput() throws MalformedResponseException {
        return switch (state) {
            case IDLE, SWITCHED -> null;
            case UNTIL_CLOSE_BODY, MESSAGE_END -> endMessage(State.IDLE);
            case FAILED -> throw failure;
            default -> throw fail("truncated_response");
        };
    }

    private H1ResponseEvent advance(ByteBuffer in) throws H1ParseException {
        // Bounded: a state that does not return consumed input first.
        while (true) {
            switch (state) {
                case IDLE -> {
                    if (in.hasRemaining()) {
                        throw H1ParseException.badRequest("unsolicited_response");
                    }
                    return null;
                }
                case STATUS_LINE -> {
                    if (!readStatusLine(in)) {
                        return null;
                    }
                }
                case HEADER_FIELDS -> {
                    Headers headers = head.readHeaderSection(in);
                    return headers == null ? null : onHeaders(headers);
                }
                case FIXED_BODY -> {
                    return fixedBody(in);
                }
                case CHUNKED_BODY -> {
                    return chunkedBody(in);
                }
                case UNTIL_CLOSE_BODY -> {
                    return untilCloseBody(in);
                }
                case MESSAGE_END -> {
                    return endMessage(State.IDLE);
                }
                case SWITCHING -> {
                    return endMessage(State.SWITCHED);
                }
                case SWITCHED -> {
                    return null;  // the remaining bytes belong to the new protocol
                }
                case FAILED -> throw new IllegalStateException("unreachable: failure is checked first");
            }
        }
    }

    private boolean readStatusLine(ByteBuffer in) throws H1ParseException {
        if (!head.readStartLine(in)) {
            return false;
        }
        statusLine = StatusLine.parse(head.startLineBytes(), head.startLineLength());
        state = State.HEADER_FIELDS;
        return true;
    }

    private H1ResponseEvent onHeaders(Headers headers) throws H1ParseException {
        int status = statusLine.status();
        if (status / 100 == 1 && status != 101) {
            // RFC 9110 §15.2: interim; the final response to the same request follows.
            state = State.STATUS_LINE;
            return new InterimResponse(status, headers);
        }
        ResponseFraming framing = ResponseFraming.of(requestMethod, status, statusLine.minorVersion(), headers);
        if (framing.contentLength() > limits.bodyBytesMax()) {
            throw new H1ParseException(413, "content_length_too_large");
        }
        state = switch (framing.framing()) {
            case NONE -> State.MESSAGE_END;
            case LENGTH -> State.FIXED_BODY;
            case CHUNKED -> State.CHUNKED_BODY;
            case UNTIL_CLOSE -> State.UNTIL_CLOSE_BODY;
            case SWITCHED -> State.SWITCHING;
        };
        boundedBody.start(framing.framing() == Framing.UNTIL_CLOSE ? limits.bodyBytesMax() : framing.contentLength());
        return new ResponseHead(status, statusLine.reason(), statusLine.minorVersion(), headers,
                keepAlive(headers, framing.framing()), framing.framing(), framing.contentLength());
    }

    /** RFC 9112 §9.3, and a body delimited by the close or a protocol switch ends the connection. */
    private boolean keepAlive(Headers headers, Framing framing) {
        if (framing == Framing.UNTIL_CLOSE || framing == Framing.SWITCHED) {
            return false;
        }
        if (headers.indexOf("Connection", 0) < 0) {
            return statusLine.minorVersion() >= 1; // most responses: no field, no list to build
        }
        if (ListValues.containsToken(headers.all("Connection"), "close")) {
            return false;
        }
        return statusLine.minorVersion() >= 1 || ListValues.containsToken(headers.all("Connection"), "keep-alive");
    }

    private BodyChunk fixedBody(ByteBuffer in) {
        BodyChunk chunk = boundedBody.take(in);
        if (boundedBody.exhausted()) {
            state = State.MESSAGE_END;
        }
        return chunk;
    }

    private H1ResponseEvent chunkedBody(ByteBuffer in) throws H1ParseException {
        H1Event event = chunkedBody.next(in);
        if (event instanceof MessageEnd end) {
            state = State.IDLE;
            return end;
        }
        return (BodyChunk) event;
    }

    private BodyChunk untilCloseBody(ByteBuffer in) throws H1ParseException {
        if (in.hasRemaining() && boundedBody.exhausted()) {
            throw new H1ParseException(413, "body_too_large");
        }
        return boundedBody.take(in);
    }

    private MessageEnd endMessage(State after) {
        state = after;
        requestMethod = null;
        statusLine = null;
        return WITHOUT_TRAILERS;
    }

    private MalformedResponseException fail(String reason) {
        state = State.FAILED;
        failure = new MalformedResponseException(reason);
        return failure;
    }
}
