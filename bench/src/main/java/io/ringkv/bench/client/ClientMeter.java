package io.ringkv.bench.client;

import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What the client costs besides time, with the server's share taken out (client and server run
 * in one JVM):
 * <ul>
 *   <li>bytes allocated: all threads' total ({@code getTotalThreadAllocatedBytes}, which keeps the
 *       bytes of threads that ended) minus the bytes allocated by the threads of
 *       {@link BenchServer#THREAD_GROUP} (a fixed pool that lives for the whole trial);</li>
 *   <li>threads started since the client was built: the JVM's started-thread count minus the
 *       server-group threads that were not there at the mark.</li>
 * </ul>
 * Whatever else runs in the JVM (JMH's own bookkeeping, the benchmark's completion callbacks) is
 * charged to the client; it is small and the same for every client.
 *
 * <p>Threading: {@link #markClientStart()} on the benchmark thread during setup; the readings from
 * JMH's profiler hooks on the same or a later thread (the fields are volatile).
 */
public final class ClientMeter {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private static volatile long startedAtMark = -1;
    private static volatile Set<Long> serverThreadsAtMark = Set.of();
    /** The reading taken as the trial's teardown began; {@code null} until then. */
    private static volatile long[] atTrialEnd;

    private ClientMeter() {
    }

    /** Call after the server started and before the client is built. */
    public static void markClientStart() {
        serverThreadsAtMark = serverThreadIds();
        startedAtMark = THREADS.getTotalStartedThreadCount();
    }

    /** Threads started since the mark, not counting the server's; -1 before any mark. */
    public static long clientThreadsStarted() {
        if (startedAtMark < 0) {
            return -1;
        }
        Set<Long> serverNow = serverThreadIds();
        serverNow.removeAll(serverThreadsAtMark);
        return THREADS.getTotalStartedThreadCount() - startedAtMark - serverNow.size();
    }

    /** Names of live threads not in the server's group: for the log, to see what the client runs. */
    public static String liveNonServerThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getThreadGroup() != BenchServer.THREAD_GROUP)
                .map(Thread::getName).sorted().collect(Collectors.joining(", "));
    }

    /**
     * Call first thing in the trial's teardown. JMH runs that teardown inside the last measured
     * iteration, so closing the client and the server (whose threads, once ended, would no longer
     * be subtracted) would be charged to that iteration's requests; the profiler ends the
     * iteration at this reading instead.
     */
    public static void markTrialEnd() {
        atTrialEnd = allocatedBytes();
    }

    /**
     * The reading that ends an iteration: the one {@link #markTrialEnd} took if the trial ended
     * during it (since {@link #forgetTrialEnd}), else a reading now.
     */
    static long[] allocatedBytesAtIterationEnd() {
        long[] end = atTrialEnd;
        return end != null ? end : allocatedBytes();
    }

    /** Called as each iteration begins: a trial end marked before it belongs to an earlier trial. */
    static void forgetTrialEnd() {
        atTrialEnd = null;
    }

    /** A reading of allocated bytes: [all threads, server threads]. */
    public static long[] allocatedBytes() {
        long total = THREADS.getTotalThreadAllocatedBytes();
        long server = Arrays.stream(THREADS.getThreadAllocatedBytes(toArray(serverThreadIds())))
                .filter(b -> b > 0).sum();
        return new long[] {total, server};
    }

    private static long[] toArray(Set<Long> ids) {
        return ids.stream().mapToLong(Long::longValue).toArray();
    }

    private static Set<Long> serverThreadIds() {
        Thread[] threads = new Thread[BenchServer.THREAD_GROUP.activeCount() + 16];
        int n = BenchServer.THREAD_GROUP.enumerate(threads, true);
        return new HashSet<>(List.of(Arrays.copyOf(threads, n)).stream().map(Thread::threadId).toList());
    }
}
