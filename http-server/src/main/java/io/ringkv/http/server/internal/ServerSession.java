package io.ringkv.http.server.internal;

import io.ringkv.net.EventLoop;

/** What the server's context needs of an open connection of either protocol: drain it, or abort it. */
interface ServerSession {

    EventLoop loop();

    /** Graceful shutdown has begun: finish what was accepted, take nothing new, then close. Loop thread. */
    void beginDrain();

    /** Any thread: close now. */
    void abort();
}
