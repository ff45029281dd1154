package io.ringkv.node;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts every thread of this JVM under Linux's {@code SCHED_IDLE} policy, and later back under
 * {@code SCHED_OTHER}: a node that joins a cluster runs so until its join is over. Under
 * {@code SCHED_IDLE} a thread runs only when no other thread of the machine wants the CPU, and is
 * preempted the moment one wakes up, whatever session or scheduling group either is in (a nice
 * value, by contrast, weighs a thread only against those of its own session when the kernel groups
 * sessions, as it does by default). Where the serving nodes share the machine with the new one
 * (a local cluster, several nodes per host), the new JVM's start, its compiler threads and its
 * writes of what it receives then take only the CPU the serving nodes leave: in {@code ./ringkv
 * bench --membership}, a replacement's GET p99 fell from 436 ± 125 to 194 ± 50 ms and a join's
 * from 294 ± 119 to 163 ± 64 (eight rounds each, docs/benchmarks.md), with steps no longer. On a
 * machine of its own nothing else wants the CPU and nothing changes.
 *
 * <p>Only where the policy can be left again: an unprivileged process may leave {@code SCHED_IDLE}
 * only within its {@code RLIMIT_NICE} (root, or {@code CAP_SYS_NICE}, always can), so {@link #enter}
 * first tries both ways on a thread of its own and does nothing where the way back is refused,
 * rather than leave a serving node idle for good. Threads started later inherit their starter's
 * policy, so {@link #leave} goes over the threads until none is left idle.
 *
 * <p>The calls are {@code sched_setscheduler(2)} and {@code sched_getscheduler(2)} through the
 * foreign function API (the JVM needs {@code --enable-native-access}, which the launcher gives it);
 * thread ids from {@code /proc/self/task}.
 *
 * <p>Threading: {@link #enter} and {@link #leave} from one thread at a time.
 */
final class IdleScheduling {
    private static final Logger LOG = LoggerFactory.getLogger(IdleScheduling.class);
    static final int SCHED_OTHER = 0;
    static final int SCHED_IDLE = 5;
    /** Passes of {@link #leave} over the threads at most: a thread an idle one started meanwhile is met by the next. */
    private static final int LEAVE_PASSES = 5;
    private static final Path TASKS = Path.of("/proc/self/task");

    private final MethodHandle setScheduler;
    private final MethodHandle getScheduler;

    private IdleScheduling(MethodHandle setScheduler, MethodHandle getScheduler) {
        this.setScheduler = setScheduler;
        this.getScheduler = getScheduler;
    }

    /**
     * Every thread of this JVM under {@code SCHED_IDLE}; @return the means to {@link #leave} it, or
     * null where that cannot be done both ways (not Linux, the calls missing, the way back refused:
     * logged, and nothing changed)
     */
    static IdleScheduling enter() {
        IdleScheduling scheduling = bind();
        if (scheduling == null) {
            return null;
        }
        if (scheduling.policyOf(0) != SCHED_OTHER) {
            LOG.info("the node was started under scheduling policy {}: left as it is while it joins", scheduling.policyOf(0));
            return null;
        }
        String refused = scheduling.probe();
        if (refused != null) {
            LOG.info("the node runs at its usual CPU priority while it joins: {}", refused);
            return null;
        }
        int threads = scheduling.setAll(SCHED_OTHER, SCHED_IDLE);
        LOG.info("while it joins, the node's {} threads run under SCHED_IDLE: they take only the CPU no other process "
                + "wants (--join-priority normal: as usual)", threads);
        return scheduling;
    }

    /** Every thread of this JVM back under {@code SCHED_OTHER}. */
    void leave() {
        int moved = 0;
        for (int pass = 0; pass < LEAVE_PASSES; pass++) {
            int now = setAll(SCHED_IDLE, SCHED_OTHER);
            moved += now;
            if (now == 0) {
                break;
            }
        }
        LOG.info("the join is over: the node's threads run at the usual CPU priority again ({} moved)", moved);
    }

    /**
     * The policy of the thread {@code tid} ({@link #SCHED_OTHER}, {@link #SCHED_IDLE}, ...; 0: the
     * calling thread), or -1 where it is gone.
     */
    int policyOf(long tid) {
        try {
            return (int) getScheduler.invokeExact((int) tid);
        } catch (Throwable e) {
            throw new IllegalStateException("sched_getscheduler", e);
        }
    }

    /** This JVM's thread ids now. */
    static List<Long> threadIds() {
        try (Stream<Path> tasks = Files.list(TASKS)) {
            return tasks.map(task -> Long.parseLong(task.getFileName().toString())).toList();
        } catch (IOException e) {
            throw new IllegalStateException("cannot list " + TASKS, e);
        }
    }

    /** The calls, or null where they cannot be had (logged). */
    static IdleScheduling bind() {
        if (!System.getProperty("os.name", "").equals("Linux") || !Files.isDirectory(TASKS)) {
            LOG.info("the node runs at its usual CPU priority while it joins: SCHED_IDLE is Linux's");
            return null;
        }
        try {
            Linker linker = Linker.nativeLinker();
            MemorySegment set = linker.defaultLookup().find("sched_setscheduler").orElseThrow();
            MemorySegment get = linker.defaultLookup().find("sched_getscheduler").orElseThrow();
            return new IdleScheduling(
                    linker.downcallHandle(set, FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                            ValueLayout.JAVA_INT, ValueLayout.ADDRESS)),
                    linker.downcallHandle(get, FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT)));
        } catch (RuntimeException | LinkageError e) {
            LOG.info("the node runs at its usual CPU priority while it joins: cannot call sched_setscheduler ({})",
                    e.toString());
            return null;
        }
    }

    /** Tries SCHED_IDLE and back on a thread of its own; @return why that failed, or null. */
    private String probe() {
        String[] refused = new String[1];
        Thread probe = Thread.ofPlatform().name("ringkv-idle-probe").unstarted(() -> {
            if (set(0, SCHED_IDLE) != 0) {
                refused[0] = "sched_setscheduler(SCHED_IDLE) refused";
            } else if (set(0, SCHED_OTHER) != 0) {
                refused[0] = "this process may not leave SCHED_IDLE again (RLIMIT_NICE below 20, no CAP_SYS_NICE)";
            }
        });
        probe.start();
        try {
            probe.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
        return refused[0];
    }

    /** Moves every thread under policy {@code from} to {@code to}; @return how many it moved. */
    private int setAll(int from, int to) {
        int moved = 0;
        for (long tid : threadIds()) {
            if (policyOf(tid) == from && set(tid, to) == 0) {
                moved++;
            }
        }
        return moved;
    }

    /** sched_setscheduler(tid, policy, priority 0); @return 0, or -1 (a thread gone meanwhile, or refused) */
    private int set(long tid, int policy) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment param = arena.allocate(ValueLayout.JAVA_INT); // struct sched_param { int sched_priority; } = 0
            return (int) setScheduler.invokeExact((int) tid, policy, param);
        } catch (Throwable e) {
            throw new IllegalStateException("sched_setscheduler", e);
        }
    }
}
