package io.ringkv.http.h1;

import io.ringkv.http.Headers;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * Incremental, strict HTTP/1.1 request parser (RFC 9110, RFC 9112): bytes in, events out.
 *
 * <p>Use: append received bytes to a buffer, flip it, call {@link #next} until it returns null
 * (it needs more bytes), then compact and read again. Events for one request are
 * {@code RequestHead (BodyChunk)* MessageEnd}; pipelined requests follow one another on the same
 * parser. Call {@code next} again after every event, even with no new bytes: a
 * {@link MessageEnd} can follow a head or the last body bytes without further input.
 *
 * <p>Errors: malformed or over-limit input yields a {@link ParseError} carrying the status to
 * answer before closing; the parser then keeps returning that error. It never throws on input.
 *
 * <p>Line endings: CRLF, or a bare LF in the request line, header and trailer sections
 * (RFC 9112 §2.2 allows a recipient to accept it); chunk framing requires CRLF. A bare CR is
 * always 400.
 *
 * <p>States ({@link State}):
 * <pre>
 *   REQUEST_LINE --line--> HEADER_FIELDS --empty line--> MESSAGE_END            (no body)
 *                                                     \-> FIXED_BODY --last byte--> MESSAGE_END
 *                                                     \-> CHUNKED_BODY --last chunk, trailers--> (MessageEnd)
 *   MESSAGE_END --(MessageEnd)--> REQUEST_LINE;   any --malformed--> FAILED (terminal)
 *   (chunk states live in ChunkedBodyDecoder)
 * </pre>
 *
 * <p>Threading: not thread-safe; confined to the connection's event loop. No I/O, no blocking.
 * Buffers: does not pool; body slices alias the caller's buffer (see {@link BodyChunk}).
 */
public final class RequestParser {
    /** The {@link ParseError#reason} of a {@code 413}: the announced {@code Content-Length} is past the limit. */
    public static final String CONTENT_LENGTH_TOO_LARGE = "content_length_too_large";

    /** RFC 9112 §2.2: empty lines before a request line SHOULD be ignored; we ignore this many. */
    static final int LEADING_EMPTY_LINES_MAX = 8;

    private enum State {
        REQUEST_LINE, HEADER_FIELDS, FIXED_BODY, CHUNKED_BODY, MESSAGE_END, FAILED
    }

    private final H1Limits limits;
    private final MessageHeadReader head;
    private final ChunkedBodyDecoder chunkedBody;
    private final BoundedBody fixedBody = new BoundedBody();

    private State state = State.REQUEST_LINE;
    private RequestLine requestLine;
    private int emptyLinesSkipped;
    private ParseError failure;

    public RequestParser(H1Limits limits) {
        this.limits = limits;
        this.head = new MessageHeadReader(limits, new H1ParseException(414, "request_line_too_long"), false);
        this.chunkedBody = new ChunkedBodyDecoder(limits, false);
    }

    /**
     * Consumes bytes from {@code in} (advancing its position) and returns the next event, or
     * null when more bytes are needed (then every remaining byte of {@code in} was consumed).
     * Never throws on malformed input; after a {@link ParseError} it keeps returning that error.
     */
    public H1Event next(ByteBuffer in) {
        if (state == State.FAILED) {
            return failure;
        }
        try {
            return advance(in);
        } catch (H1ParseException e) {
            state = State.FAILED;
            failure = new ParseError(e.status(), e.reason());
            return failure;
        }
    }

    private H1Event advance(ByteBuffer in) throws H1ParseException {
        // Bounded: a state that does not return either consumed input or moved to a returning state.
        while (true) {
            switch (state) {
                case REQUEST_LINE -> {
                    if (!readRequestLine(in)) {
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
                    H1Event event = chunkedBody.next(in);
                    if (event instanceof MessageEnd end) {
                        return endMessage(end.trailers());
                    }
                    return event;
                }
                case MESSAGE_END -> {
                    return endMessage(new Headers(0));
                }
                case FAILED -> {
                    return failure;
                }
            }
        }
    }

    private boolean readRequestLine(ByteBuffer in) throws H1ParseException {
        while (head.readStartLine(in)) {
            if (head.startLineLength() > 0) {
                requestLine = RequestLine.parse(head.startLineBytes(), head.startLineLength());
                state = State.HEADER_FIELDS;
                return true;
            }
            if (++emptyLinesSkipped > LEADING_EMPTY_LINES_MAX) {
                throw H1ParseException.badRequest("too_many_empty_lines");
            }
        }
        return false;
    }

    private RequestHead onHeaders(Headers headers) throws H1ParseException {
        int minor = requestLine.minorVersion();
        checkHost(headers, minor);
        if (minor == 0 && headers.contains("Transfer-Encoding")) {
            // RFC 9112 §6.1: treat as faulty framing; we refuse rather than guess.
            throw H1ParseException.badRequest("transfer_encoding_in_http_1_0");
        }
        long contentLength = BodyFraming.bodyLength(headers);
        if (contentLength > limits.bodyBytesMax()) {
            throw new H1ParseException(413, CONTENT_LENGTH_TOO_LARGE);
        }
        startBody(contentLength);
        return new RequestHead(requestLine.method(), requestLine.target(), minor, headers,
                keepAlive(headers, minor), expectsContinue(headers, minor), contentLength);
    }

    private void startBody(long contentLength) {
        if (contentLength == BodyFraming.CHUNKED) {
            state = State.CHUNKED_BODY;
        } else if (contentLength == 0) {
            state = State.MESSAGE_END;
        } else {
            state = State.FIXED_BODY;
            fixedBody.start(contentLength);
        }
    }

    /** RFC 9112 §3.2: 400 for an HTTP/1.1 request without Host, or any request with two. */
    private static void checkHost(Headers headers, int minor) throws H1ParseException {
        List<String> hosts = headers.all("Host");
        if (hosts.size() > 1) {
            throw H1ParseException.badRequest("multiple_host");
        }
        if (hosts.isEmpty()) {
            if (minor >= 1) {
                throw H1ParseException.badRequest("missing_host");
            }
            return;
        }
        if (!isHostSyntax(hosts.get(0))) {
            throw H1ParseException.badRequest("invalid_host");
        }
    }

    /**
     * RFC 9110 §7.2 / RFC 3986 §3.2.2: uri-host [":" port]. Checked by character class only:
     * unreserved, pct-encoded, sub-delims, ':' and the IP-literal brackets. May be empty.
     */
    private static boolean isHostSyntax(String host) {
        for (int i = 0; i < host.length(); i++) {
            char c = host.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || "-._~%!$&'()*+,;=:[]".indexOf(c) >= 0;
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    /** RFC 9112 §9.3: 1.1 persists unless "close"; 1.0 only with "keep-alive" (and no "close"). */
    private static boolean keepAlive(Headers headers, int minor) {
        List<String> connection = headers.all("Connection");
        if (ListValues.containsToken(connection, "close")) {
            return false;
        }
        return minor >= 1 || ListValues.containsToken(connection, "keep-alive");
    }

    /** RFC 9110 §10.1.1: a server MUST ignore 100-continue in an HTTP/1.0 request. */
    private static boolean expectsContinue(Headers headers, int minor) {
        return minor >= 1 && ListValues.containsToken(headers.all("Expect"), "100-continue");
    }

    private BodyChunk fixedBody(ByteBuffer in) {
        BodyChunk chunk = fixedBody.take(in);
        if (fixedBody.exhausted()) {
            state = State.MESSAGE_END;
        }
        return chunk;
    }

    private MessageEnd endMessage(Headers trailers) {
        state = State.REQUEST_LINE;
        requestLine = null;
        emptyLinesSkipped = 0;
        return new MessageEnd(trailers);
    }
}
