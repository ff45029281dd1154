/**
 * ringkv's HTTP client: a {@link java.net.http.HttpClient} over http-core's codecs and net's event
 * loops. Only {@code io.ringkv.http.client} is API; {@code io.ringkv.http.client.internal} is not
 * exported.
 */
module io.ringkv.http.client {
    requires transitive java.net.http;
    requires io.ringkv.http.core;
    requires io.ringkv.net;
    requires org.slf4j;

    exports io.ringkv.http.client;
}
