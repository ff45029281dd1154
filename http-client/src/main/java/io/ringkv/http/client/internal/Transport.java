package io.ringkv.http.client.internal;

/**
 * The network side of a client: the codec that runs exchanges and the timers. Closed once, when
 * the client terminates.
 */
interface Transport extends AutoCloseable {

    ExchangeCodec codec();

    Scheduler scheduler();

    /** How many routes (origin and proxy) keep connection state: zero once no connection is left and no request waits. */
    int routesHeld();

    /** The connections open now and what they carry; cheap enough to read every few seconds. */
    io.ringkv.http.client.ClientStats stats();

    @Override
    void close();
}
