package io.ringkv.store;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Path;

/**
 * Not a test: the child JVM that {@link RocksDbProcessDeathTest} starts and kills. Talks to the
 * test over stdout, one line per event, each ending in {@value #LINE_END} so a line cut short by
 * SIGKILL is recognisable.
 *
 * <ul>
 *   <li>{@code write DIR}: applies {@code key-N = value-N} for N = 0, 1, ... (at most
 *       {@link #WRITES_MAX}) and prints {@code ack N .} after each apply returned.</li>
 *   <li>{@code hold DIR}: opens the store, prints {@code opened .}, keeps it open until stdin
 *       closes.</li>
 * </ul>
 */
public final class StoreWriterProcess {

    static final String LINE_END = " .";
    /** Bounds the child's life if the test never kills it. */
    static final int WRITES_MAX = 1_000_000;

    private StoreWriterProcess() {
    }

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, false, UTF_8);
        try (RocksDbStorageEngine engine = RocksDbStorageEngine.open(Path.of(args[1]), StoreConfig.defaults())) {
            switch (args[0]) {
                case "write" -> write(engine, out);
                case "hold" -> hold(out, System.in);
                default -> throw new IllegalArgumentException("unknown mode " + args[0]);
            }
        }
    }

    static byte[] key(int n) {
        return ("key-" + n).getBytes(UTF_8);
    }

    static byte[] value(int n) {
        return ("value-" + n).getBytes(UTF_8);
    }

    private static void write(RocksDbStorageEngine engine, PrintStream out) throws StoreException {
        for (int n = 0; n < WRITES_MAX; n++) {
            engine.apply(key(n), Record.value(n + 1, value(n)));
            out.println("ack " + n + LINE_END);
            out.flush();
        }
    }

    private static void hold(PrintStream out, InputStream in) throws IOException {
        out.println("opened" + LINE_END);
        out.flush();
        while (in.read() >= 0) {
            // Wait for the parent to close our stdin (or kill us).
        }
    }
}
