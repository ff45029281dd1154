package io.ringkv.node;

/**
 * Where a node is in its life, for {@code /v0/status}: starting (port bound, the rest being
 * opened), serving, or stopping (from the first moment of a shutdown). Also when it started.
 *
 * <p>Threading: the phase is written by the starting and stopping thread, read by any.
 */
final class NodeLifecycle {

    enum Phase {
        STARTING, SERVING, STOPPING;

        /** As the status JSON spells it. */
        String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    private final long startedNanos = System.nanoTime();
    private final long startedMillis = System.currentTimeMillis();
    private volatile Phase phase = Phase.STARTING;

    Phase phase() {
        return phase;
    }

    void serving() {
        phase = Phase.SERVING;
    }

    void stopping() {
        phase = Phase.STOPPING;
    }

    long uptimeMillis() {
        return (System.nanoTime() - startedNanos) / 1_000_000;
    }

    long startedMillis() {
        return startedMillis;
    }
}
