package io.ringkv.node;

import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ringkv aot-train} (hidden): the training run behind the ahead-of-time cache. The launcher
 * runs it once per build under {@code -XX:AOTCacheOutput}; the JVM records which classes the run
 * loaded and linked and how its methods behaved, and writes the cache as it exits. Nodes started
 * with {@code -XX:AOTCache} skip that class loading and compile hot methods sooner. The run is
 * the node's own {@link WarmUp}'s scratch cluster under load, with a membership change in it
 * ({@link MembershipRehearsal}).
 */
@Command(name = "aot-train", hidden = true, mixinStandardHelpOptions = true,
        description = "Run a 3-node cluster in this JVM under load for a while, a fourth node joining and leaving (the AOT cache's training run).")
final class TrainCommand implements Callable<Integer> {

    @Option(names = "--seconds", defaultValue = "20", description = "How long the load runs at least; longer while the membership change lasts (default: ${DEFAULT-VALUE}).")
    int seconds;

    @Override
    public Integer call() {
        return WarmUp.train(Duration.ofSeconds(seconds)) > 0 ? 0 : Main.EXIT_CANNOT_START;
    }
}
