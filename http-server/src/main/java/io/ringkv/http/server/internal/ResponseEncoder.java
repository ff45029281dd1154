package io.ringkv.http.server.internal;

import io.ringkv.http.Headers;
import io.ringkv.http.h1.ResponseWriter;
import io.ringkv.http.server.ChunkSource;
import io.ringkv.http.server.Response;
import io.ringkv.http.server.ResponseBody;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a handler's {@link Response} into HTTP/1.1 bytes: the server owns the framing fields
 * (Content-Length, Transfer-Encoding, Connection), so any the handler set are replaced.
 *
 * <p>Threading: stateless; called on whichever thread completes the handler's stage.
 */
final class ResponseEncoder {
    private static final Logger log = LoggerFactory.getLogger(ResponseEncoder.class);
    static final ByteBuffer CONTINUE = ByteBuffer.wrap("HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.US_ASCII))
            .asReadOnlyBuffer();

    private ResponseEncoder() {
    }

    /**
     * @param exchange   the request being answered (method, version, keep-alive)
     * @param forceClose close the connection after this response whatever the request asked
     */
    static EncodedResponse encode(Response response, Exchange exchange, boolean forceClose) {
        int status = response.status();
        if (status < 200 || status > 599) {
            throw new IllegalArgumentException("a handler response needs a final status (200-599), got " + status);
        }
        boolean http10 = exchange.head.minorVersion() == 0;
        boolean close = forceClose || !exchange.head.keepAlive();
        Headers headers = withoutFraming(response.headers());
        // RFC 9110 §6.4.1: no content in a HEAD response, or in 204 and 304.
        boolean noContent = exchange.isHeadRequest() || status == 204 || status == 304;
        ChunkSource stream = null;
        boolean chunked = false;
        ByteBuffer body = null;
        switch (response.body()) {
            case ResponseBody.Empty empty -> addLength(headers, status, 0);
            case ResponseBody.Fixed fixed -> {
                addLength(headers, status, fixed.bytes().length);
                body = noContent || fixed.bytes().length == 0 ? null : ByteBuffer.wrap(fixed.bytes());
            }
            case ResponseBody.Streamed streamed -> {
                // RFC 9112 §7.1: chunked needs HTTP/1.1; an HTTP/1.0 body is delimited by the close.
                chunked = !http10;
                close |= http10;
                if (chunked && status != 204 && status != 304) {
                    headers.add("Transfer-Encoding", "chunked");
                }
                if (noContent) {
                    closeQuietly(streamed.source());
                } else {
                    stream = streamed.source();
                }
            }
        }
        addConnection(headers, close, http10);
        ByteBuffer head = ResponseWriter.head(status, headers);
        ByteBuffer[] buffers = body == null ? new ByteBuffer[] {head} : new ByteBuffer[] {head, body};
        return new EncodedResponse(buffers, stream, chunked, close);
    }

    /** A short text response the server itself produces (errors, 503), always a fixed body. */
    static EncodedResponse error(int status, String message, Exchange exchange, boolean close) {
        Headers headers = new Headers(4).add("Content-Type", "text/plain; charset=utf-8");
        byte[] text = (message + "\n").getBytes(StandardCharsets.UTF_8);
        headers.add("Content-Length", Integer.toString(text.length));
        boolean http10 = exchange != null && exchange.head != null && exchange.head.minorVersion() == 0;
        boolean keepAlive = exchange != null && exchange.head != null && exchange.head.keepAlive();
        close |= !keepAlive;
        addConnection(headers, close, http10);
        ByteBuffer head = ResponseWriter.head(status, headers);
        boolean headRequest = exchange != null && exchange.isHeadRequest();
        ByteBuffer[] buffers = headRequest ? new ByteBuffer[] {head} : new ByteBuffer[] {head, ByteBuffer.wrap(text)};
        return new EncodedResponse(buffers, null, false, close);
    }

    private static Headers withoutFraming(Headers given) {
        Headers headers = new Headers(given.size() + 2);
        for (int i = 0; i < given.size(); i++) {
            String name = given.name(i);
            if (!name.equalsIgnoreCase("Content-Length") && !name.equalsIgnoreCase("Transfer-Encoding")
                    && !name.equalsIgnoreCase("Connection")) {
                headers.add(name, given.value(i));
            }
        }
        return headers;
    }

    /** RFC 9110 §8.6: a HEAD response carries the length a GET would have; 204 carries none. */
    private static void addLength(Headers headers, int status, int length) {
        if (status != 204 && status != 304) {
            headers.add("Content-Length", Integer.toString(length));
        }
    }

    /** RFC 9112 §9.6 ("close" ends the connection) and §9.3 (an HTTP/1.0 client persists only when told so). */
    private static void addConnection(Headers headers, boolean close, boolean http10) {
        if (close) {
            headers.add("Connection", "close");
        } else if (http10) {
            headers.add("Connection", "keep-alive");
        }
    }

    static void closeQuietly(ChunkSource source) {
        try {
            source.close();
        } catch (RuntimeException e) {
            log.warn("closing a response body source failed", e);
        }
    }
}
