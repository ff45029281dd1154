/**
 * ringkv's HTTP codecs: HTTP/1.1 parsers and writers, HTTP/2 frames, connection and stream state,
 * HPACK. Bytes in, events and bytes out: no sockets, no threads, no dependencies, so that the
 * client and the server share one protocol engine.
 */
module io.ringkv.http.core {
    exports io.ringkv.http;
    exports io.ringkv.http.h1;
    exports io.ringkv.http.h2;
    exports io.ringkv.http.hpack;
}
