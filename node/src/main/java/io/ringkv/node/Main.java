package io.ringkv.node;

import io.ringkv.ops.AbortCommand;
import io.ringkv.ops.ChaosCommand;
import io.ringkv.ops.CleanupCommand;
import io.ringkv.ops.DecommissionCommand;
import io.ringkv.ops.HandoffCommand;
import io.ringkv.ops.MetaCommand;
import io.ringkv.ops.RepairCommand;
import io.ringkv.ops.StatusCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code ringkv} command line: {@code serve} runs one node, {@code up} a local cluster,
 * {@code status} prints a cluster's state as one node sees it, {@code token} makes an access token.
 */
@Command(name = "ringkv", mixinStandardHelpOptions = true, version = "ringkv " + Node.VERSION,
        description = "A sharded, replicated key-value store with an HTTP API.",
        subcommands = {ServeCommand.class, UpCommand.class, ChaosCommand.class, HandoffCommand.class, RepairCommand.class, CleanupCommand.class, DecommissionCommand.class, ReplaceCommand.class, AbortCommand.class, StatusCommand.class, MetaCommand.class, TokenCommand.class, TrainCommand.class, CommandLine.HelpCommand.class})
public final class Main implements Runnable {

    /** Exit code when the node cannot start: port taken, data directory unusable, bad cluster list. */
    static final int EXIT_CANNOT_START = 1;
    /** Exit code for bad flags (picocli's convention). */
    static final int EXIT_USAGE = 2;

    public static void main(String[] args) {
        LogSetup.selectBackend();
        System.exit(run(args));
    }

    static int run(String... args) {
        return commandLine().execute(args);
    }

    /** As {@link #run(String...)}, printing to {@code out} and {@code err} (tests read what a command prints). */
    static int run(java.io.PrintWriter out, java.io.PrintWriter err, String... args) {
        return commandLine().setOut(out).setErr(err).execute(args);
    }

    /** Enum values (--durability, --log-format, ...) in any case: {@code json} as well as {@code JSON}. */
    private static CommandLine commandLine() {
        return new CommandLine(new Main()).setCaseInsensitiveEnumValuesAllowed(true);
    }

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }
}
