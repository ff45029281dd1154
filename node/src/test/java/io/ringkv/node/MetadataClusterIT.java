package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import io.ringkv.ops.JsonText;
import io.ringkv.ops.MetaCommand;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cluster metadata's Raft group in three node processes: every node reports the same epoch and
 * members; the leader's SIGKILL costs no data request while the other two elect a new leader and
 * take a metadata change; the restarted node catches up to it.
 */
class MetadataClusterIT {

    /** A bound on waiting for the group, not a timing requirement: elections take a few seconds. */
    private static final Duration WAIT = Duration.ofSeconds(40);

    @TempDir
    Path root;

    @Test
    void theGroupSurvivesItsLeadersSigkillWithoutAFailedDataRequestAndTheNodeCatchesUp() throws Exception {
        try (ProcessCluster cluster = new ProcessCluster(root, 3)) {
            List<String> statuses = awaitAll(cluster, List.of(0, 1, 2), status -> epoch(status) == 1 && leader(status).isPresent());
            String members = membersOf(statuses.getFirst());
            for (String status : statuses) {
                assertThat(membersOf(status), equalTo(members));
                assertThat(leader(status), equalTo(leader(statuses.getFirst())));
            }
            assertThat(members.split("\"state\":\"normal\"").length - 1, is(3));
            int leader = indexOf(cluster, statuses.getFirst(), leader(statuses.getFirst()).orElseThrow());
            List<Integer> others = new ArrayList<>(List.of(0, 1, 2));
            others.remove(Integer.valueOf(leader));

            AtomicBoolean writing = new AtomicBoolean(true);
            AtomicInteger done = new AtomicInteger();
            List<String> failures = Collections.synchronizedList(new ArrayList<>());
            Thread writer = Thread.ofPlatform().name("data-load").start(() -> {
                for (int i = 0; writing.get(); i++) {
                    int node = others.get(i % 2);
                    try {
                        HttpResponse<String> put = cluster.put(node, "key" + i, "value" + i, "2/3");
                        HttpResponse<String> get = cluster.get(node, "key" + i, "2/3");
                        if (put.statusCode() != 201 || get.statusCode() != 200 || !get.body().equals("value" + i)) {
                            failures.add("key" + i + " via node-" + node + ": PUT " + put.statusCode() + ", GET " + get.statusCode());
                        }
                        done.incrementAndGet();
                    } catch (Exception e) {
                        failures.add("key" + i + " via node-" + node + ": " + e);
                    }
                }
            });
            try {
                String oldLeader = leader(statuses.getFirst()).orElseThrow();
                cluster.kill(leader);
                List<String> after = awaitAll(cluster, others, status -> leader(status).isPresent()
                        && !leader(status).get().equals(oldLeader));
                assertThat(leader(after.get(0)), equalTo(leader(after.get(1))));

                Run changed = run("meta", "set-replication-factor", "2", "--node", cluster.url(others.getFirst()),
                        "--cluster-secret-file", cluster.secretFile().toString());
                assertThat(changed.errors, changed.exitCode, is(0));
                assertThat(changed.output, containsString("replication factor 2 at metadata epoch 2"));
                Run tooMany = run("meta", "set-replication-factor", "4", "--node", cluster.url(others.getLast()),
                        "--cluster-secret-file", cluster.secretFile().toString());
                assertThat(tooMany.exitCode, is(MetaCommand.EXIT_NOT_CHANGED));
                assertThat(tooMany.errors, containsString("between 1 and the number of members (3)"));
                awaitAll(cluster, others, status -> epoch(status) == 2);

                cluster.restart(leader);
                String caughtUp = awaitAll(cluster, List.of(leader), status -> epoch(status) == 2).getFirst();
                assertThat(caughtUp, containsString("\"replicationFactor\":2"));
                assertThat(membersOf(caughtUp), equalTo(members));
            } finally {
                writing.set(false);
                writer.join();
            }
            assertThat(failures, is(empty()));
            assertThat(done.get(), greaterThan(0));

            Run status = run("status", "--node", cluster.url(leader), "--interval", "PT0.2S");
            assertThat(status.output, containsString("metadata epoch 2"));
            assertThat(status.output, containsString("replication factor 2"));
            assertThat(status.output.split(" normal").length - 1, is(3));
        }
    }

    @Test
    void aSingleNodeFormsAOneVoterGroup() throws Exception {
        try (ProcessCluster cluster = new ProcessCluster(root, 1)) {
            String status = awaitAll(cluster, List.of(0), s -> epoch(s) == 1).getFirst();
            assertThat(status, containsString("\"replicationFactor\":1"));
            assertThat(leader(status), not(equalTo(Optional.empty())));
            assertThat(membersOf(status), containsString("\"url\":\"" + cluster.url(0) + "\""));
            String metrics = cluster.send(0, "GET", "/metrics", null).body();
            assertThat(metrics, containsString("ringkv_metadata_epoch 1.0"));
            assertThat(metrics, containsString("ringkv_metadata_leader 1.0"));
        }
    }

    private static List<String> awaitAll(ProcessCluster cluster, List<Integer> nodes, Predicate<String> condition)
            throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        List<String> last = new ArrayList<>();
        while (System.nanoTime() < deadline) {
            last.clear();
            for (int node : nodes) {
                last.add(cluster.send(node, "GET", "/v0/status", null).body());
            }
            if (last.stream().allMatch(condition)) {
                return List.copyOf(last);
            }
            Thread.sleep(100);
        }
        throw new AssertionError("not reached within " + WAIT + "; last statuses: " + last);
    }

    private static String metadataOf(String status) {
        int start = status.indexOf("\"metadata\":{");
        assertThat(status, start, not(is(-1)));
        return status.substring(start);
    }

    private static long epoch(String status) {
        return JsonText.numberField(metadataOf(status), "epoch").map(Double::longValue).orElse(-1L);
    }

    private static Optional<String> leader(String status) {
        String metadata = metadataOf(status);
        return JsonText.stringField(metadata.substring(0, metadata.indexOf("\"members\"")), "leader");
    }

    private static String membersOf(String status) {
        String metadata = metadataOf(status);
        return metadata.substring(metadata.indexOf("\"members\""));
    }

    /** The index of the node whose member id is {@code id}, by its URL in the members list. */
    private static int indexOf(ProcessCluster cluster, String status, String id) {
        String members = membersOf(status);
        int at = members.indexOf("{\"id\":\"" + id + "\",\"url\":\"");
        String url = members.substring(at).replaceFirst("^\\{\"id\":\"[^\"]*\",\"url\":\"([^\"]*)\".*$", "$1");
        for (int i = 0; i < cluster.size(); i++) {
            if (cluster.url(i).equals(url)) {
                return i;
            }
        }
        throw new AssertionError("no node has the URL " + url);
    }

    private record Run(int exitCode, String output, String errors) {
    }

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(new PrintWriter(out), new PrintWriter(err), args);
        return new Run(code, out.toString(), err.toString());
    }
}
