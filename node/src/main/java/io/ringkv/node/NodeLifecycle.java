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
    /** System.nanoTime when the node began serving; meaningful once the phase has left STARTING. */
    private volatile long servingSinceNanos;

    Phase phase() {
        return phase;
    }

    void serving() {
        servingSinceNanos = System.nanoTime();
        phase = Phase.SERVING;
    }

    void stopping() {
        phase = Phase.STOPPING;
    }

    /** How long the node has served (0 while it starts): unlike the uptime, without the start itself. */
    long servingMillis() {
        return phase == Phase.STARTING ? 0 : (System.nanoTime() - servingSinceNanos) / 1_000_000;
    }

    long uptimeMillis() {
        return (System.nanoTime() - startedNanos) / 1_000_000;
    }

    long startedMillis() {
        return startedMillis;
    }
}
