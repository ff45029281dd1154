package io.ringkv.ops;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/** Port choice for local clusters. */
public final class LocalPorts {
    private LocalPorts() {
    }

    /**
     * Ports the OS reports free right now. All sockets are held open until every port is picked,
     * so the list has no duplicates; another program may still take one before a node binds it,
     * in which case that node exits with a clear message.
     */
    public static List<Integer> free(int count) {
        List<ServerSocket> held = new ArrayList<>(count);
        try {
            for (int i = 0; i < count; i++) {
                held.add(new ServerSocket(0, 1, InetAddress.getLoopbackAddress()));
            }
            return held.stream().map(ServerSocket::getLocalPort).toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot find free ports", e);
        } finally {
            held.forEach(LocalPorts::closeQuietly);
        }
    }

    /** Whether a listening socket can be bound to {@code port} on {@code host} right now. */
    public static boolean isFree(String host, int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new java.net.InetSocketAddress(host, port), 1);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    public static List<Integer> consecutive(int base, int count) {
        List<Integer> ports = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            ports.add(base + i);
        }
        return ports;
    }

    private static void closeQuietly(ServerSocket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // Closing a listening socket we just opened; nothing to recover.
        }
    }
}
