package io.ringkv.http.server;

/** The HTTP version a request arrived over. */
public enum Protocol {
    HTTP_1_1,
    /** HTTP/2: h2c on a cleartext server, h2 (by ALPN) on a TLS one. */
    HTTP_2
}
