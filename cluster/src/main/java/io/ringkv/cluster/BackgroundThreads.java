package io.ringkv.cluster;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The threads a node's background work runs on, one per job, each the only thread of its own
 * scheduler: cleanup and hand-over ({@code ringkv-cleanup}), anti-entropy, hint replay, tombstone
 * collection. None of them answers a client; each works through its backlog at its own pace.
 *
 * <p>Threading: {@link #single} from any thread.
 */
final class BackgroundThreads {
    private BackgroundThreads() {
    }

    /** A scheduler whose one daemon thread is named {@code name}. */
    static ScheduledExecutorService single(String name) {
        return Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, name);
            thread.setDaemon(true);
            return thread;
        });
    }
}
