package io.ringkv.http.server;

import io.ringkv.http.Headers;
import java.nio.charset.StandardCharsets;

/**
 * A response produced by a handler.
 *
 * <p>The server adds {@code Content-Length} for fixed bodies, {@code Transfer-Encoding: chunked}
 * for streamed ones, and {@code Date}/{@code Connection} as the protocol needs; handlers set
 * only their own fields.
 *
 * @param status  the status code, 100..599 (1xx are not allowed here)
 * @param headers response header fields set by the handler
 * @param body    what follows the header block
 */
public record Response(int status, Headers headers, ResponseBody body) {

    public static Response of(int status) {
        return new Response(status, new Headers(2), ResponseBody.empty());
    }

    public static Response of(int status, byte[] body) {
        return new Response(status, new Headers(2), ResponseBody.of(body));
    }

    /** A short UTF-8 text body, e.g. an error message for a 4xx. */
    public static Response text(int status, String message) {
        Headers headers = new Headers(2).add("Content-Type", "text/plain; charset=utf-8");
        return new Response(status, headers, ResponseBody.of((message + "\n").getBytes(StandardCharsets.UTF_8)));
    }

    public static Response streamed(int status, ChunkSource source) {
        return new Response(status, new Headers(2), ResponseBody.streamed(source));
    }

    public Response withHeader(String name, String value) {
        headers.add(name, value);
        return this;
    }
}
