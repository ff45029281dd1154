package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.not;

import io.ringkv.node.access.AccessScope;
import io.ringkv.node.access.Grant;
import io.ringkv.node.access.TokenFile;
import io.ringkv.ops.BearerToken;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Access control on a cluster of three node processes sharing one token file: replicated writes
 * and reads with an application's token, {@code ringkv status --token}, the dashboard's reads of
 * its peers' metrics, and a reload of the file on SIGHUP (a token added works, a token removed
 * stops working, the node keeps running). Waits are bounded polls; how fast is not asserted.
 *
 * <p>Every test uses one cluster (starting one costs seconds of three JVMs' start-up on a two-core
 * machine, and stopping it as much). The reload test changes the token file and node-0's tokens
 * (it removes {@code app}), so it runs last.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AccessControlIT {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Pattern DISK = Pattern.compile("\"node\":\"([^\"]+)\",.*?\"diskBytes\":(\\w+)");

    private static SecuredCluster shared;

    /** The cluster the running test uses, its token file and client, and the two tokens in that file. */
    private ProcessCluster cluster;
    private Path tokens;
    private HttpClient client;
    private String app;
    private String ops;

    @BeforeAll
    static void startShared(@TempDir Path root) throws Exception {
        shared = new SecuredCluster(root);
    }

    @AfterAll
    static void stopShared() {
        if (shared != null) {
            shared.close();
        }
    }

    @BeforeEach
    void useShared() {
        use(shared);
    }

    private void use(SecuredCluster secured) {
        cluster = secured.cluster;
        tokens = secured.tokens;
        client = secured.client;
        app = secured.app;
        ops = secured.ops;
    }

    /**
     * Three nodes reading one token file with an application's token ({@code app}: read, write)
     * and an operator's ({@code ops}: admin).
     *
     * <p>Threading: made and closed on a test thread; its fields do not change after that.
     */
    private static final class SecuredCluster implements AutoCloseable {
        final Path tokens;
        final String app;
        final String ops;
        final ProcessCluster cluster;
        final HttpClient client;

        SecuredCluster(Path root) throws Exception {
            tokens = root.resolve("auth.tokens");
            app = addToken(tokens, "app", "read,write");
            ops = addToken(tokens, "ops", "admin");
            cluster = new ProcessCluster(root, 3, List.of("--auth-file", tokens.toString()));
            client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(2)).build();
        }

        @Override
        public void close() {
            client.close();
            cluster.close();
        }
    }

    private static String addToken(Path tokens, String name, String scopes) throws Exception {
        String token = BearerToken.generate();
        TokenFile.add(tokens, new Grant(name, AccessScope.parseList(scopes), null), BearerToken.sha256(token));
        return token;
    }

    private HttpResponse<String> send(int node, String token, String method, String target, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(cluster.url(node) + target)).timeout(Duration.ofSeconds(20))
                .method(method, body == null ? BodyPublishers.noBody() : BodyPublishers.ofString(body));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return client.send(request.build(), BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    @Test
    void anApplicationTokenWritesAndReadsThroughEveryNode() throws Exception {
        for (int i = 0; i < 3; i++) {
            assertThat(send(i, app, "PUT", "/v0/entity?id=k" + i + "&replicas=3/3", "v" + i).statusCode(), is(201));
        }
        for (int node = 0; node < 3; node++) {
            for (int i = 0; i < 3; i++) {
                HttpResponse<String> read = send(node, app, "GET", "/v0/entity?id=k" + i + "&replicas=3/3", null);
                assertThat(read.statusCode(), is(200));
                assertThat(read.body(), is("v" + i));
            }
            assertThat(send(node, null, "GET", "/v0/entity?id=k0", null).statusCode(), is(401));
            assertThat(send(node, ops, "PUT", "/v0/entity?id=k0", "x").statusCode(), is(403));
        }
    }

    @Test
    void statusReadsEveryNodeWithAToken() throws Exception {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(new PrintWriter(out), new PrintWriter(err), "status", "--node", cluster.url(0),
                "--interval", "PT0.2S", "--token", ops);
        assertThat(out + "" + err, code, is(0));
        for (int node = 0; node < 3; node++) {
            assertThat("disk used is shown, so /metrics answered", row(out.toString(), node),
                    matchesPattern(".*\\s+up\\s+.*\\d+\\.\\d (KiB|MiB)$"));
        }

        StringWriter withoutOut = new StringWriter();
        StringWriter withoutErr = new StringWriter();
        Main.run(new PrintWriter(withoutOut), new PrintWriter(withoutErr), "status", "--node", cluster.url(0), "--interval", "PT0.2S");
        assertThat(withoutErr.toString(), containsString("--token"));
    }

    @Test
    void repairNeedsTheClusterSecretAndNoToken() throws Exception {
        int code = Main.run(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()), "repair", "--node",
                cluster.url(0), "--wait", "--cluster-secret-file", cluster.secretFile().toString());
        assertThat(code, is(0));
    }

    @Test
    void theDashboardReadsItsPeersMetrics() throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        String view = "";
        while (System.nanoTime() < deadline) {
            HttpResponse<String> response = send(0, ops, "GET", "/ui/api/cluster", null);
            assertThat(response.statusCode(), is(200));
            view = response.body();
            Matcher rows = DISK.matcher(view.substring(0, view.indexOf("\"events\"")));
            int known = 0;
            while (rows.find()) {
                known += rows.group(2).equals("null") ? 0 : 1;
            }
            if (known == 3) {
                return;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("node 0's dashboard did not get the disk use of all three nodes from their metrics: " + view);
    }

    /** Last: it takes {@code app} out of node-0's tokens. */
    @Test
    @Order(Integer.MAX_VALUE)
    void aHangUpReloadsTheTokenFile() throws Exception {
        // A test run started under nohup passes SIGHUP on ignored, and a JVM keeps an ignored
        // signal ignored (HangUpIgnoredIT tests what the node says then).
        Assumptions.assumeFalse(hangUpIgnoredHere(), "skipped: SIGHUP is ignored in this process (the test run was "
                + "started under nohup?), so the nodes it starts cannot be told to reload");
        String late = addToken(tokens, "late", "read,write");
        assertThat(send(0, late, "PUT", "/v0/entity?id=late", "v").statusCode(), is(401));
        cluster.signal(0, "HUP");
        awaitStatus(0, late, 201);

        List<String> withoutApp = Files.readAllLines(tokens).stream().filter(line -> !line.startsWith("app ")).toList();
        Files.writeString(tokens, String.join("\n", withoutApp) + "\n");
        cluster.signal(0, "HUP");
        awaitStatus(0, app, 401);
        assertThat("a node not told to reload keeps the tokens it read", send(1, app, "GET", "/v0/entity?id=late", null).statusCode(),
                is(200));
        assertThat(send(0, null, "GET", "/v0/status", null).statusCode(), is(200));
        assertThat(Files.readString(tokens), not(containsString(late)));
    }

    /** Whether this process ignores SIGHUP (bit 0 of {@code SigIgn} in /proc/self/status), which the nodes it starts inherit. */
    private static boolean hangUpIgnoredHere() throws java.io.IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("SigIgn:")) {
                return (Long.parseUnsignedLong(line.substring("SigIgn:".length()).trim(), 16) & 1L) != 0;
            }
        }
        return false;
    }

    /** Polls a PUT with {@code token} on {@code node} until it answers {@code status}. */
    private void awaitStatus(int node, String token, int status) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        int last = 0;
        while (System.nanoTime() < deadline) {
            try {
                last = send(node, token, "PUT", "/v0/entity?id=late", "v").statusCode();
            } catch (java.io.IOException nodeGone) {
                throw new AssertionError("node " + node + " stopped answering after SIGHUP", nodeGone);
            }
            if (last == status) {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("node " + node + " answered " + last + ", not " + status + ", after SIGHUP");
    }

    private String row(String output, int node) {
        for (String line : output.split("\n")) {
            if (line.startsWith(cluster.url(node) + " ")) {
                return line;
            }
        }
        throw new AssertionError("no row for " + cluster.url(node) + " in:\n" + output);
    }
}
