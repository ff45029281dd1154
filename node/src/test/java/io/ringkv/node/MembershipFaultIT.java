package io.ringkv.node;

import static io.ringkv.node.MembershipNodes.leaderUrl;
import static io.ringkv.node.MembershipNodes.membershipPhase;
import static io.ringkv.node.MembershipNodes.metadataOf;
import static io.ringkv.node.MembershipNodes.normalMembers;
import static io.ringkv.node.MembershipNodes.stateOf;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.IntStream;
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
 * Membership steps under faults (issue 33), on node processes; the joining node killed while it
 * streams is {@link MembershipIT}'s. Three nodes started with {@code --cluster} (replication factor
 * 3, every one a metadata voter) serve the whole class, in order:
 * <ol>
 *   <li>the metadata group's leader SIGKILLed while a node joins (the join completes once it is
 *       back);
 *   <li>that joined node SIGKILLed while it hands its keys over in its decommission, and started
 *       again (the decommission completes, the process exits 0);
 *   <li>a member SIGSTOPped before a join begins, so that it misses the epoch that names the
 *       joining node, and woken while the join waits for it (it catches up and answers right);
 *   <li>the metadata leader SIGKILLed while that node hands its keys over in its decommission
 *       (the decommission completes once it is back);
 *   <li>an initial node killed and replaced, and the metadata leader SIGKILLed while the
 *       survivors stream to the new node (the replacement completes once it is back).
 * </ol>
 * A writer keeps PUTting through the nodes that are not hit; every acknowledged write must read
 * back and, once the former owners cleaned up, be on exactly three nodes' local ranges. Only while
 * a node sleeps (3) may a write be refused, and only with a 5xx answer.
 */
@Timeout(600)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MembershipFaultIT {
    /** Keys written before the tests: fewer than MembershipIT's, each of this class's four steps streams them. */
    private static final int PRELOAD = 375;
    private static final String PREFIX = "mf-";

    @TempDir
    static Path root;

    private static MembershipNodes nodes;
    /** The initial node SIGSTOPped now, or -1: woken before the cluster stops, or it would not stop. */
    private static volatile int paused = -1;

    @BeforeAll
    static void start() throws Exception {
        nodes = MembershipNodes.start(root, PREFIX, PRELOAD);
    }

    /** A test that failed half-way leaves no writer running and no node paused into the next. */
    @AfterEach
    void stopWriters() throws Exception {
        nodes.stopWriters();
        if (paused >= 0) {
            nodes.cluster().resume(paused);
            paused = -1;
        }
    }

    @AfterAll
    static void stop() {
        if (nodes != null) {
            nodes.close();
        }
    }

    /**
     * The metadata leader (an initial node: only they are voters) SIGKILLed while a node joins,
     * in the middle of the owners' streaming: the other two elect a leader and keep taking writes;
     * once the killed node is started again (same port and data) the join completes. Another
     * initial node, SIGKILLed as the join ends and started again, still drops the keys it no
     * longer owns, and routes its first writes by the four members it last knew; every
     * acknowledged write reads back and ends on exactly its three owners, with no
     * {@code ringkv cleanup} run by hand.
     */
    @Test
    @Order(1)
    void theMetadataLeaderKilledDuringAJoin() throws Exception {
        String before = nodes.send(nodes.cluster().url(0), "GET", "/v0/status").body();
        int leader = nodes.indexOf(leaderUrl(before));
        int[] survivors = IntStream.range(0, 3).filter(i -> i != leader).toArray();
        BackgroundWriter writer = nodes.startWriter("w1-", survivors);
        writer.awaitMore(20);

        MembershipNodes.Joiner joining = nodes.startJoiner("joiner-1", nodes.cluster().url(survivors[0]));
        nodes.awaitStatus(joining, "joiner-1 streaming", status -> "streaming".equals(membershipPhase(status)));
        nodes.cluster().kill(leader);
        nodes.awaitStatus(nodes.cluster().url(survivors[0]), null, "a leader elected among the two others",
                status -> leaderUrl(status) != null && !leaderUrl(status).equals(nodes.cluster().url(leader)));
        writer.awaitMore(50); // writes while the killed node is down

        nodes.cluster().restart(leader);
        nodes.awaitJoined(joining);
        // A former owner killed the moment the join is over, in the middle of (or before) the
        // cleanup that drops the keys it gave up (at the test's hand-over pace, a run of its store
        // takes seconds): started again, it drops them without being asked. The writer, which
        // writes through it, stops first.
        assertThat("writes during the join, of " + writer.writes(), writer.stop(), is(empty()));
        int formerOwner = survivors[1];
        nodes.cluster().kill(formerOwner);
        nodes.cluster().restart(formerOwner);
        // Its first writes, sent the moment it is ready: they must go to the owners of the four-node
        // cluster it last knew, not to the three nodes of its --cluster list.
        for (int i = 0; i < 20; i++) {
            String key = PREFIX + "restarted-" + i;
            String value = BackgroundWriter.value(key, i);
            HttpResponse<String> put = nodes.cluster().put(formerOwner, key, value, null);
            assertThat(put.body(), put.statusCode(), is(201));
            nodes.acknowledged.put(key, value);
        }

        List<String> all = List.of(nodes.cluster().url(0), nodes.cluster().url(1), nodes.cluster().url(2), joining.url());
        nodes.readBack(all);
        nodes.awaitOnExactlyThree(all); // no `ringkv cleanup`: each former owner runs its own
    }

    /**
     * The node that joined in the test before is decommissioned and SIGKILLed while it hands its
     * keys over; started again with the same flags and data directory, it takes up its
     * decommission, completes it and exits 0; it is {@code left}, and every key is on exactly three
     * of the rest.
     */
    @Test
    @Order(2)
    void theLeavingNodeKilledDuringItsHandOver() throws Exception {
        MembershipNodes.Joiner member = nodes.running("joiner-1");
        BackgroundWriter writer = nodes.startWriter("w2-", new int[] {0, 1, 2});
        writer.awaitMore(20);

        MembershipNodes.Cli leaving = nodes.cli("decommission", "--node", member.url(), "--no-wait");
        assertThat(leaving.output(), leaving.exit(), is(0));
        nodes.awaitStatus(member, "joiner-1 handing its keys over", status -> "streaming".equals(membershipPhase(status)));
        member.process().kill();
        String meanwhile = nodes.metadata(nodes.cluster().url(0));
        assertThat(meanwhile, stateOf(meanwhile, member.url()), is("leaving"));

        MembershipNodes.Joiner again = nodes.restart(member, nodes.cluster().url(0));
        int exit = nodes.awaitExit(again);
        assertThat("the decommissioned process's exit status; it printed:\n" + again.printed(), exit, is(0));
        writer.awaitMore(50);
        assertThat("writes during the decommission, of " + writer.writes(), writer.stop(), is(empty()));

        List<String> remaining = List.of(nodes.cluster().url(0), nodes.cluster().url(1), nodes.cluster().url(2));
        String after = nodes.metadata(nodes.cluster().url(0));
        assertThat(after, stateOf(after, member.url()), is("left"));
        assertThat(after, normalMembers(after), equalTo(new TreeSet<>(remaining)));
        nodes.readBack(remaining);
        nodes.awaitOnExactlyThree(remaining);
    }

    /**
     * A member SIGSTOPped before a join begins misses the epoch that names the joining node; the
     * join waits for every owner to know that epoch, so it waits for the stopped one. Woken, the
     * member's first requests are answered right (a PUT through it is acknowledged and reads back),
     * the join completes, the member shows the same epoch and members as the others, and what was
     * written through it ends on exactly its three owners. (The member cannot sleep through the
     * whole join, as the issue puts it: no join goes on while an owner may route by the view
     * before it.)
     */
    @Test
    @Order(3)
    void aMemberThatMissedEpochsCatchesUp() throws Exception {
        String status = nodes.send(nodes.cluster().url(0), "GET", "/v0/status").body();
        int leader = nodes.indexOf(leaderUrl(status));
        int stale = (leader + 1) % 3;
        int[] awake = IntStream.range(0, 3).filter(i -> i != stale).toArray();
        // While a node sleeps, a write of a key it owns needs every other replica; one of them is
        // the joining node, which takes writes only once it serves, a moment after the metadata
        // names it. A write that falls in that moment is refused (504, not acknowledged), and may
        // still be on some replicas: so this writer writes new keys only, and a refused key may be
        // found or not.
        BackgroundWriter writer = new BackgroundWriter(nodes.cluster(), awake, PREFIX + "w3-", nodes.acknowledged, List.of());
        nodes.startWriter(writer);
        writer.awaitMore(20);

        String before = nodes.metadata(nodes.cluster().url(stale));
        nodes.cluster().pause(stale);
        paused = stale;
        MembershipNodes.Joiner joining = nodes.startJoiner("joiner-2", nodes.cluster().url(awake[0]));
        nodes.awaitStatus(joining, "joiner-2 waiting for the owners to know its epoch",
                s -> String.valueOf(membershipPhase(s)).startsWith("waiting for every owner"));
        String named = nodes.metadata(nodes.cluster().url(awake[0]));
        assertThat(named, stateOf(named, joining.url()), is("joining"));
        writer.awaitMore(20); // writes while the member sleeps

        nodes.cluster().resume(stale);
        paused = -1;
        // Its first requests after waking, sent at once: it must not answer from the epoch it slept at.
        String key = PREFIX + "stale-0";
        String value = BackgroundWriter.value(key, 0);
        HttpResponse<String> put = nodes.cluster().put(stale, key, value, null);
        assertThat(put.body(), put.statusCode(), is(201));
        nodes.acknowledged.put(key, value);
        assertThat(nodes.wrongRead(nodes.cluster().url(stale), key), is((String) null));

        nodes.awaitJoined(joining);
        nodes.awaitStatus(nodes.cluster().url(stale), null, "the woken member at the others' epoch and members",
                s -> metadataOf(s).equals(nodes.metadataOrEmpty(nodes.cluster().url(awake[0]))));
        assertThat(nodes.metadata(nodes.cluster().url(stale)), not(equalTo(before)));
        for (int i = 1; i <= 20; i++) {
            String after = PREFIX + "stale-" + i;
            String afterValue = BackgroundWriter.value(after, i);
            HttpResponse<String> written = nodes.cluster().put(stale, after, afterValue, null);
            assertThat(written.body(), written.statusCode(), is(201));
            nodes.acknowledged.put(after, afterValue);
        }
        writer.awaitMore(20);
        List<String> refused = writer.stop();
        for (String failure : refused) {
            assertThat("only refusals (no write is lost or half answered): " + refused, failure, containsString(": 50"));
            nodes.unsure.add(failure.substring(0, failure.indexOf(" through ")));
        }

        List<String> all = List.of(nodes.cluster().url(0), nodes.cluster().url(1), nodes.cluster().url(2), joining.url());
        nodes.readBack(all);
        nodes.cleanupAll(all);
        nodes.awaitOnExactlyThree(all);
    }

    /**
     * The node that joined in the test before is decommissioned and the metadata leader SIGKILLed
     * while it hands its keys over (the leader is one of the owners it hands them to): once the
     * killed node is back the decommission completes, the process exits 0, it is {@code left}, and
     * every key is on exactly three of the rest.
     */
    @Test
    @Order(4)
    void theMetadataLeaderKilledDuringADecommission() throws Exception {
        MembershipNodes.Joiner member = nodes.running("joiner-2");
        int leader = nodes.indexOf(leaderUrl(nodes.send(nodes.cluster().url(0), "GET", "/v0/status").body()));
        int[] survivors = IntStream.range(0, 3).filter(i -> i != leader).toArray();
        BackgroundWriter writer = nodes.startWriter("w4-", survivors);
        writer.awaitMore(20);

        MembershipNodes.Cli leaving = nodes.cli("decommission", "--node", member.url(), "--no-wait");
        assertThat(leaving.output(), leaving.exit(), is(0));
        nodes.awaitStatus(member, "joiner-2 handing its keys over", status -> "streaming".equals(membershipPhase(status)));
        nodes.cluster().kill(leader);
        nodes.awaitStatus(nodes.cluster().url(survivors[0]), null, "a leader elected among the two others",
                status -> leaderUrl(status) != null && !leaderUrl(status).equals(nodes.cluster().url(leader)));
        writer.awaitMore(50); // writes while the killed node is down

        nodes.cluster().restart(leader);
        int exit = nodes.awaitExit(member);
        assertThat("the decommissioned process's exit status; it printed:\n" + member.printed(), exit, is(0));
        writer.awaitMore(20);
        assertThat("writes during the decommission, of " + writer.writes(), writer.stop(), is(empty()));

        List<String> remaining = List.of(nodes.cluster().url(0), nodes.cluster().url(1), nodes.cluster().url(2));
        String after = nodes.metadata(nodes.cluster().url(0));
        assertThat(after, stateOf(after, member.url()), is("left"));
        assertThat(after, normalMembers(after), equalTo(new TreeSet<>(remaining)));
        nodes.readBack(remaining);
        nodes.awaitOnExactlyThree(remaining);
    }

    /**
     * An initial node (a voter) dies and a new node takes its place; the metadata leader is
     * SIGKILLed while the survivors stream to the new node. With two of the three voters down
     * nothing in the metadata moves; once the killed leader is started again the replacement
     * completes: the dead member is {@code left}, the new node {@code normal}, every acknowledged
     * write reads back and is on exactly its three owners.
     */
    @Test
    @Order(5)
    void theMetadataLeaderKilledDuringAReplacement() throws Exception {
        int leader = nodes.indexOf(leaderUrl(nodes.send(nodes.cluster().url(0), "GET", "/v0/status").body()));
        int dead = (leader + 1) % 3;
        int survivor = (leader + 2) % 3;
        BackgroundWriter writer = nodes.startWriter("w5-", new int[] {survivor});
        writer.awaitMore(20);
        assertThat("writes before the replacement, of " + writer.writes(), writer.stop(), is(empty()));
        nodes.cluster().kill(dead);

        MembershipNodes.Joiner replacement = nodes.startReplacement("replacer-5", nodes.cluster().url(dead),
                nodes.cluster().url(survivor));
        nodes.awaitStatus(replacement, "replacer-5 streaming", status -> "streaming".equals(membershipPhase(status)));
        nodes.cluster().kill(leader);
        nodes.cluster().restart(leader);
        nodes.awaitStatus(replacement, "replacer-5's replacement done", status -> "done".equals(membershipPhase(status)));

        List<String> remaining = List.of(nodes.cluster().url(leader), nodes.cluster().url(survivor), replacement.url());
        nodes.awaitStatus(nodes.cluster().url(survivor), null, "the dead member left and replacer-5 normal",
                status -> "left".equals(stateOf(status, nodes.cluster().url(dead)))
                        && normalMembers(status).equals(new TreeSet<>(remaining)));
        nodes.readBack(remaining);
        nodes.awaitOnExactlyThree(remaining);
    }
}
