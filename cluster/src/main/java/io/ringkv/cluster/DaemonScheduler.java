package io.ringkv.cluster;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * A scheduler with one daemon thread of its own, named for its job: what each of a node's
 * periodic or background jobs runs on (cleanup and hand-over, anti-entropy, hint replay,
 * tombstone collection, the clock check, peer probes, the metadata poll). Daemon, so that none
 * keeps a JVM alive after the node closed.
 *
 * <p>Threading: {@link #named} from any thread.
 */
final class DaemonScheduler {
    private DaemonScheduler() {
    }

    /** A scheduler whose one daemon thread is named {@code name}. */
    static ScheduledExecutorService named(String name) {
        return Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, name);
            thread.setDaemon(true);
            return thread;
        });
    }
}
