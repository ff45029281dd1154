package io.ringkv.ops;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One node as a separate OS process running {@code ringkv serve} (or another command that runs a
 * node in the foreground), with the same JVM and class path as the current process. Its output is
 * copied line by line to a sink with a prefix.
 *
 * <p>Threading: start/stop from one thread; a daemon thread pumps the output.
 */
public final class NodeProcess {
    private static final Duration STATUS_POLL = Duration.ofMillis(100);
    /**
     * The node's command line, named rather than linked: ops does not depend on node (node
     * depends on ops to register its commands); the class path below must hold node's jar.
     */
    static final String MAIN_CLASS = "io.ringkv.node.Main";

    private final String name;
    private final List<String> command;
    private final PrintStream sink;
    private Process process;
    private volatile boolean stopping;

    /**
     * @param serveArgs arguments after {@code serve}, e.g. {@code --port 8080 --data d}
     */
    public NodeProcess(String name, List<String> serveArgs, PrintStream sink) {
        this(name, List.of(), serveArgs, sink);
    }

    /**
     * @param prefix a command the JVM runs under, e.g. {@code ip netns exec NS} (it must exec the
     *               JVM in place, so that signals sent to {@link #pid()} reach the node)
     */
    public NodeProcess(String name, List<String> prefix, List<String> serveArgs, PrintStream sink) {
        this(name, prefix, "serve", serveArgs, sink);
    }

    private NodeProcess(String name, List<String> prefix, String subcommand, List<String> args, PrintStream sink) {
        this.name = name;
        List<String> cmd = new ArrayList<>(prefix);
        cmd.addAll(javaCommand(subcommand, args, userJvmOptions(System.getenv(USER_JVM_OPTIONS_ENV))));
        this.command = List.copyOf(cmd);
        this.sink = sink;
    }

    /**
     * A node started by another command of the node's command line that runs one in the
     * foreground, e.g. {@code replace} ({@code args} are what follows the command's name).
     */
    public static NodeProcess running(String subcommand, String name, List<String> args, PrintStream sink) {
        return new NodeProcess(name, List.of(), subcommand, args, sink);
    }

    /** System property: the classpath node processes run with (see {@link #classpath()}). */
    public static final String CLASSPATH_PROPERTY = "ringkv.node.classpath";

    /**
     * System property: the ahead-of-time cache this JVM was started with (the launcher sets it
     * beside {@code -XX:AOTCache}), which node processes map too; unset or empty: none.
     */
    public static final String AOT_CACHE_PROPERTY = "ringkv.aot.cache";

    /**
     * System property: a directory holding RocksDB's JNI library, taken out of its jar by the
     * launcher once per build, which node processes load from there too (RocksDB otherwise copies
     * it out of the jar into a temporary file at every start); unset or empty: none.
     */
    public static final String NATIVE_DIR_PROPERTY = "ringkv.native.dir";

    /**
     * What the launcher gives every node JVM (its {@code NODE_JVM_OPTS}): exit at once when out of
     * memory, no unprofiled tier-2 compilations while C2's queue is long (they are compiled again,
     * profiled, under the node's first real traffic; see the launcher's comment), and no warning for
     * the shaded Guava in Apache Ratis reading field offsets with {@code sun.misc.Unsafe}.
     */
    public static final List<String> JVM_OPTIONS = List.of("-XX:+ExitOnOutOfMemoryError", "-XX:Tier3DelayOn=100000",
            "--sun-misc-unsafe-memory-access=allow");

    /**
     * The environment variable with the user's JVM options for nodes, as {@code ./ringkv} reads it
     * for the JVM it starts; the nodes {@code up} starts take them too, after ours (the later of
     * two HotSpot flags wins).
     */
    public static final String USER_JVM_OPTIONS_ENV = "RINGKV_JVM_OPTS";

    /** {@code value} split on whitespace as the launcher's shell splits it; none for null or blank. */
    static List<String> userJvmOptions(String value) {
        return value == null || value.isBlank() ? List.of() : List.of(value.trim().split("\\s+"));
    }

    static List<String> javaCommand(String subcommand, List<String> args, List<String> userJvmOptions) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>(List.of(java, "-Xmx512m"));
        cmd.addAll(JVM_OPTIONS);
        cmd.add("--enable-native-access=ALL-UNNAMED");
        String aotCache = System.getProperty(AOT_CACHE_PROPERTY);
        if (aotCache != null && !aotCache.isEmpty()) {
            cmd.add("-XX:AOTCache=" + aotCache);
            cmd.add("-Xlog:aot=error");
            cmd.add("-D" + AOT_CACHE_PROPERTY + "=" + aotCache);
        }
        String nativeDir = System.getProperty(NATIVE_DIR_PROPERTY);
        if (nativeDir != null && !nativeDir.isEmpty()) {
            cmd.add("-Djava.library.path=" + nativeDir);
            cmd.add("-D" + NATIVE_DIR_PROPERTY + "=" + nativeDir);
        }
        cmd.addAll(userJvmOptions);
        cmd.addAll(List.of("-cp", classpath(), MAIN_CLASS, subcommand));
        cmd.addAll(args);
        return cmd;
    }

    /**
     * The launcher's classpath when {@value #CLASSPATH_PROPERTY} names it (the integration tests
     * do, so their nodes run from exactly what {@code ./ringkv serve} runs: a dependency missing
     * there fails them), else this JVM's.
     */
    private static String classpath() {
        return System.getProperty(CLASSPATH_PROPERTY, System.getProperty("java.class.path"));
    }

    public NodeProcess start() throws IOException {
        process = new ProcessBuilder(command).redirectErrorStream(true).start();
        Thread pump = new Thread(this::pumpOutput, name + "-log");
        pump.setDaemon(true);
        pump.start();
        return this;
    }

    private void pumpOutput() {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = lines.readLine()) != null) {
                sink.println("[" + name + "] " + line);
            }
        } catch (IOException e) {
            sink.println("[" + name + "] (log stream closed: " + e.getMessage() + ")");
        }
    }

    /**
     * Polls {@code GET url/v0/status} until it answers 200, the process exits, or the deadline passes.
     *
     * @return true once the node is ready
     */
    public boolean awaitReady(String url, Duration deadline) throws InterruptedException {
        return awaitReady(url, deadline, null);
    }

    /** As above, for an https node whose certificate {@code trust} verifies (null: the JDK's default trust). */
    public boolean awaitReady(String url, Duration deadline, javax.net.ssl.SSLContext trust) throws InterruptedException {
        long end = System.nanoTime() + deadline.toNanos();
        HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1));
        if (trust != null) {
            builder.sslContext(trust);
        }
        try (HttpClient client = builder.build()) {
            HttpRequest status = HttpRequest.newBuilder(URI.create(url + "/v0/status")).timeout(Duration.ofSeconds(2)).build();
            while (System.nanoTime() < end && process.isAlive()) {
                try {
                    if (client.send(status, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                        return true;
                    }
                } catch (IOException notYetListening) {
                    // The node has not bound its port yet; poll again.
                }
                Thread.sleep(STATUS_POLL);
            }
        }
        return false;
    }

    public boolean isAlive() {
        return process != null && process.isAlive();
    }

    public long pid() {
        return process.pid();
    }

    public int waitFor() throws InterruptedException {
        return process.waitFor();
    }

    /**
     * SIGTERM, so the node shuts down gracefully; SIGKILL if it has not exited by the deadline.
     * Signals go through the {@link ProcessHandle}: {@code Process.destroy()} would also close
     * our end of the output pipe and lose the node's last log lines.
     */
    public void stop(Duration deadline) {
        if (process == null) {
            return;
        }
        requestStop();
        try {
            if (!process.waitFor(deadline.toMillis(), TimeUnit.MILLISECONDS)) {
                process.toHandle().destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.toHandle().destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /**
     * SIGTERM without waiting: the node begins its graceful shutdown, so that several nodes can
     * shut down at once; {@link #stop} then waits for this one.
     */
    public void requestStop() {
        if (process == null) {
            return;
        }
        stopping = true;
        process.toHandle().destroy();
    }

    /** SIGKILL: the process gets no chance to flush or close anything. */
    public void kill() throws InterruptedException {
        stopping = true;
        process.toHandle().destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    /** True once {@link #stop} or {@link #kill} was called: an exit after that was asked for. */
    public boolean stopRequested() {
        return stopping;
    }

    public String name() {
        return name;
    }
}
