package io.ringkv.node;

import io.ringkv.ops.NodeProcess;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * The ahead-of-time cache the integration tests' node processes start with, as the launcher's
 * nodes do ({@code node/target/ringkv.aot}): the integration tests start node JVMs by the
 * hundred, and one with the cache was ready in about half the time (InterNodeSettingsIT, five
 * clusters one after the other: 24 and 28 s with it, 57 s without). Made once per build by a short
 * {@code aot-train} run, before the first test of a Failsafe JVM; the other Failsafe JVM waits for
 * it (a file lock) and uses it too. It is made again when the node jar or a jar of its class path
 * is newer; a cache that does not match the class path is skipped by the JVM without a word, so
 * the worst a stale or missing cache does is cost the time it would have saved. Only where
 * {@value #PROPERTY} names the cache's file (Failsafe's settings in the node module): unit tests
 * start no node processes. What goes wrong is said on standard error, not through SLF4J: started
 * this early, SLF4J did not take the provider Failsafe names and chose logback, for the rest of
 * the JVM.
 *
 * <p>Threading: JUnit opens launcher sessions from one thread; the static state is read and
 * written under the class's lock.
 */
public final class IntegrationAotCache implements LauncherSessionListener {
    /** System property: where the cache goes; unset or empty, the node processes start without one. */
    static final String PROPERTY = "ringkv.it.aot.cache";
    /** Long enough for the run's three nodes to replicate, elect a metadata leader and serve every route. */
    private static final String TRAINING_SECONDS = "2";
    private static final long TRAINING_BOUND_SECONDS = 180;

    private static boolean done;

    @Override
    public void launcherSessionOpened(LauncherSession session) {
        String cache = System.getProperty(PROPERTY, "");
        String classpath = System.getProperty(NodeProcess.CLASSPATH_PROPERTY, "");
        if (cache.isEmpty() || classpath.isEmpty()) {
            return;
        }
        synchronized (IntegrationAotCache.class) {
            if (done) {
                return;
            }
            done = true;
            try {
                if (ensure(Path.of(cache), classpath)) {
                    System.setProperty(NodeProcess.AOT_CACHE_PROPERTY, cache);
                }
            } catch (IOException e) {
                warn("node processes start without an AOT cache: " + e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Whether the cache is there and newer than every jar of the class path, training it if not. */
    private static boolean ensure(Path cache, String classpath) throws IOException, InterruptedException {
        Files.createDirectories(cache.getParent());
        Path lock = cache.resolveSibling(cache.getFileName() + ".lock");
        try (FileChannel channel = FileChannel.open(lock, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
             FileLock held = channel.lock()) {
            if (Files.exists(cache) && Files.getLastModifiedTime(cache).compareTo(newestJar(classpath)) > 0) {
                return true;
            }
            return train(cache, classpath);
        }
    }

    /** The newest modification time of the class path's entries ({@code dir/*} counts each jar in dir). */
    private static FileTime newestJar(String classpath) throws IOException {
        FileTime newest = FileTime.fromMillis(0);
        for (String entry : classpath.split(java.io.File.pathSeparator)) {
            List<Path> files = new ArrayList<>();
            if (entry.endsWith("*")) {
                try (Stream<Path> jars = Files.list(Path.of(entry.substring(0, entry.length() - 1)))) {
                    jars.forEach(files::add);
                }
            } else {
                files.add(Path.of(entry));
            }
            for (Path file : files) {
                FileTime modified = Files.getLastModifiedTime(file);
                if (modified.compareTo(newest) > 0) {
                    newest = modified;
                }
            }
        }
        return newest;
    }

    /**
     * The launcher's training run, shorter, with the node processes' JVM options; the JVM writes
     * the cache as it exits, into a file of its own first, so that no node maps half a cache.
     */
    private static boolean train(Path cache, String classpath) throws IOException, InterruptedException {
        Path partial = cache.resolveSibling(cache.getFileName() + ".partial");
        Files.deleteIfExists(partial);
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:AOTCacheOutput=" + partial, "-Xlog:aot=error"));
        command.addAll(NodeProcess.JVM_OPTIONS);
        command.addAll(List.of("--enable-native-access=ALL-UNNAMED", "-cp", classpath, Main.class.getName(), "aot-train",
                "--seconds", TRAINING_SECONDS));
        Path log = cache.resolveSibling("aot-train.log");
        Process run = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!run.waitFor(TRAINING_BOUND_SECONDS, TimeUnit.SECONDS)) {
            run.destroyForcibly().waitFor();
            warn("the AOT training run did not end within " + TRAINING_BOUND_SECONDS + " s (log: " + log
                    + "); node processes start without a cache");
            return false;
        }
        if (run.exitValue() != 0 || !Files.exists(partial)) {
            warn("the AOT training run failed (exit " + run.exitValue() + ", log: " + log + "); node processes start without a cache");
            return false;
        }
        Files.move(partial, cache, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return true;
    }

    private static void warn(String message) {
        System.err.println("[WARN] " + IntegrationAotCache.class.getSimpleName() + ": " + message);
    }
}
