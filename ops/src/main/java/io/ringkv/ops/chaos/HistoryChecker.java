package io.ringkv.ops.chaos;

import io.ringkv.ops.chaos.Operation.OpType;
import io.ringkv.ops.chaos.Operation.Outcome;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Judges a chaos run's history against what a last-write-wins store with quorum writes promises.
 * Pure: no I/O, no clock; everything it needs is in its arguments.
 *
 * <h2>The rules</h2>
 * <ul>
 *   <li><b>No acknowledged write is lost.</b> After the faults healed, a quorum read of key k
 *       returns the result of some write W of k (or k's initial absence) that nothing acknowledged
 *       provably superseded: no acknowledged write of k was invoked after W completed. A write whose
 *       outcome is {@link Outcome#UNKNOWN} may have been stamped at any time, so it completes "never"
 *       and is never provably superseded; a write that {@link Outcome#FAIL failed} is no candidate.
 *       A {@code 404} matches any DELETE and the initial absence.</li>
 *   <li><b>No read returns a value that was never written</b>, or one whose write definitely failed.
 *       Values are unique per run, so a value names its write.</li>
 *   <li><b>Every key is readable</b> once healed (a final read that fails is reported, not guessed).</li>
 * </ul>
<ul>
 *   <li><b>No read is stale</b>, by the same rule applied to every successful GET during the run:
 *       its result must come from a write (or the key's initial absence) that no acknowledged write
 *       completed before the GET was invoked had provably superseded. Quorum reads and writes
 *       intersect, and a write that replicas find older than what they hold is stamped again, so
 *       this holds under kills, pauses, partitions and skewed clocks. Not after a wiped data
 *       directory: a wiped replica and one that missed a write can answer a quorum read together
 *       before anti-entropy refilled the first, so a run with wipes reports stale reads without
 *       failing on them.</li>
 * </ul>
 * Reads are not checked against each other (a read may see a write of unknown outcome that a later
 * read does not): this is not a full linearizability checker.
 */
public final class HistoryChecker {

    /** The final quorum read of a key after healing: the value, empty for {@code 404}. */
    public record FinalRead(String key, Optional<String> value) {
    }

    /** The completion time of a write that may take effect at any time: never provably superseded. */
    private static final long NEVER = Long.MAX_VALUE;
    /** The completion time of the key's initial absence: before the first invocation. */
    private static final long INITIAL = -1;
    private static final long NO_CANDIDATE = Long.MIN_VALUE;

    private HistoryChecker() {
    }

    /**
     * @param history    every operation of the run, any order
     * @param finalReads one per key read after healing; keys missing here are reported unreadable
     * @param keys       every key the workload used
     */
    public static Verdict check(List<Operation> history, Map<String, FinalRead> finalReads, Set<String> keys) {
        return check(history, finalReads, keys, false);
    }

    /**
     * @param staleReadsAllowed true for a run whose faults include wiped data directories: stale
     *                          reads are still reported ({@link Verdict#staleReads}) but do not
     *                          make the verdict invalid
     */
    public static Verdict check(List<Operation> history, Map<String, FinalRead> finalReads, Set<String> keys,
                                boolean staleReadsAllowed) {
        Map<String, Operation> putsByValue = new HashMap<>();
        Map<String, List<Operation>> writesByKey = new HashMap<>();
        for (Operation op : history) {
            if (op.isWrite()) {
                writesByKey.computeIfAbsent(op.key(), k -> new ArrayList<>()).add(op);
                if (op.type() == OpType.PUT) {
                    putsByValue.put(op.value(), op);
                }
            }
        }
        List<String> lost = new ArrayList<>();
        List<String> unreadable = new ArrayList<>();
        for (String key : keys) {
            FinalRead read = finalReads.get(key);
            if (read == null) {
                unreadable.add(key);
                continue;
            }
            List<Operation> writes = writesByKey.getOrDefault(key, List.of());
            Optional<String> problem = lostWrite(key, read.value(), writes, putsByValue);
            problem.ifPresent(lost::add);
        }
        List<String> phantoms = phantomReads(history, putsByValue, finalReads);
        List<String> stale = new ArrayList<>();
        for (Operation read : history) {
            if (read.type() == OpType.GET && read.outcome() == Outcome.OK) {
                List<Operation> before = new ArrayList<>();
                for (Operation write : writesByKey.getOrDefault(read.key(), List.of())) {
                    // The read may have seen any write invoked before it completed; of those, the
                    // acknowledged ones that completed before it was invoked supersede (lostWrite).
                    if (write.invokeNanos() < read.completeNanos()) {
                        before.add(write);
                    }
                }
                lostWrite(read.key(), Optional.ofNullable(read.value()), before, putsByValue, read.invokeNanos())
                        .ifPresent(problem -> stale.add("GET by client " + read.client() + " at " + read.invokeNanos() / 1_000_000
                                + " ms: " + problem));
            }
        }
        return new Verdict(Counts.of(history), lost, phantoms, unreadable, stale, staleReadsAllowed);
    }

    /** Empty when the final result is explained by a write nothing acknowledged superseded. */
    private static Optional<String> lostWrite(String key, Optional<String> result, List<Operation> writes,
                                              Map<String, Operation> putsByValue) {
        return lostWrite(key, result, writes, putsByValue, Long.MAX_VALUE);
    }

    /**
     * @param readInvoked only acknowledged writes that completed before this count as superseding
     *                    (the final reads: after everything)
     */
    private static Optional<String> lostWrite(String key, Optional<String> result, List<Operation> writes,
                                              Map<String, Operation> putsByValue, long readInvoked) {
        long latestAcknowledgedInvoke = -1;
        Operation latestAcknowledged = null;
        for (Operation write : writes) {
            if (write.outcome() == Outcome.OK && write.completeNanos() < readInvoked && write.invokeNanos() > latestAcknowledgedInvoke) {
                latestAcknowledgedInvoke = write.invokeNanos();
                latestAcknowledged = write;
            }
        }
        // The candidates whose result matches, with the time each provably took effect by.
        long bestCompletion = NO_CANDIDATE;
        if (result.isEmpty()) {
            bestCompletion = INITIAL; // the initial absence, in place before anything was invoked
            for (Operation write : writes) {
                if (write.type() == OpType.DELETE && write.outcome() != Outcome.FAIL) {
                    bestCompletion = Math.max(bestCompletion, effectiveCompletion(write));
                }
            }
        } else {
            Operation put = putsByValue.get(result.get());
            if (put != null && put.key().equals(key) && put.outcome() != Outcome.FAIL && writes.contains(put)) {
                bestCompletion = effectiveCompletion(put);
            }
        }
        if (bestCompletion == NO_CANDIDATE) {
            return Optional.of(key + ": " + (readInvoked == Long.MAX_VALUE ? "final read " : "read ") + describe(result)
                    + " matches no write that may have taken effect");
        }
        if (latestAcknowledged != null && latestAcknowledgedInvoke > bestCompletion) {
            return Optional.of(key + ": " + (readInvoked == Long.MAX_VALUE ? "final read " : "read ") + describe(result) + ", but " + latestAcknowledged.type()
                    + (latestAcknowledged.value() == null ? "" : " " + latestAcknowledged.value())
                    + " by client " + latestAcknowledged.client() + " was acknowledged and invoked after that result's write completed");
        }
        return Optional.empty();
    }

    private static long effectiveCompletion(Operation write) {
        return write.outcome() == Outcome.OK ? write.completeNanos() : NEVER;
    }

    private static List<String> phantomReads(List<Operation> history, Map<String, Operation> putsByValue,
                                             Map<String, FinalRead> finalReads) {
        List<String> phantoms = new ArrayList<>();
        Set<String> reported = new HashSet<>();
        List<ReadSeen> reads = new ArrayList<>();
        for (Operation op : history) {
            if (op.type() == OpType.GET && op.outcome() == Outcome.OK && op.value() != null) {
                reads.add(new ReadSeen(op.key(), op.value(), "GET by client " + op.client()));
            }
        }
        finalReads.values().forEach(read -> read.value().ifPresent(v -> reads.add(new ReadSeen(read.key(), v, "final read"))));
        for (ReadSeen read : reads) {
            Operation put = putsByValue.get(read.value());
            String problem = null;
            if (put == null || !put.key().equals(read.key())) {
                problem = read.source() + " of " + read.key() + " returned " + read.value() + ", never written to that key";
            } else if (put.outcome() == Outcome.FAIL) {
                problem = read.source() + " of " + read.key() + " returned " + read.value() + ", whose PUT definitely failed (" + put.detail() + ")";
            }
            if (problem != null && reported.add(read.key() + "\n" + read.value())) {
                phantoms.add(problem);
            }
        }
        return phantoms;
    }

    private record ReadSeen(String key, String value, String source) {
    }

    private static String describe(Optional<String> result) {
        return result.map(v -> "'" + v + "'").orElse("404");
    }

    /** Operations by type and outcome, for the summary line. */
    public record Counts(int ok, int fail, int unknown, int writesOk, int readsOk) {
        static Counts of(List<Operation> history) {
            int ok = 0, fail = 0, unknown = 0, writesOk = 0, readsOk = 0;
            for (Operation op : history) {
                switch (op.outcome()) {
                    case OK -> {
                        ok++;
                        if (op.isWrite()) {
                            writesOk++;
                        } else {
                            readsOk++;
                        }
                    }
                    case FAIL -> fail++;
                    case UNKNOWN -> unknown++;
                }
            }
            return new Counts(ok, fail, unknown, writesOk, readsOk);
        }
    }

    /**
     * The checker's findings; {@link #valid()} when none of the rules was broken.
     *
     * @param lostWrites   one line per key whose final value lost an acknowledged write
     * @param phantomReads one line per value read that no possible write produced
     * @param unreadable   keys whose final read could not be made
     * @param staleReads   one line per GET during the run that returned a value an acknowledged
     *                     write had provably superseded before the GET was invoked
     * @param staleReadsAllowed whether stale reads were expected (wiped data directories) and so
     *                     do not make the verdict invalid
     */
    public record Verdict(Counts counts, List<String> lostWrites, List<String> phantomReads, List<String> unreadable,
                          List<String> staleReads, boolean staleReadsAllowed) {
        public boolean valid() {
            return lostWrites.isEmpty() && phantomReads.isEmpty() && unreadable.isEmpty()
                    && (staleReadsAllowed || staleReads.isEmpty());
        }
    }
}
