package io.ringkv.node;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * What a slow-body attack does whatever its protocol ({@link BodyHoldAttack} over HTTP/1.1,
 * {@link H2BodyHoldAttack} over HTTP/2): waves of connections pushed at once, each announcing a
 * body and sending all of it but a tail; the connections the node did not cut off held; and once a
 * second a little more of every held tail, never its end. How a connection is opened, pushed,
 * trickled and closed is its protocol's part, a {@link Protocol}.
 *
 * <p>Threading: {@link #wave} and {@link #close} from the test thread; pushes run on a pool of the
 * attack's threads, the trickle on a thread of its own. The list of held connections is guarded by
 * its own lock, which {@link #forEachHeld} and the trickle hold while they visit it, so a
 * connection is never trickled and read at once.
 *
 * @param <C> the protocol's connection
 */
final class HeldBodies<C> implements AutoCloseable {
    /** The bytes each body keeps back after its push: min(64 KiB, half the body). */
    private static final int MAX_TAIL_BYTES = 64 * 1024;

    /** The protocol's part of the attack. */
    interface Protocol<C> {
        /**
         * Opens a connection, announces a body of {@code bodyBytes} and sends all of it but
         * {@code tail}; the connection, or empty when the node cut it off before that.
         */
        Optional<C> push(int bodyBytes, int tail) throws IOException;

        /** Sends one second's share of the connection's tail, never its last byte; gives the connection up when the node closed it. */
        void trickle(C connection);

        /** Closes the connection, which the node may have closed already. */
        void close(C connection);
    }

    private final Protocol<C> protocol;
    private final List<C> held = Collections.synchronizedList(new ArrayList<>());
    private final ExecutorService pushers = Executors.newFixedThreadPool(16);
    private final ScheduledExecutorService trickler = Executors.newSingleThreadScheduledExecutor();

    HeldBodies(Protocol<C> protocol) {
        this.protocol = protocol;
        trickler.scheduleWithFixedDelay(this::trickle, 1, 1, TimeUnit.SECONDS);
    }

    /**
     * Opens {@code connections} connections at once, each announcing {@code bodyBytes} and pushing
     * all but a tail of min(64 KiB, half); returns when every push has ended (sent, or cut off by
     * the node).
     */
    void wave(int connections, int bodyBytes) throws Exception {
        int tail = Math.min(MAX_TAIL_BYTES, bodyBytes / 2);
        List<Future<?>> pushes = new ArrayList<>();
        for (int i = 0; i < connections; i++) {
            pushes.add(pushers.submit(() -> {
                protocol.push(bodyBytes, tail).ifPresent(held::add);
                return null;
            }));
        }
        for (Future<?> push : pushes) {
            push.get(60, TimeUnit.SECONDS);
        }
    }

    /** Visits every held connection, in the order they were held, with no trickle meanwhile. */
    void forEachHeld(Consumer<C> visit) {
        synchronized (held) {
            held.forEach(visit);
        }
    }

    private void trickle() {
        forEachHeld(protocol::trickle);
    }

    @Override
    public void close() {
        trickler.shutdownNow();
        pushers.shutdownNow();
        forEachHeld(protocol::close);
    }
}
