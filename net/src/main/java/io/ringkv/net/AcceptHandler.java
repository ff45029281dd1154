package io.ringkv.net;

import java.net.InetSocketAddress;

/** Decides what to do with a newly accepted connection. Called on the accepting loop; must not block. */
@FunctionalInterface
public interface AcceptHandler {

    /**
     * @return the handler for the new connection, or {@code null} to refuse it (the socket is then
     *         closed at once, e.g. because a connection limit is reached)
     */
    ConnectionHandler newHandler(InetSocketAddress remote);
}
