/**
 * TLS for {@code net} connections: {@link io.ringkv.net.tls.TlsConnection} runs an
 * {@link javax.net.ssl.SSLEngine} between a plain connection and the protocol handler, and picks
 * the handler by the ALPN protocol negotiated in the handshake (RFC 7301).
 */
package io.ringkv.net.tls;
