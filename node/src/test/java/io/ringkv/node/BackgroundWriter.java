package io.ringkv.node;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Plain PUTs at the default replicas from one thread, spread over some nodes of a
 * {@link ProcessCluster}, while a test changes the cluster under them: every other write is a new
 * key, the others overwrite keys written before, so both fresh keys and newer versions of moved
 * keys must survive. Each write acknowledged with 201 goes into the shared {@code acknowledged}
 * map (key to value); any other answer, or no answer, is a failure.
 *
 * <p>Threading: {@link #start} and {@link #stop} from the test thread; the writes run on their own
 * thread, which is the only one to put into {@code acknowledged} until {@link #stop} returns.
 */
final class BackgroundWriter {
    /** Values of about 1 KB, as the brief's load: the key and the write's number make each one unique. */
    private static final String PADDING = "x".repeat(1000);
    /** A pause between writes, so that the writer loads the two-core machine modestly; not a rate the test checks. */
    private static final long PAUSE_MILLIS = 5;

    private final ProcessCluster cluster;
    private final int[] nodes;
    private final String prefix;
    private final Map<String, String> acknowledged;
    private final List<String> overwritable;
    private final List<String> failures = java.util.Collections.synchronizedList(new ArrayList<>());
    private final AtomicLong writes = new AtomicLong();
    private final Thread thread;
    private volatile boolean stopping;

    /**
     * @param nodes        the cluster indexes the writes go through, in turn
     * @param prefix       the new keys' prefix (unique per writer)
     * @param acknowledged where acknowledged writes go (shared by the writers of a test class)
     * @param overwritable keys written before that this writer writes again
     */
    BackgroundWriter(ProcessCluster cluster, int[] nodes, String prefix, Map<String, String> acknowledged, List<String> overwritable) {
        this.cluster = cluster;
        this.nodes = nodes.clone();
        this.prefix = prefix;
        this.acknowledged = acknowledged;
        this.overwritable = List.copyOf(overwritable);
        this.thread = new Thread(this::run, "writer-" + prefix);
        this.thread.setDaemon(true);
    }

    static String value(String key, long write) {
        return key + "#" + write + "#" + PADDING;
    }

    BackgroundWriter start() {
        thread.start();
        return this;
    }

    /** Writes answered so far, acknowledged or not. */
    long writes() {
        return writes.get();
    }

    /** Waits until {@code more} writes beyond the current count were answered (or the writer ended). */
    void awaitMore(long more) throws InterruptedException {
        long target = writes.get() + more;
        while (writes.get() < target && thread.isAlive()) {
            Thread.sleep(20);
        }
    }

    /** Ends the writes and returns the failures, each as "key through node-i: what happened". */
    List<String> stop() throws InterruptedException {
        stopping = true;
        thread.join();
        return List.copyOf(failures);
    }

    private void run() {
        long n = 0;
        while (!stopping) {
            String key = n % 2 == 0 || overwritable.isEmpty() ? String.format("%s%06d", prefix, n)
                    : overwritable.get((int) (n / 2 % overwritable.size()));
            int node = nodes[(int) (n % nodes.length)];
            String value = value(key, n);
            try {
                HttpResponse<String> put = cluster.put(node, key, value, null);
                if (put.statusCode() == 201) {
                    acknowledged.put(key, value);
                } else {
                    failures.add(key + " through node-" + node + ": " + put.statusCode() + " " + put.body().strip());
                }
            } catch (Exception e) {
                failures.add(key + " through node-" + node + ": " + e);
            }
            writes.incrementAndGet();
            n++;
            try {
                Thread.sleep(PAUSE_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }
}
