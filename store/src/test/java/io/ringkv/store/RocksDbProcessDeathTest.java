package io.ringkv.store;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The store in a child JVM that is SIGKILLed or keeps the directory open: real process boundaries. */
@Timeout(120)
class RocksDbProcessDeathTest {

    /** Acknowledged writes read before the kill; the child keeps writing while it dies. */
    private static final int ACKS_BEFORE_KILL = 2_000;
    private static final long CHILD_EXIT_WAIT_SECONDS = 30;

    @TempDir
    Path dir;

    private Process child;

    @AfterEach
    void killChild() throws InterruptedException {
        if (child != null) {
            child.destroyForcibly();
            child.waitFor(CHILD_EXIT_WAIT_SECONDS, TimeUnit.SECONDS);
        }
    }

    @Test
    void everyWriteAcknowledgedBeforeSigkillIsThereAfterReopen() throws Exception {
        Path db = dir.resolve("db");
        child = startChild("write", db);
        List<Integer> acked = new ArrayList<>();
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(child.getInputStream(), UTF_8))) {
            readAcks(lines, acked, ACKS_BEFORE_KILL);
            // SIGKILL on POSIX: no shutdown hooks, no close(). Through the handle, because
            // Process.destroyForcibly() also closes our end of the pipe and we still want to
            // read the acks already in it.
            child.toHandle().destroyForcibly();
            assertThat("child died", child.waitFor(CHILD_EXIT_WAIT_SECONDS, TimeUnit.SECONDS), is(true));
            // Acks the child printed between our last read and its death count too.
            readAcks(lines, acked, Integer.MAX_VALUE);
        }
        assertThat(acked.size(), greaterThanOrEqualTo(ACKS_BEFORE_KILL));
        try (RocksDbStorageEngine reopened = RocksDbStorageEngine.open(db)) {
            for (int n : acked) {
                Optional<Record> stored = reopened.get(StoreWriterProcess.key(n));
                assertThat("acknowledged key-" + n, stored, is(Optional.of(Record.value(n + 1, StoreWriterProcess.value(n)))));
            }
        }
    }

    /**
     * RocksDB's own loader extracted its 17 MB library into the temporary directory for every JVM
     * and deleted it only at a normal exit: each killed node left one behind.
     */
    @Test
    void killedProcessesLeaveNoCopyOfTheNativeLibraryBehind() throws Exception {
        Path tmp = Files.createDirectories(dir.resolve("tmp"));
        for (int run = 0; run < 2; run++) {
            child = startChild("write", dir.resolve("db-" + run), "-Djava.io.tmpdir=" + tmp);
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(child.getInputStream(), UTF_8))) {
                readAcks(lines, new ArrayList<>(), 10);
                child.toHandle().destroyForcibly();
                assertThat("child died", child.waitFor(CHILD_EXIT_WAIT_SECONDS, TimeUnit.SECONDS), is(true));
            }
        }
        try (var top = Files.list(tmp); var all = Files.walk(tmp)) {
            assertThat("nothing extracted per process", top.map(p -> p.getFileName().toString())
                    .filter(name -> name.startsWith("librocksdbjni")).toList(), is(List.of()));
            assertThat("one shared copy", all.filter(p -> p.getFileName().toString().startsWith("librocksdbjni")).count(), is(1L));
        }
    }

    @Test
    void openingADirectoryHeldByAnotherProcessFailsWithStoreException() throws Exception {
        Path db = dir.resolve("db");
        child = startChild("hold", db);
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(child.getInputStream(), UTF_8))) {
            String first = lines.readLine();
            if (!("opened" + StoreWriterProcess.LINE_END).equals(first)) {
                fail("child did not open the store: " + first + "; stderr: " + childStderr());
            }
            StoreException failure = assertThrows(StoreException.class, () -> RocksDbStorageEngine.open(db));
            assertThat(failure.getMessage(), containsString("locked"));
            child.getOutputStream().close(); // the child closes the store and exits
            assertThat(child.waitFor(CHILD_EXIT_WAIT_SECONDS, TimeUnit.SECONDS), is(true));
            assertThat(child.exitValue(), is(0));
        }
        try (RocksDbStorageEngine reopened = RocksDbStorageEngine.open(db)) {
            assertThat(reopened.get("k".getBytes(UTF_8)), is(Optional.empty()));
        }
    }

    /** Reads complete {@code ack N .} lines until {@code limit} acks in total or end of stream. */
    private void readAcks(BufferedReader lines, List<Integer> acked, int limit) throws IOException {
        while (acked.size() < limit) {
            String line = lines.readLine();
            if (line == null) {
                if (limit != Integer.MAX_VALUE) {
                    fail("child stopped after " + acked.size() + " acks; stderr: " + childStderr());
                }
                return;
            }
            // A line cut short by the kill lacks the terminator: that write was not acknowledged.
            if (line.startsWith("ack ") && line.endsWith(StoreWriterProcess.LINE_END)) {
                acked.add(Integer.parseInt(line.substring(4, line.length() - StoreWriterProcess.LINE_END.length())));
            }
        }
    }

    private Process startChild(String mode, Path db, String... jvmArgs) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "-Xmx128m", "--enable-native-access=ALL-UNNAMED"));
        command.addAll(List.of(jvmArgs));
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), StoreWriterProcess.class.getName(), mode, db.toString()));
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.redirectError(dir.resolve("child-stderr.txt").toFile());
        return builder.start();
    }

    private String childStderr() throws IOException {
        Path stderr = dir.resolve("child-stderr.txt");
        return Files.exists(stderr) ? Files.readString(stderr) : "(none)";
    }
}
