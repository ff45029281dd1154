package io.ringkv.ops.chaos;

import io.ringkv.cluster.ClusterSecret;
import io.ringkv.cluster.InternalAuth;
import io.ringkv.cluster.InternalProtocol;
import io.ringkv.cluster.SignedCalls;
import io.ringkv.ops.NodeProcess;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The node a {@link Fault#MEMBERSHIP} fault adds to the cluster and takes out again: it joins
 * ({@code serve --join}) through a member, and leaves ({@code ringkv decommission}'s signed
 * request), its process exiting once it has left. Each join starts from an empty data directory.
 * Clients never address it: the history checks that the initial nodes' answers stay right while
 * the owners of their keys change.
 *
 * <p>Threading: used by the nemesis thread only.
 */
final class SpareMember {
    /** Longest wait for a join to finish or a node to leave: a join streams every key it will own. */
    static final Duration STEP_MAX = Duration.ofMinutes(3);
    private static final Duration POLL = Duration.ofMillis(250);
    private static final Pattern PHASE = Pattern.compile("\"membership\":\\{\"step\":\"(\\w+)\",\"phase\":\"([^\"]*)\"");

    private final Path dataDir;
    private final String url;
    private final List<String> serveArgs;
    private final Path secretFile;
    private final PrintStream logSink;
    private NodeProcess process;

    /**
     * @param serveArgs every {@code serve} flag but the ones naming this node and its cluster
     * @param secretFile the cluster secret, for the signed decommission request
     */
    SpareMember(Path dataDir, int port, List<String> serveArgs, Path secretFile, PrintStream logSink) {
        this.dataDir = dataDir;
        this.url = "http://127.0.0.1:" + port;
        this.serveArgs = List.copyOf(serveArgs);
        this.secretFile = secretFile;
        this.logSink = logSink;
    }

    String url() {
        return url;
    }

    boolean running() {
        return process != null && process.isAlive();
    }

    /** Starts the node with an empty data directory, joining through {@code memberUrl}; returns once it is a normal member. */
    void join(String memberUrl) throws IOException, InterruptedException {
        ChaosCluster.deleteRecursively(dataDir);
        List<String> args = new ArrayList<>(List.of("--host", "127.0.0.1", "--port", Integer.toString(URI.create(url).getPort()),
                "--data", dataDir.toString(), "--join", memberUrl));
        args.addAll(serveArgs);
        process = new NodeProcess("spare", args, logSink).start();
        if (!process.awaitReady(url, STEP_MAX)) {
            throw new IllegalStateException("the spare node at " + url + " did not start (joining through " + memberUrl + ")");
        }
        awaitPhase("join", "done");
    }

    /** Asks the node to leave and waits until its process has exited; {@code 409} (a change in progress) is retried. */
    void leave() throws IOException, InterruptedException {
        try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
            String fingerprint = field(get(http, "/v0/status"), "\"topology\":\"([0-9a-f]+)\"");
            InternalAuth auth = new InternalAuth(ClusterSecret.fromFile(secretFile), "ringkv-chaos", fingerprint,
                    System::currentTimeMillis);
            SignedCalls calls = new SignedCalls(http, auth, () -> 0, Runnable::run);
            long end = System.nanoTime() + STEP_MAX.toNanos();
            while (true) {
                SignedCalls.Answer answer;
                try {
                    answer = calls.call(url, "POST", InternalProtocol.DECOMMISSION_PATH, new byte[0], Duration.ofSeconds(30))
                            .get(40, TimeUnit.SECONDS);
                } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                    throw new IOException("decommission request to " + url + " failed: " + e, e);
                }
                if (answer.status() == 202) {
                    break;
                }
                if (System.nanoTime() > end) {
                    throw new IllegalStateException("the spare node was not let leave: " + answer.status() + " " + answer.text());
                }
                Thread.sleep(POLL.toMillis() * 4);
            }
        }
        long left = Math.max(1, STEP_MAX.toMillis());
        long end = System.currentTimeMillis() + left;
        while (process.isAlive() && System.currentTimeMillis() < end) {
            Thread.sleep(POLL.toMillis());
        }
        if (process.isAlive()) {
            throw new IllegalStateException("the spare node did not leave within " + STEP_MAX);
        }
        int exit = process.waitFor();
        if (exit != 0) {
            throw new IllegalStateException("the spare node exited with " + exit + " after leaving, not 0");
        }
    }

    /** Stops the process if it runs (the run is over). */
    void stop() {
        if (process != null) {
            process.stop(Duration.ofSeconds(10));
        }
    }

    private void awaitPhase(String step, String phase) throws IOException, InterruptedException {
        long end = System.nanoTime() + STEP_MAX.toNanos();
        try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
            while (System.nanoTime() < end) {
                Matcher matcher = PHASE.matcher(get(http, "/v0/status"));
                if (matcher.find() && matcher.group(1).equals(step) && matcher.group(2).equals(phase)) {
                    return;
                }
                if (!process.isAlive()) {
                    throw new IllegalStateException("the spare node exited during its " + step);
                }
                Thread.sleep(POLL.toMillis());
            }
        }
        throw new IllegalStateException("the spare node's " + step + " did not reach " + phase + " within " + STEP_MAX);
    }

    private String get(HttpClient http, String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(url + path)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    private static String field(String json, String regex) throws IOException {
        Matcher matcher = Pattern.compile(regex).matcher(json);
        if (!matcher.find()) {
            throw new IOException("no " + regex + " in " + json);
        }
        return matcher.group(1);
    }
}
