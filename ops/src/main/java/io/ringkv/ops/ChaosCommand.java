package io.ringkv.ops;

import io.ringkv.ops.chaos.CasRun;
import io.ringkv.ops.chaos.ChaosRun;
import io.ringkv.ops.chaos.Fault;
import io.ringkv.ops.chaos.HistoryChecker.Verdict;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code ringkv chaos}: a fault-injection run against a local cluster of node processes, judged by
 * {@link io.ringkv.ops.chaos.HistoryChecker}. Exit code 0 when the history is valid and the
 * replicas converged, 1 otherwise.
 *
 * <p>This is a terminal program, so it writes to stdout directly.
 */
@Command(name = "chaos", mixinStandardHelpOptions = true,
        description = "Run a workload against a local cluster while killing, pausing or wiping nodes; "
                + "check that no acknowledged write is lost and that replicas converge.")
public final class ChaosCommand implements Callable<Integer> {
    static final int EXIT_VIOLATIONS = 1;

    @Spec
    CommandSpec spec;

    /** What the clients do. */
    enum WorkloadKind {
        /** PUT, DELETE and GET of a few keys, judged by the history checker. */
        REGISTER,
        /** Rounds of concurrent conditional PUTs naming one version, counting double winners ({@link CasRun}). */
        CAS
    }

    @Option(names = "--workload", defaultValue = "REGISTER",
            description = "REGISTER (PUT/DELETE/GET, history checked) or CAS (concurrent If-Match/If-None-Match PUTs "
                    + "through every node, double winners counted; WIPE is refused: a wiped replica forgets its Paxos "
                    + "promises) (default: ${DEFAULT-VALUE}).")
    WorkloadKind workload;

    @Option(names = "--minutes", defaultValue = "1", description = "How long faults are injected (default: ${DEFAULT-VALUE}).")
    double minutes;

    @Option(names = "--seed", description = "Seed of the nemesis's and the clients' choices (default: random, printed).")
    Long seed;

    @Option(names = "--nodes", defaultValue = "3", description = "Number of nodes, 3..9 (default: ${DEFAULT-VALUE}).")
    int nodes;

    @Option(names = "--faults", split = ",", defaultValue = "KILL,PAUSE,WIPE",
            description = "Faults to inject: KILL, PAUSE, WIPE, PARTITION (needs root: nodes in network namespaces), MEMBERSHIP "
                    + "(a spare node joins, then is decommissioned), "
                    + "SKEW (a restart with the clock up to 3 s off, then one with the true clock), "
                    + "JUMP (the running node's clock steps up to 3 s either way, then back) "
                    + "(default: ${DEFAULT-VALUE}).")
    List<Fault> faults;

    @Option(names = "--keys", defaultValue = "20", description = "Keys the workload uses (default: ${DEFAULT-VALUE}).")
    int keys;

    @Option(names = "--clients", defaultValue = "4", description = "Concurrent clients (default: ${DEFAULT-VALUE}).")
    int clients;

    @Option(names = "--rate", defaultValue = "100", description = "Operations per second, all clients together (default: ${DEFAULT-VALUE}).")
    double rate;

    @Option(names = "--converge-timeout", defaultValue = "PT60S", paramLabel = "DURATION",
            description = "How long replicas get to agree after healing, ISO-8601 (default: ${DEFAULT-VALUE}).")
    Duration convergeTimeout;

    @Option(names = "--anti-entropy-interval", defaultValue = "PT10S", paramLabel = "DURATION",
            description = "The nodes' anti-entropy interval, short so that a run can converge (default: ${DEFAULT-VALUE}).")
    Duration antiEntropyInterval;

    @Option(names = "--data", description = "Parent data directory for the nodes (default: a new temporary directory).")
    Path data;

    @Option(names = "--history", paramLabel = "FILE", description = "Where to write the history (default: DATA/history.jsonl).")
    Path history;

    @Override
    public Integer call() throws Exception {
        if (nodes < 3 || nodes > 9) {
            throw new ParameterException(spec.commandLine(), "--nodes must be between 3 and 9, got " + nodes);
        }
        if (minutes <= 0 || keys < 1 || clients < 1 || rate <= 0 || faults.isEmpty()) {
            throw new ParameterException(spec.commandLine(), "--minutes, --keys, --clients and --rate must be positive, --faults not empty");
        }
        if (faults.contains(Fault.MEMBERSHIP) && faults.contains(Fault.PARTITION)) {
            throw new ParameterException(spec.commandLine(), "MEMBERSHIP does not run with PARTITION (the joining node is "
                    + "not in a network namespace)");
        }
        if (workload == WorkloadKind.CAS && faults.contains(Fault.WIPE)) {
            throw new ParameterException(spec.commandLine(), "--workload CAS cannot run with WIPE: a replica whose data is"
                    + " wiped forgets the promises it made, which no Paxos survives; use e.g. --faults KILL,PAUSE");
        }
        long runSeed = seed != null ? seed : System.nanoTime();
        Path root = data != null ? Files.createDirectories(data) : Files.createTempDirectory("ringkv-chaos-");
        Path historyFile = history != null ? history : root.resolve("history.jsonl");
        ChaosRun.Settings settings = new ChaosRun.Settings(root, LocalPorts.free(nodes),
                Duration.ofMillis((long) (minutes * 60_000)), runSeed, faults, keys, clients, rate, convergeTimeout,
                List.of("--anti-entropy-interval", antiEntropyInterval.toString()), historyFile);
        if (workload == WorkloadKind.CAS) {
            CasRun.Result cas = new CasRun(settings, System.out).run();
            printCas(cas, runSeed);
            return cas.passed() ? 0 : EXIT_VIOLATIONS;
        }
        ChaosRun.Result result = new ChaosRun(settings, System.out).run();
        print(result, runSeed);
        return result.passed() ? 0 : EXIT_VIOLATIONS;
    }

    private static void printCas(CasRun.Result result, long seed) {
        System.out.println();
        System.out.println("ringkv chaos --workload CAS: seed " + seed + ", history " + result.history().toAbsolutePath());
        System.out.println("  rounds: " + result.rounds() + ", with one winner: " + result.roundsWon());
        System.out.println("  answers by status (-1: no answer): " + result.statuses());
        System.out.println("  double winners: " + result.doubleWinners());
        System.out.println("  winners whose value was not read back: " + result.lostWinners());
        result.violations().stream().limit(20).forEach(line -> System.out.println("    " + line));
        System.out.println("  verdict: " + (result.passed() ? "PASS" : "FAIL"));
    }

    private static void print(ChaosRun.Result result, long seed) {
        Verdict verdict = result.verdict();
        System.out.println();
        System.out.println("ringkv chaos: seed " + seed + ", history " + result.history().toAbsolutePath());
        System.out.println("  operations: " + verdict.counts().ok() + " ok (" + verdict.counts().writesOk() + " writes acknowledged, "
                + verdict.counts().readsOk() + " reads), " + verdict.counts().fail() + " failed, "
                + verdict.counts().unknown() + " unknown");
        System.out.println("  acknowledged writes lost: " + verdict.lostWrites().size());
        verdict.lostWrites().forEach(line -> System.out.println("    " + line));
        System.out.println("  reads of values never written: " + verdict.phantomReads().size());
        verdict.phantomReads().forEach(line -> System.out.println("    " + line));
        System.out.println("  stale reads during the run: " + verdict.staleReads().size()
                + (verdict.staleReadsAllowed() ? " (allowed: the run wiped data directories)" : ""));
        verdict.staleReads().stream().limit(20).forEach(line -> System.out.println("    " + line));
        System.out.println("  keys unreadable after healing: " + verdict.unreadable().size() + (verdict.unreadable().isEmpty() ? "" : " " + verdict.unreadable()));
        System.out.println("  replicas converged: " + (result.converged() ? "yes, after " + result.convergeMillis() + " ms"
                : "NO within " + result.convergeMillis() + " ms: " + result.diverged().size() + " keys differ, e.g. "
                + result.diverged().subList(0, Math.min(5, result.diverged().size()))));
        System.out.println("  verdict: " + (result.passed() ? "PASS" : "FAIL"));
    }
}
