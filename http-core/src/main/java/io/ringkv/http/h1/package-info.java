/**
 * HTTP/1.1 message syntax and framing (RFC 9110, RFC 9112): an incremental, strict
 * {@link io.ringkv.http.h1.RequestParser} and pure encoding helpers. Bytes in, events out; no
 * I/O, no threads, no pooling.
 */
package io.ringkv.http.h1;
