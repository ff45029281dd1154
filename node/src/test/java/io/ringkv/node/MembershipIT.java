package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Join and decommission end to end (issue 33), on node processes: three nodes started with
 * {@code --cluster} (replication factor 3, every one a metadata voter), and nodes that join them
 * with {@code serve --join}. One cluster serves the class, in order: the refusals first (they must
 * change nothing), then a join and a decommission under writes, then a joining node killed while
 * it streams, aborts, and last an initial node (a voter) decommissioned and another killed. A writer thread keeps PUTting at the default replicas through the initial nodes
 * while the membership changes; every write must be acknowledged, read back, and end on exactly
 * three nodes once the former owners cleaned up.
 */
@Timeout(600)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MembershipIT {
    /** A bound on each wait for the cluster, not a timing requirement. */
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final int RF = 3;
    private static final int PRELOAD = 2_000;
    private static final String PREFIX = "mi-";
    /**
     * The owners' hand-over pace, MB read per second (`--stream-rate`): about 1,000 of these
     * 1 KB records a second, slow enough that the streaming of a few thousand records lasts
     * seconds, so that test 2 can kill the joining node while it streams.
     */
    private static final String STREAM_RATE = "1";
    private static final int[] INITIAL = {0, 1, 2};
    private static final Pattern MEMBER = Pattern.compile(
            "\\{\"id\":\"([^\"]*)\",\"url\":\"([^\"]*)\",\"state\":\"([^\"]*)\",\"index\":(\\d+)\\}");

    @TempDir
    static Path root;

    private static ProcessCluster cluster;
    private static HttpClient client;
    /** Every acknowledged write of the class, key to value: what must read back. */
    private static final Map<String, String> acknowledged = new ConcurrentHashMap<>();
    private static final List<Joiner> joiners = new ArrayList<>();
    private static final List<BackgroundWriter> writers = new ArrayList<>();

    /** A node process started with {@code serve --join}, with what it printed. */
    private record Joiner(String name, String url, NodeProcess process, ByteArrayOutputStream output) {
        int port() {
            return URI.create(url).getPort();
        }

        String printed() {
            return output.toString(StandardCharsets.UTF_8);
        }
    }

    @BeforeAll
    static void start() throws Exception {
        // Five JVMs at most on a shared two-core machine: a longer replica timeout than ProcessCluster's 1 s.
        cluster = startCluster();
        client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(2)).build();
        awaitStatus(cluster.url(0), "the metadata leader elected with 3 normal members",
                status -> status.contains("\"leader\":\"n") && normalMembers(status).size() == 3);
        preload();
    }

    /** A test that failed half-way leaves no writer running into the next. */
    @AfterEach
    void stopWriters() throws InterruptedException {
        for (BackgroundWriter writer : writers) {
            writer.stop();
        }
        writers.clear();
    }

    /**
     * The three initial nodes. A port chosen free can be taken before a node binds it on this shared
     * machine (many TIME_WAIT connections of other tests, see {@link #startJoiner(String, String, Path)}),
     * and ProcessCluster then fails to start: one more try on other ports, in a directory of its own.
     */
    private static ProcessCluster startCluster() throws Exception {
        List<String> args = List.of("--replica-timeout", "PT5S", "--stream-rate", STREAM_RATE);
        try {
            return new ProcessCluster(root.resolve("cluster-1"), 3, args);
        } catch (AssertionError notReady) {
            return new ProcessCluster(root.resolve("cluster-2"), 3, args);
        }
    }

    @AfterAll
    static void stop() {
        for (Joiner joiner : joiners) {
            joiner.process().stop(Duration.ofSeconds(10));
        }
        if (client != null) {
            client.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    /** {@value #PRELOAD} keys of about 1 KB through the three nodes, four at a time. */
    private static void preload() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<String>> puts = new ArrayList<>();
            for (int i = 0; i < PRELOAD; i++) {
                String key = preloadKey(i);
                int node = i % 3;
                puts.add(pool.submit(() -> {
                    String value = BackgroundWriter.value(key, -1);
                    HttpResponse<String> put = cluster.put(node, key, value, null);
                    if (put.statusCode() != 201) {
                        return key + ": " + put.statusCode() + " " + put.body();
                    }
                    acknowledged.put(key, value);
                    return null;
                }));
            }
            List<String> failed = new ArrayList<>();
            for (Future<String> put : puts) {
                if (put.get() != null) {
                    failed.add(put.get());
                }
            }
            assertThat("preload", failed, is(empty()));
        } finally {
            pool.shutdownNow();
        }
    }

    private static String preloadKey(int i) {
        return String.format("%sp-%05d", PREFIX, i);
    }

    private static List<String> preloadKeys() {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < PRELOAD; i++) {
            keys.add(preloadKey(i));
        }
        return keys;
    }

    /**
     * Bad input changes nothing: a join with the wrong secret fails to start and names the secret;
     * {@code --join} with {@code --cluster} is a usage error; a decommission that would leave fewer
     * normal members than the replication factor is refused, and the refusal says how to go on
     * (exit 1).
     */
    @Test
    @Order(1)
    void refusedRequestsChangeNothing() throws Exception {
        String before = metadata(cluster.url(0));
        assertThat(normalMembers(before).size(), is(3));

        Path wrongSecret = ClusterSecretFile.create(root.resolve("wrong.secret"));
        Joiner forged = startJoiner("forged", cluster.url(0), wrongSecret);
        int exit = awaitExit(forged);
        assertThat(forged.printed(), exit, is(Main.EXIT_CANNOT_START));
        assertThat(forged.printed(), containsString("without a valid proof of the cluster secret"));

        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int usage = Main.run(new PrintWriter(out), new PrintWriter(err), "serve", "--port", "0", "--data",
                root.resolve("usage").toString(), "--join", cluster.url(0), "--cluster", cluster.url(0) + "," + cluster.url(1),
                "--cluster-secret-file", cluster.secretFile().toString());
        assertThat(err.toString(), usage, is(Main.EXIT_USAGE));
        assertThat(err.toString(), containsString("--join and --cluster exclude each other"));

        Cli tooFew = decommission(cluster.url(0));
        assertThat(tooFew.output(), tooFew.exit(), is(1));
        assertThat(tooFew.output(), containsString("409"));
        assertThat(tooFew.output(), containsString("would leave 2 members for replication factor 3; lower it first with "
                + "ringkv meta set-replication-factor"));

        assertThat("node-0 still serves", cluster.send(0, "GET", "/v0/status", null).statusCode(), is(200));
        assertThat("the metadata after the refusals", metadata(cluster.url(0)), equalTo(before));
    }

    /**
     * A fourth node joins while a writer writes, becomes normal and takes its share; the former
     * owners drop what they no longer own. Then, still under writes, it is decommissioned: it hands
     * its keys back, leaves and its process exits 0.
     */
    @Test
    @Order(2)
    void joinThenDecommissionUnderWrites() throws Exception {
        BackgroundWriter writer = startWriter("w1-");
        writer.awaitMore(20);
        Joiner fourth = startJoiner("joiner-3", cluster.url(0), cluster.secretFile());
        awaitJoined(fourth);
        writer.awaitMore(50); // writes under the new view too
        assertThat("writes during the join, of " + writer.writes(), writer.stop(), is(empty()));

        List<String> nodes = List.of(cluster.url(0), cluster.url(1), cluster.url(2), fourth.url());
        readBack(nodes);
        for (String node : nodes) {
            cleanup(node);
        }
        awaitOnExactlyThree(nodes);

        BackgroundWriter again = startWriter("w2-");
        again.awaitMore(20);
        Cli left = decommission(fourth.url());
        assertThat(left.output(), left.exit(), is(0));
        int status = awaitExit(fourth);
        assertThat("the decommissioned process's exit status: " + fourth.printed(), status, is(0));
        again.awaitMore(50);
        assertThat("writes during the decommission, of " + again.writes(), again.stop(), is(empty()));

        List<String> remaining = nodes.subList(0, 3);
        String metadata = metadata(cluster.url(0));
        assertThat(metadata, stateOf(metadata, fourth.url()), is("left"));
        assertThat(metadata, normalMembers(metadata), equalTo(new TreeSet<>(remaining)));
        readBack(remaining);
        awaitOnExactlyThree(remaining);
    }

    /**
     * A joining node SIGKILLed while it streams stays {@code joining} in the metadata (so a second
     * join is refused meanwhile); started again with the same {@code --join} and data directory it
     * goes through the steps from the top and completes.
     */
    @Test
    @Order(3)
    void aJoiningNodeKilledWhileStreamingCompletesWhenStartedAgain() throws Exception {
        BackgroundWriter writer = startWriter("w3-");
        writer.awaitMore(20);
        Joiner joining = startJoiner("joiner-4", cluster.url(1), cluster.secretFile());
        awaitStatus(joining, "joiner-4 streaming", status -> "streaming".equals(membershipPhase(status)));
        joining.process().kill();
        String meanwhile = metadata(cluster.url(0));
        assertThat(meanwhile, stateOf(meanwhile, joining.url()), is("joining"));

        Joiner second = startJoiner("joiner-5", cluster.url(0), cluster.secretFile());
        int refused = awaitExit(second);
        assertThat(second.printed(), refused, is(Main.EXIT_CANNOT_START));
        assertThat(second.printed(), containsString("a change is in progress"));
        assertThat("a refused join changes nothing", metadata(cluster.url(0)), equalTo(meanwhile));

        // --join names a member that is not there first: the next one is asked.
        Joiner again = restart(joining, "http://127.0.0.1:1," + cluster.url(1));
        awaitJoined(again);
        writer.awaitMore(50);
        assertThat("writes during the join, of " + writer.writes(), writer.stop(), is(empty()));

        List<String> nodes = List.of(cluster.url(0), cluster.url(1), cluster.url(2), again.url());
        readBack(nodes);
        for (String node : nodes) {
            cleanup(node);
        }
        awaitOnExactlyThree(nodes);
    }

    /**
     * {@code ringkv abort} rolls back a join in the middle of its streaming (the node becomes
     * {@code left}; the owners keep every key) and a decommission in the middle of its hand-over
     * (the node becomes {@code normal} again and answers {@code /v0/status} with 200); nothing
     * acknowledged is lost, and a node with no step in progress has nothing to abort (exit 1).
     */
    @Test
    @Order(4)
    void abortRollsAJoinAndADecommissionBack() throws Exception {
        BackgroundWriter writer = startWriter("w4-");
        writer.awaitMore(20);
        Joiner joining = startJoiner("joiner-6", cluster.url(0), cluster.secretFile());
        awaitStatus(joining, "joiner-6 streaming", status -> "streaming".equals(membershipPhase(status)));
        Cli aborted = cli("abort", "--node", joining.url());
        assertThat(aborted.output(), aborted.exit(), is(0));
        String afterJoin = metadata(cluster.url(0));
        assertThat(afterJoin, stateOf(afterJoin, joining.url()), is("left"));
        joining.process().stop(Duration.ofSeconds(10));

        // joiner-4 joined in the test before: it is a normal member that is not a voter.
        Joiner member = joiners.stream().filter(j -> j.name().equals("joiner-4") && j.process().isAlive()).findFirst()
                .orElseThrow(() -> new AssertionError("joiner-4 from the test before is not running"));
        Cli leaving = cli("decommission", "--node", member.url(), "--no-wait");
        assertThat(leaving.output(), leaving.exit(), is(0));
        Cli back = cli("abort", "--node", member.url());
        assertThat(back.output(), back.exit(), is(0));
        String afterLeave = metadata(cluster.url(0));
        assertThat(afterLeave, stateOf(afterLeave, member.url()), is("normal"));
        assertThat(member.process().isAlive(), is(true));
        assertThat(status(member.url()), is(200));
        Cli nothing = cli("abort", "--node", member.url());
        assertThat(nothing.output(), nothing.exit(), is(1));
        assertThat(nothing.output(), containsString("no join or decommission to abort"));

        writer.awaitMore(50);
        assertThat("writes during the aborts, of " + writer.writes(), writer.stop(), is(empty()));
        readBack(List.of(cluster.url(0), cluster.url(1), cluster.url(2), member.url()));
    }

    /**
     * An initial node, a metadata voter, is decommissioned under writes through the two other
     * initial nodes: the joined member (joiner-4) takes its vote, the node exits 0, no write fails
     * and every key ends on exactly three nodes. Then a second initial node is SIGKILLed: the two
     * voters left, one of them the joined member, still commit a metadata change (before issue
     * 33's voter changes, the group had lost two of its three voters here).
     */
    @Test
    @Order(5)
    void anInitialVoterLeavesAndTheGroupOutlivesOneMoreLoss() throws Exception {
        Joiner member = joiners.stream().filter(j -> j.name().equals("joiner-4") && j.process().isAlive()).findFirst()
                .orElseThrow(() -> new AssertionError("joiner-4 from the tests before is not running"));
        awaitStatus(member, "joiner-4's metadata server listens in the group", status -> status.contains("\"role\":\"listener\""));
        BackgroundWriter writer = new BackgroundWriter(cluster, new int[] {1, 2}, PREFIX + "w5-", acknowledged, preloadKeys());
        writers.add(writer);
        writer.start().awaitMore(20);
        Cli left = decommission(cluster.url(0));
        assertThat(left.output(), left.exit(), is(0));
        assertThat("node-0's exit status", cluster.awaitExit(0, WAIT), is(0));
        writer.awaitMore(50);
        assertThat("writes during the decommission, of " + writer.writes(), writer.stop(), is(empty()));

        List<String> remaining = List.of(cluster.url(1), cluster.url(2), member.url());
        String metadata = metadata(cluster.url(1));
        assertThat(metadata, stateOf(metadata, cluster.url(0)), is("left"));
        assertThat(metadata, normalMembers(metadata), equalTo(new TreeSet<>(remaining)));
        awaitStatus(member, "joiner-4 votes", status -> status.contains("\"role\":\"follower\"")
                || status.contains("\"role\":\"leader\""));
        readBack(remaining);
        awaitOnExactlyThree(remaining);

        cluster.kill(1);
        // The command gives up after about ten seconds without a leader and says to ask again: while
        // the two voters left elect one, it is asked again (bounded by WAIT).
        long deadline = System.nanoTime() + WAIT.toNanos();
        Cli changed = cli("meta", "set-replication-factor", "2", "--node", cluster.url(2));
        while (changed.exit() != 0 && System.nanoTime() < deadline) {
            changed = cli("meta", "set-replication-factor", "2", "--node", cluster.url(2));
        }
        assertThat(changed.output() + "\njoiner-4 printed:\n" + member.printed(), changed.exit(), is(0));
        awaitStatus(member, "joiner-4 applied replication factor 2", status -> status.contains("\"replicationFactor\":2"));
    }

    /** A command of the node's CLI in this JVM, its {@code System.out} captured (this class's tests run one at a time). */
    private static Cli cli(String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--cluster-secret-file", cluster.secretFile().toString()));
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        PrintStream original = System.out;
        int exit;
        System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
        try {
            exit = Main.run(all.toArray(String[]::new));
        } finally {
            System.setOut(original);
        }
        String output = printed.toString(StandardCharsets.UTF_8);
        original.print(output);
        return new Cli(exit, output);
    }

    private static int status(String node) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create(node + "/v0/status")).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    /** A writer through the initial nodes (the joined ones come and go), new keys under {@code PREFIX + name}. */
    private static BackgroundWriter startWriter(String name) {
        BackgroundWriter writer = new BackgroundWriter(cluster, INITIAL, PREFIX + name, acknowledged, preloadKeys());
        writers.add(writer);
        return writer.start();
    }

    // --- joining nodes

    /**
     * A new node asking to join, on a free port. The port is free when chosen, but on a machine
     * shared with other tests another process may take it before the node binds it (seen here
     * under load: the node exits at once, "Address already in use"); then it starts again on
     * another port, up to a few times. Its data directory is still empty then: the node binds its
     * port before it asks to join.
     */
    private static Joiner startJoiner(String name, String member, Path secret) throws Exception {
        for (int attempt = 1; ; attempt++) {
            Joiner joiner = startJoiner(name, LocalPorts.free(1).get(0), member, secret);
            if (!lostItsPort(joiner) || attempt == 3) {
                return joiner;
            }
        }
    }

    /**
     * The joiner started again on its port and data directory (its identity). Its port was free
     * while it ran; should another process take it meanwhile (see above), it is tried again a few
     * times, a second apart, for that process to let it go.
     */
    private static Joiner restart(Joiner joiner, String member) throws Exception {
        for (int attempt = 1; ; attempt++) {
            Joiner again = startJoiner(joiner.name(), joiner.port(), member, cluster.secretFile());
            if (!lostItsPort(again) || attempt == 5) {
                return again;
            }
            Thread.sleep(1000);
        }
    }

    /** Whether the joiner exited because its port was taken (else it listens, or exited for another reason). */
    private static boolean lostItsPort(Joiner joiner) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (joiner.process().isAlive() && System.nanoTime() < deadline) {
            try {
                send(joiner.url(), "GET", "/v0/status");
                return false;
            } catch (java.io.IOException notListeningYet) {
                Thread.sleep(50);
            }
        }
        if (joiner.process().isAlive()) {
            return false;
        }
        awaitExit(joiner);
        return joiner.printed().contains("Address already in use");
    }

    /** Starts {@code serve --join member} on {@code port}, its data in {@code root/name} (the same for a restart). */
    private static Joiner startJoiner(String name, int port, String member, Path secret) throws Exception {
        List<String> args = List.of("--port", Integer.toString(port), "--data", root.resolve(name).toString(), "--join", member,
                "--cluster-secret-file", secret.toString(), "--warm-up", "PT0S", "--replica-timeout", "PT5S",
                "--stream-rate", STREAM_RATE, "--drain-delay", "PT1S");
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        NodeProcess process = new NodeProcess(name, args, new PrintStream(output, true, StandardCharsets.UTF_8)).start();
        Joiner joiner = new Joiner(name, "http://127.0.0.1:" + port, process, output);
        joiners.add(joiner);
        return joiner;
    }

    /** Waits for the process to exit (bounded) and returns its exit status. */
    private static int awaitExit(Joiner joiner) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (joiner.process().isAlive()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(joiner.name() + " did not exit within " + WAIT + ": " + joiner.printed());
            }
            Thread.sleep(100);
        }
        int exit = joiner.process().waitFor();
        Thread.sleep(200); // the pump thread copies the last lines after the exit
        return exit;
    }

    /** The joiner says its join is done, and the metadata lists it normal beside the other normal members. */
    private static void awaitJoined(Joiner joiner) throws Exception {
        awaitStatus(joiner, joiner.name() + "'s join done", status -> "done".equals(membershipPhase(status)));
        awaitStatus(cluster.url(0), joiner.name() + " normal in the metadata",
                status -> normalMembers(status).size() == 4 && normalMembers(status).contains(joiner.url()));
    }

    // --- reads and placement

    /** Every acknowledged write through some node (in turn), and a sample of 50 through each node. */
    private static void readBack(List<String> nodes) throws Exception {
        List<String> keys = new ArrayList<>(new TreeSet<>(acknowledged.keySet()));
        ExecutorService readers = Executors.newFixedThreadPool(4);
        try {
            List<Future<String>> reads = new ArrayList<>();
            for (int i = 0; i < keys.size(); i++) {
                String key = keys.get(i);
                String node = nodes.get(i % nodes.size());
                reads.add(readers.submit(() -> wrongRead(node, key)));
            }
            int step = Math.max(1, keys.size() / 50);
            for (String node : nodes) {
                for (int i = 0; i < keys.size(); i += step) {
                    String key = keys.get(i);
                    reads.add(readers.submit(() -> wrongRead(node, key)));
                }
            }
            List<String> wrong = new ArrayList<>();
            for (Future<String> read : reads) {
                String failure = read.get();
                if (failure != null) {
                    wrong.add(failure);
                }
            }
            assertThat("reads of " + keys.size() + " acknowledged keys", wrong, is(empty()));
        } finally {
            readers.shutdownNow();
        }
    }

    /** Null when {@code key} reads back its acknowledged value through {@code node}, else what it read. */
    private static String wrongRead(String node, String key) throws Exception {
        HttpResponse<String> got = send(node, "GET", "/v0/entity?id=" + key);
        String expected = acknowledged.get(key);
        if (got.statusCode() == 200 && got.body().equals(expected)) {
            return null;
        }
        String body = got.body();
        return key + " through " + node + ": " + got.statusCode() + " " + body.substring(0, Math.min(80, body.length()));
    }

    /** Waits (bounded: cleanup and the last replica writes are asynchronous) until every key is on exactly three nodes. */
    private static void awaitOnExactlyThree(List<String> nodes) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        Map<String, Set<String>> wrong = misplaced(nodes);
        while (!wrong.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(500);
            wrong = misplaced(nodes);
        }
        assertThat(wrong.size() + " keys not on exactly " + RF + " of " + nodes, wrong.entrySet().stream().limit(10).toList(),
                is(empty()));
    }

    /** Acknowledged keys held (by local ranges) by other than {@value #RF} nodes, with their holders; and unknown keys. */
    private static Map<String, Set<String>> misplaced(List<String> nodes) throws Exception {
        Map<String, Set<String>> holders = new TreeMap<>();
        for (String node : nodes) {
            for (String key : localKeys(node)) {
                holders.computeIfAbsent(key, k -> new TreeSet<>()).add(node);
            }
        }
        Map<String, Set<String>> wrong = new TreeMap<>();
        for (String key : acknowledged.keySet()) {
            Set<String> on = holders.getOrDefault(key, Set.of());
            if (on.size() != RF) {
                wrong.put(key, on);
            }
        }
        holders.keySet().stream().filter(key -> !acknowledged.containsKey(key))
                .forEach(key -> wrong.put(key + " (never acknowledged)", holders.get(key)));
        return wrong;
    }

    /** The keys under {@value #PREFIX} this node's own store holds. */
    private static List<String> localKeys(String node) throws Exception {
        RawHttp.Reply reply = RawHttp.get(URI.create(node).getPort(), "/v0/entities?start=" + PREFIX + "&end=" + PREFIX + "~&local=true");
        assertThat(node + " local range", reply.status(), is(200));
        List<String> keys = new ArrayList<>();
        for (byte[] chunk : reply.chunks()) {
            String text = new String(chunk, StandardCharsets.UTF_8);
            keys.add(text.substring(0, text.indexOf('\n')));
        }
        return keys;
    }

    // --- commands

    private record Cli(int exit, String output) {
    }

    /**
     * {@code ringkv decommission} in this JVM. It prints to {@code System.out} (a terminal
     * program), so that is captured for the duration; this class's tests run one at a time.
     */
    private static Cli decommission(String node) throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        PrintStream original = System.out;
        int exit;
        System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
        try {
            exit = Main.run("decommission", "--node", node, "--timeout", "PT120S", "--cluster-secret-file",
                    cluster.secretFile().toString());
        } finally {
            System.setOut(original);
        }
        String output = printed.toString(StandardCharsets.UTF_8);
        original.print(output);
        return new Cli(exit, output);
    }

    private static void cleanup(String node) throws Exception {
        assertThat("cleanup on " + node, Main.run("cleanup", "--node", node, "--wait", "--timeout", "PT60S",
                "--cluster-secret-file", cluster.secretFile().toString()), is(0));
    }

    // --- status

    private static HttpResponse<String> send(String node, String method, String target) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(node + target)).timeout(Duration.ofSeconds(20))
                .method(method, HttpRequest.BodyPublishers.noBody()).build();
        return client.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    /**
     * The metadata's epoch and members as the node's status shows them; not its leader or role,
     * which an election may change meanwhile without any membership change.
     */
    private static String metadata(String node) throws Exception {
        String status = send(node, "GET", "/v0/status").body();
        String metadata = status.substring(status.indexOf("\"metadata\":{"));
        long epoch = JsonText.numberField(metadata, "epoch").map(Double::longValue).orElse(-1L);
        int members = metadata.indexOf("\"members\":[");
        return "epoch " + epoch + " " + metadata.substring(members, metadata.indexOf(']', members) + 1);
    }

    private static Set<String> normalMembers(String status) {
        Set<String> normal = new TreeSet<>();
        Matcher member = MEMBER.matcher(status);
        while (member.find()) {
            if (member.group(3).equals("normal")) {
                normal.add(member.group(2));
            }
        }
        return normal;
    }

    private static String stateOf(String status, String url) {
        Matcher member = MEMBER.matcher(status);
        while (member.find()) {
            if (member.group(2).equals(url)) {
                return member.group(3);
            }
        }
        return "absent";
    }

    private static String membershipPhase(String status) {
        int at = status.indexOf("\"membership\":{");
        return at < 0 ? null : JsonText.stringField(status.substring(at), "phase").orElse(null);
    }

    private static void awaitStatus(String node, String what, java.util.function.Predicate<String> condition) throws Exception {
        awaitStatus(node, null, what, condition);
    }

    /** As {@link #awaitStatus(String, String, java.util.function.Predicate)}, on a joiner, which must not exit meanwhile. */
    private static void awaitStatus(Joiner joiner, String what, java.util.function.Predicate<String> condition) throws Exception {
        awaitStatus(joiner.url(), joiner, what, condition);
    }

    private static void awaitStatus(String node, Joiner process, String what, java.util.function.Predicate<String> condition)
            throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        String last = null;
        while (System.nanoTime() < deadline) {
            if (process != null && !process.process().isAlive()) {
                Thread.sleep(200); // the pump thread copies the last lines after the exit
                throw new AssertionError(process.name() + " exited (" + process.process().waitFor() + ") before " + what
                        + "; it printed:\n" + process.printed());
            }
            try {
                last = send(node, "GET", "/v0/status").body();
                if (condition.test(last)) {
                    return;
                }
            } catch (java.io.IOException notAnswering) {
                // not serving yet (a joining node asks to join before it listens): polled again
            }
            Thread.sleep(50);
        }
        throw new AssertionError("not within " + WAIT + ": " + what + "; last status of " + node + ": " + last
                + (process == null ? "" : "; " + process.name() + " printed:\n" + process.printed()));
    }
}
