package io.ringkv.node;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code ringkv} command line: {@code serve} runs one node, {@code up} a local cluster. */
@Command(name = "ringkv", mixinStandardHelpOptions = true, version = "ringkv 0.1.0",
        description = "A sharded, replicated key-value store with an HTTP API.",
        subcommands = {ServeCommand.class, UpCommand.class, ChaosCommand.class, RepairCommand.class, CommandLine.HelpCommand.class})
public final class Main implements Runnable {

    /** Exit code when the node cannot start: port taken, data directory unusable, bad cluster list. */
    static final int EXIT_CANNOT_START = 1;
    /** Exit code for bad flags (picocli's convention). */
    static final int EXIT_USAGE = 2;

    public static void main(String[] args) {
        System.exit(run(args));
    }

    static int run(String... args) {
        return new CommandLine(new Main()).setCaseInsensitiveEnumValuesAllowed(true).execute(args);
    }

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }
}
