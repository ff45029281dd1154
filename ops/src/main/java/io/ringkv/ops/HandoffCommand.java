package io.ringkv.ops;

import io.ringkv.ops.chaos.HandoffReport;
import io.ringkv.ops.chaos.HandoffRun;
import io.ringkv.ops.chaos.NetworkNamespaces;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code ringkv handoff-run} (hidden; {@code ./ringkv bench --handoff} runs it and files the
 * result): one {@link HandoffRun}, whether hinted handoff alone catches a partitioned node up,
 * with its result as JSON and a summary on stdout. Exit code 0 when the run was measured (met or
 * missed, the JSON says which), 1 when it could not run (no root or {@code ip netns}, a node did
 * not start), 2 for bad flags.
 *
 * <p>This is a terminal program, so it writes to stdout directly.
 */
@Command(name = "handoff-run", hidden = true, mixinStandardHelpOptions = true,
        description = "Partition one of three nodes under a paced write load, heal, and time how long hinted "
                + "handoff alone (anti-entropy off) takes to bring it every acknowledged write. Needs root.")
public final class HandoffCommand implements Callable<Integer> {
    static final int EXIT_CANNOT_RUN = 1;
    private static final double PARTITION_MINUTES_MAX = 120;
    private static final double RATE_MAX = 20_000;
    private static final Duration TIMEOUT_MAX = Duration.ofHours(2);

    @Spec
    CommandSpec spec;

    @Option(names = "--partition-minutes", defaultValue = "5", description = "How long the node is cut off (default: ${DEFAULT-VALUE}).")
    double partitionMinutes;

    @Option(names = "--rate", defaultValue = "1000", description = "Writes per second through the two other nodes (default: ${DEFAULT-VALUE}).")
    double rate;

    @Option(names = "--seed", description = "Picks the partitioned node and the values (default: random, printed).")
    Long seed;

    @Option(names = "--warm-up-seconds", defaultValue = "10", description = "Load before the partition (default: ${DEFAULT-VALUE}).")
    int warmUpSeconds;

    @Option(names = "--catch-up-timeout", defaultValue = "PT5M", paramLabel = "DURATION",
            description = "How long after the heal the node gets, ISO-8601 (default: ${DEFAULT-VALUE}).")
    Duration catchUpTimeout;

    @Option(names = "--target", defaultValue = "PT60S", paramLabel = "DURATION",
            description = "The catch-up time the verdict is against, ISO-8601 (default: ${DEFAULT-VALUE}, issue 18).")
    Duration target;

    @Option(names = "--data", description = "Parent data directory for the nodes (default: a new temporary directory).")
    Path data;

    @Option(names = "--json", paramLabel = "FILE", description = "Where to write the result (default: DATA/handoff.json).")
    Path json;

    @Override
    public Integer call() throws Exception {
        validate();
        long runSeed = seed != null ? seed : System.nanoTime();
        Path root = data != null ? Files.createDirectories(data) : Files.createTempDirectory("ringkv-handoff-");
        Path jsonFile = json != null ? json : root.resolve("handoff.json");
        String unavailable = NetworkNamespaces.unavailableReason();
        if (unavailable != null) {
            System.err.println("ringkv handoff-run: cannot partition nodes: " + unavailable);
            return EXIT_CANNOT_RUN;
        }
        HandoffRun.Settings settings = new HandoffRun.Settings(root, LocalPorts.free(3), Duration.ofSeconds(warmUpSeconds),
                Duration.ofMillis(Math.round(partitionMinutes * 60_000)), rate, runSeed, catchUpTimeout);
        Path nodeLog = root.resolve("nodes.log");
        System.out.println("ringkv handoff-run: seed " + runSeed + ", data " + root + ", node output in " + nodeLog);
        HandoffRun.Result result;
        try (PrintStream nodeOutput = new PrintStream(new FileOutputStream(nodeLog.toFile()), true, StandardCharsets.UTF_8)) {
            result = new HandoffRun(settings, System.out, nodeOutput).run();
        } catch (IllegalStateException e) {
            System.err.println("ringkv handoff-run: the run failed: " + e.getMessage() + " (node output: " + nodeLog + ")");
            return EXIT_CANNOT_RUN;
        }
        HandoffReport report = new HandoffReport(result, target);
        if (jsonFile.toAbsolutePath().getParent() != null) {
            Files.createDirectories(jsonFile.toAbsolutePath().getParent());
        }
        Files.writeString(jsonFile, report.json(), StandardCharsets.UTF_8);
        System.out.println();
        report.summary().forEach(line -> System.out.println("  " + line));
        System.out.println("  result: " + jsonFile.toAbsolutePath());
        return 0;
    }

    private void validate() {
        if (!(partitionMinutes > 0) || partitionMinutes > PARTITION_MINUTES_MAX) {
            throw usage("--partition-minutes must be above 0 and at most " + PARTITION_MINUTES_MAX + ", got " + partitionMinutes);
        }
        if (!(rate > 0) || rate > RATE_MAX) {
            throw usage("--rate must be above 0 and at most " + RATE_MAX + " writes/s, got " + rate);
        }
        if (warmUpSeconds < 0 || warmUpSeconds > 3600) {
            throw usage("--warm-up-seconds must be between 0 and 3600, got " + warmUpSeconds);
        }
        if (!catchUpTimeout.isPositive() || catchUpTimeout.compareTo(TIMEOUT_MAX) > 0) {
            throw usage("--catch-up-timeout must be positive and at most " + TIMEOUT_MAX + ", got " + catchUpTimeout);
        }
        if (!target.isPositive()) {
            throw usage("--target must be positive, got " + target);
        }
        if (data != null && Files.isDirectory(data)) {
            try (Stream<Path> entries = Files.list(data)) {
                if (entries.findAny().isPresent()) {
                    throw usage("--data " + data + " is not empty: each run starts its nodes on empty data");
                }
            } catch (IOException e) {
                throw usage("--data " + data + " cannot be read: " + e.getMessage());
            }
        } else if (data != null && Files.exists(data)) {
            throw usage("--data " + data + " is not a directory");
        }
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }
}
