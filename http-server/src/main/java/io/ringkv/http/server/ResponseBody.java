package io.ringkv.http.server;

/** What follows a response's header block: nothing, a fixed byte array, or a stream of chunks. */
public sealed interface ResponseBody {

    static ResponseBody empty() {
        return Empty.INSTANCE;
    }

    /** The array is wrapped, not copied: the handler must not change it afterwards. */
    static ResponseBody of(byte[] bytes) {
        return new Fixed(bytes);
    }

    static ResponseBody streamed(ChunkSource source) {
        return new Streamed(source);
    }

    enum Empty implements ResponseBody { INSTANCE }

    record Fixed(byte[] bytes) implements ResponseBody { }

    /** Sent with {@code Transfer-Encoding: chunked} on HTTP/1.1, as DATA frames on HTTP/2. */
    record Streamed(ChunkSource source) implements ResponseBody { }
}
