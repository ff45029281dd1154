package io.ringkv.http.client.internal;

/**
 * The network side of a client: the codec that runs exchanges and the timers. Closed once, when
 * the client terminates.
 */
interface Transport extends AutoCloseable {

    ExchangeCodec codec();

    Scheduler scheduler();

    @Override
    void close();
}
