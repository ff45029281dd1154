package io.ringkv.http.server;

/** The HTTP version a request arrived over. */
public enum Protocol {
    HTTP_1_1,
    /** HTTP/2, cleartext (h2c). */
    HTTP_2
}
