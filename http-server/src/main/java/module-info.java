/**
 * ringkv's HTTP/1.1 and HTTP/2 server over http-core's codecs and net's event loops. Only
 * {@code io.ringkv.http.server} (the handler API, the server and its configuration) is API;
 * {@code io.ringkv.http.server.internal} (sessions, budgets, timeouts) is not exported.
 */
module io.ringkv.http.server {
    // The API names http-core's Headers and H1Limits and net's ChannelOptions and loops.
    requires transitive io.ringkv.http.core;
    requires transitive io.ringkv.net;
    requires org.slf4j;

    exports io.ringkv.http.server;
}
