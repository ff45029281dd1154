package io.ringkv.node;

import static io.ringkv.node.MembershipNodes.WAIT;
import static io.ringkv.node.MembershipNodes.membershipPhase;
import static io.ringkv.node.MembershipNodes.normalMembers;
import static io.ringkv.node.MembershipNodes.stateOf;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.endsWith;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

import io.ringkv.cluster.ClusterSecretFile;
import io.ringkv.ops.JsonText;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.TreeSet;
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
 * it streams, aborts, an initial node (a voter) decommissioned and another killed, and last the killed one
 * replaced with {@code ringkv replace}. A writer thread keeps PUTting at the default replicas through the initial nodes
 * while the membership changes; every write must be acknowledged, read back, and end on exactly
 * three nodes once the former owners cleaned up.
 */
@Timeout(600)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MembershipIT {
    private static final String PREFIX = "mi-";
    private static final int[] INITIAL = {0, 1, 2};

    @TempDir
    static Path root;

    private static MembershipNodes nodes;

    @BeforeAll
    static void start() throws Exception {
        nodes = MembershipNodes.start(root, PREFIX, 500);
    }

    @AfterEach
    void stopWriters() {
        nodes.stopWriters();
    }

    @AfterAll
    static void stop() {
        if (nodes != null) {
            nodes.close();
        }
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
        String before = nodes.metadata(nodes.cluster().url(0));
        assertThat(normalMembers(before).size(), is(3));

        Path wrongSecret = ClusterSecretFile.create(root.resolve("wrong.secret"));
        MembershipNodes.Joiner forged = nodes.startJoiner("forged", nodes.cluster().url(0), wrongSecret);
        int exit = nodes.awaitExit(forged);
        assertThat(forged.printed(), exit, is(Main.EXIT_CANNOT_START));
        assertThat(forged.printed(), containsString("without a valid proof of the cluster secret"));

        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int usage = Main.run(new PrintWriter(out), new PrintWriter(err), "serve", "--port", "0", "--data",
                root.resolve("usage").toString(), "--join", nodes.cluster().url(0), "--cluster", nodes.cluster().url(0) + "," + nodes.cluster().url(1),
                "--cluster-secret-file", nodes.cluster().secretFile().toString());
        assertThat(err.toString(), usage, is(Main.EXIT_USAGE));
        assertThat(err.toString(), containsString("--join and --cluster exclude each other"));

        MembershipNodes.Cli tooFew = decommission(nodes.cluster().url(0));
        assertThat(tooFew.output(), tooFew.exit(), is(1));
        assertThat(tooFew.output(), containsString("409"));
        assertThat(tooFew.output(), containsString("would leave 2 members for replication factor 3; lower it first with "
                + "ringkv meta set-replication-factor"));

        assertThat("node-0 still serves", nodes.cluster().send(0, "GET", "/v0/status", null).statusCode(), is(200));
        assertThat("the metadata after the refusals", nodes.metadata(nodes.cluster().url(0)), equalTo(before));
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
        MembershipNodes.Joiner fourth = ownSessionsGrouped()
                ? nodes.startJoinerInItsOwnSession("joiner-3", nodes.cluster().url(0)) : null;
        if (fourth == null) {
            System.err.println("joinThenDecommissionUnderWrites: no setsid, or the kernel does not group sessions for "
                    + "scheduling: the joining node's CPU share is not checked");
            fourth = nodes.startJoiner("joiner-3", nodes.cluster().url(0), nodes.cluster().secretFile());
        } else {
            // Lowered before the node serves, so long before its join (seconds of streaming) is over.
            awaitPrinted(fourth, "this node's session runs at autogroup nice 19 (was 0)");
            assertThat(autogroupOf(fourth), endsWith(" nice 19"));
        }
        nodes.awaitJoined(fourth);
        if (ownSessionsGrouped() && fourth.printed().contains("autogroup nice 19")) {
            awaitPrinted(fourth, "the join is over: this node's session runs at autogroup nice 0 again");
            assertThat(autogroupOf(fourth), endsWith(" nice 0"));
        }
        writer.awaitMore(50); // writes under the new view too
        assertThat("writes during the join, of " + writer.writes(), writer.stop(), is(empty()));

        List<String> all = List.of(nodes.cluster().url(0), nodes.cluster().url(1), nodes.cluster().url(2), fourth.url());
        nodes.readBack(all);
        nodes.cleanupAll(all);
        nodes.awaitOnExactlyThree(all);

        BackgroundWriter again = startWriter("w2-");
        again.awaitMore(20);
        MembershipNodes.Cli left = decommission(fourth.url());
        assertThat(left.output(), left.exit(), is(0));
        int status = nodes.awaitExit(fourth);
        assertThat("the decommissioned process's exit status: " + fourth.printed(), status, is(0));
        again.awaitMore(50);
        assertThat("writes during the decommission, of " + again.writes(), again.stop(), is(empty()));

        List<String> remaining = all.subList(0, 3);
        String metadata = nodes.metadata(nodes.cluster().url(0));
        assertThat(metadata, stateOf(metadata, fourth.url()), is("left"));
        assertThat(metadata, normalMembers(metadata), equalTo(new TreeSet<>(remaining)));
        nodes.readBack(remaining);
        nodes.awaitOnExactlyThree(remaining);
    }

    /**
     * A joining node SIGKILLed while it streams stays {@code joining} in the metadata (so a second
     * join is refused meanwhile); started again on its data directory it goes through the steps
     * from the top and completes, without asking the member {@code --join} names.
     */
    @Test
    @Order(3)
    void aJoiningNodeKilledWhileStreamingCompletesWhenStartedAgain() throws Exception {
        BackgroundWriter writer = startWriter("w3-");
        writer.awaitMore(20);
        MembershipNodes.Joiner joining = nodes.startJoiner("joiner-4", nodes.cluster().url(1), nodes.cluster().secretFile());
        nodes.awaitStatus(joining, "joiner-4 streaming", status -> "streaming".equals(membershipPhase(status)));
        if (ownSessionsGrouped()) {
            // It shares this test JVM's session: lowering the session's share would slow the test too.
            assertThat(joining.printed(), containsString("keeps its usual CPU share: the process shares its session"));
        }
        joining.process().kill();
        String meanwhile = nodes.metadata(nodes.cluster().url(0));
        assertThat(meanwhile, stateOf(meanwhile, joining.url()), is("joining"));

        MembershipNodes.Joiner second = nodes.startJoiner("joiner-5", nodes.cluster().url(0), nodes.cluster().secretFile());
        int refused = nodes.awaitExit(second);
        assertThat(second.printed(), refused, is(Main.EXIT_CANNOT_START));
        assertThat(second.printed(), containsString("a change is in progress"));
        assertThat("a refused join changes nothing", nodes.metadata(nodes.cluster().url(0)), equalTo(meanwhile));

        // It joined before: it starts from its data directory, whatever --join names (here nothing that answers).
        MembershipNodes.Joiner again = nodes.restart(joining, "http://127.0.0.1:1");
        nodes.awaitJoined(again);
        assertThat(again.printed(), containsString("this node joined the cluster before (joining at epoch"));
        writer.awaitMore(50);
        assertThat("writes during the join, of " + writer.writes(), writer.stop(), is(empty()));

        List<String> all = List.of(nodes.cluster().url(0), nodes.cluster().url(1), nodes.cluster().url(2), again.url());
        nodes.readBack(all);
        nodes.cleanupAll(all);
        nodes.awaitOnExactlyThree(all);
    }

    /**
     * {@code ringkv abort} rolls back a join in the middle of its streaming (the node becomes
     * {@code left}; the owners keep every key), the join of a node killed for good through a live
     * member ({@code --member}), and a decommission in the middle of its hand-over
     * (the node becomes {@code normal} again and answers {@code /v0/status} with 200; the copies
     * it handed over are dropped by the nodes that took them); nothing acknowledged is lost, and
     * every key ends on exactly three nodes; a node with no step in progress has nothing to abort
     * (exit 1).
     */
    @Test
    @Order(4)
    void abortRollsAJoinAndADecommissionBack() throws Exception {
        BackgroundWriter writer = startWriter("w4-");
        writer.awaitMore(20);
        // --join names a member that is not there first: the next one is asked. It warms up first,
        // before the metadata names it: from then on it is sent writes, which a node warming up fails.
        MembershipNodes.Joiner joining = nodes.startJoinerWarmingUp("joiner-6", "http://127.0.0.1:1," + nodes.cluster().url(0),
                Duration.ofSeconds(3));
        awaitNamedOnlyOnceWarm(joining);
        nodes.awaitStatus(joining, "joiner-6 streaming", status -> "streaming".equals(membershipPhase(status)));
        MembershipNodes.Cli aborted = nodes.cli("abort", "--node", joining.url());
        assertThat(aborted.output(), aborted.exit(), is(0));
        String afterJoin = nodes.metadata(nodes.cluster().url(0));
        assertThat(afterJoin, stateOf(afterJoin, joining.url()), is("left"));
        joining.process().stop(Duration.ofSeconds(10));

        // A joining node gone for good (SIGKILLed while it streams, never started again) holds the
        // cluster in its change until its join is rolled back through a live member.
        MembershipNodes.Joiner lost = nodes.startJoiner("joiner-8", nodes.cluster().url(0));
        nodes.awaitStatus(lost, "joiner-8 streaming", status -> "streaming".equals(membershipPhase(status)));
        lost.process().kill();
        nodes.awaitExit(lost);
        MembershipNodes.Cli unreachable = nodes.cli("abort", "--node", lost.url());
        assertThat(unreachable.output(), unreachable.exit(), is(1));
        assertThat(unreachable.output(), containsString("add --member URL"));
        MembershipNodes.Cli through = nodes.cli("abort", "--node", lost.url(), "--member", nodes.cluster().url(1));
        assertThat(through.output(), through.exit(), is(0));
        String afterLost = nodes.metadata(nodes.cluster().url(0));
        assertThat(afterLost, stateOf(afterLost, lost.url()), is("left"));

        // joiner-4 joined in the test before: it is a normal member that is not a voter.
        MembershipNodes.Joiner member = nodes.running("joiner-4");
        MembershipNodes.Cli leaving = nodes.cli("decommission", "--node", member.url(), "--no-wait");
        assertThat(leaving.output(), leaving.exit(), is(0));
        // Rolled back once its hand-over sent copies to the owners its keys would have had.
        nodes.awaitStatus(member, "joiner-4 has handed records over", status -> handedOver(status) > 0);
        MembershipNodes.Cli back = nodes.cli("abort", "--node", member.url());
        assertThat(back.output(), back.exit(), is(0));
        String afterLeave = nodes.metadata(nodes.cluster().url(0));
        assertThat(afterLeave, stateOf(afterLeave, member.url()), is("normal"));
        assertThat(member.process().isAlive(), is(true));
        assertThat(status(member.url()), is(200));
        MembershipNodes.Cli nothing = nodes.cli("abort", "--node", member.url());
        assertThat(nothing.output(), nothing.exit(), is(1));
        assertThat(nothing.output(), containsString("no join or decommission to abort"));

        writer.awaitMore(50);
        assertThat("writes during the aborts, of " + writer.writes(), writer.stop(), is(empty()));
        List<String> all = List.of(nodes.cluster().url(0), nodes.cluster().url(1), nodes.cluster().url(2), member.url());
        nodes.readBack(all);
        // The copies the rolled-back leave handed over are dropped by their holders, unasked.
        nodes.awaitOnExactlyThree(all);
    }

    /**
     * Waits (bounded) until node-0's metadata names {@code joining}, and checks that it had warmed
     * up by then: the metadata is read before the node's output, so a name seen while the output
     * still lacks the end of the warm-up was given during it.
     */
    private static void awaitNamedOnlyOnceWarm(MembershipNodes.Joiner joining) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            boolean named = nodes.metadataOrEmpty(nodes.cluster().url(0)).contains(joining.url());
            String printed = joining.printed();
            if (named) {
                assertThat("named joining before it had warmed up:\n" + printed, printed, containsString("warmed up in"));
                return;
            }
            if (System.nanoTime() > deadline || !joining.process().isAlive()) {
                throw new AssertionError(joining.name() + " was not named in the metadata within " + WAIT + ":\n" + printed);
            }
            Thread.sleep(20);
        }
    }

    /** The records a membership step in progress has handed over, as the node's status says (0: none or no step). */
    private static long handedOver(String status) {
        int at = status.indexOf("\"membership\":{");
        return at < 0 ? 0 : JsonText.numberField(status.substring(at), "records").map(Double::longValue).orElse(0L);
    }

    /**
     * An initial node, a metadata voter, is decommissioned under writes through the two other
     * initial nodes: the joined member (joiner-4) takes its vote, the node exits 0, no write fails
     * and every key ends on exactly three nodes; the joined member then votes.
     */
    @Test
    @Order(5)
    void anInitialVoterLeavesAndTheJoinedMemberTakesItsVote() throws Exception {
        MembershipNodes.Joiner member = nodes.running("joiner-4");
        nodes.awaitStatus(member, "joiner-4's metadata server listens in the group", status -> status.contains("\"role\":\"listener\""));
        BackgroundWriter writer = nodes.startWriter("w5-", new int[] {1, 2});
        writer.awaitMore(20);
        MembershipNodes.Cli left = decommission(nodes.cluster().url(0));
        assertThat(left.output(), left.exit(), is(0));
        assertThat("node-0's exit status", nodes.cluster().awaitExit(0, WAIT), is(0));
        writer.awaitMore(50);
        assertThat("writes during the decommission, of " + writer.writes(), writer.stop(), is(empty()));

        List<String> remaining = List.of(nodes.cluster().url(1), nodes.cluster().url(2), member.url());
        String metadata = nodes.metadata(nodes.cluster().url(1));
        assertThat(metadata, stateOf(metadata, nodes.cluster().url(0)), is("left"));
        assertThat(metadata, normalMembers(metadata), equalTo(new TreeSet<>(remaining)));
        nodes.awaitStatus(member, "joiner-4 votes", status -> status.contains("\"role\":\"follower\"")
                || status.contains("\"role\":\"leader\""));
        nodes.readBack(remaining);
        nodes.awaitOnExactlyThree(remaining);
    }

    /**
     * After the test before: a second initial node is SIGKILLed, and the two voters left (one of
     * them the joined member, which took the leaving node's vote) still commit a metadata change.
     */
    @Test
    @Order(6)
    void theGroupOutlivesOneMoreLossAfterTheVoteMoved() throws Exception {
        MembershipNodes.Joiner member = nodes.running("joiner-4");
        nodes.cluster().kill(1);
        // The command gives up after about ten seconds without a leader and says to ask again: while
        // the two voters left elect one, it is asked again (bounded by WAIT).
        long deadline = System.nanoTime() + WAIT.toNanos();
        MembershipNodes.Cli changed = nodes.cli("meta", "set-replication-factor", "2", "--node", nodes.cluster().url(2));
        while (changed.exit() != 0 && System.nanoTime() < deadline) {
            changed = nodes.cli("meta", "set-replication-factor", "2", "--node", nodes.cluster().url(2));
        }
        assertThat(changed.output() + "\njoiner-4 printed:\n" + member.printed(), changed.exit(), is(0));
        nodes.awaitStatus(member, "joiner-4 applied replication factor 2", status -> status.contains("\"replicationFactor\":2"));
        // Only a join is rolled back without its node: the killed node-1 is normal.
        String before = nodes.metadata(nodes.cluster().url(2));
        MembershipNodes.Cli notJoining = nodes.cli("abort", "--node", nodes.cluster().url(1), "--member", nodes.cluster().url(2));
        assertThat(notJoining.output(), notJoining.exit(), is(1));
        assertThat(notJoining.output(), containsString("is normal, not joining"));
        assertThat("a refused abort changes nothing", nodes.metadata(nodes.cluster().url(2)), equalTo(before));
    }

    /**
     * After the test before (node-1 killed, replication factor 2): the factor goes back to 3, a
     * {@code ringkv replace} naming a live member is refused and changes nothing, and then one
     * takes the killed node's place under writes through node-2; SIGKILLed while it streams, it is
     * started again with the same command. The new node receives the dead
     * member's keys from the survivors and becomes normal, the dead member becomes {@code left},
     * no write fails, and every key reads back and ends on exactly three nodes.
     */
    @Test
    @Order(7)
    void aDeadMemberIsReplacedUnderWrites() throws Exception {
        MembershipNodes.Joiner member = nodes.running("joiner-4");
        MembershipNodes.Cli three = nodes.cli("meta", "set-replication-factor", "3", "--node", nodes.cluster().url(2));
        assertThat(three.output(), three.exit(), is(0));
        nodes.awaitStatus(member, "joiner-4 applied replication factor 3", status -> status.contains("\"replicationFactor\":3"));
        // The node whose metadata is compared applies the entry on its own time, perhaps after joiner-4.
        nodes.awaitStatus(nodes.cluster().url(2), null, "node-2 applied replication factor 3",
                status -> status.contains("\"replicationFactor\":3"));
        String before = nodes.metadata(nodes.cluster().url(2));

        MembershipNodes.Joiner live = nodes.startReplacement("replacer-live", nodes.cluster().url(2), nodes.cluster().url(2));
        int refused = nodes.awaitExit(live);
        assertThat(live.printed(), refused, is(Main.EXIT_CANNOT_START));
        assertThat(live.printed(), containsString("that node answers (200 on /v0/status), so it is not dead"));
        assertThat("a refused replace changes nothing", nodes.metadata(nodes.cluster().url(2)), equalTo(before));

        BackgroundWriter writer = nodes.startWriter("w7-", new int[] {2});
        writer.awaitMore(20);
        String dead = nodes.cluster().url(1);
        MembershipNodes.Joiner first = nodes.startReplacement("replacer-7", dead, nodes.cluster().url(2));
        // SIGKILLed while the survivors stream to it; the same command started again completes the step.
        nodes.awaitStatus(first, "replacer-7 streaming", status -> "streaming".equals(membershipPhase(status)));
        first.process().kill();
        String meanwhile = nodes.metadata(nodes.cluster().url(2));
        assertThat(meanwhile, stateOf(meanwhile, first.url()), is("joining"));
        MembershipNodes.Joiner replacement = nodes.restartReplacement(first, dead, nodes.cluster().url(2));
        nodes.awaitStatus(replacement, "replacer-7's replacement done", status -> "done".equals(membershipPhase(status)));
        List<String> remaining = List.of(nodes.cluster().url(2), member.url(), replacement.url());
        nodes.awaitStatus(nodes.cluster().url(2), null, "node-1 left and replacer-7 normal in the metadata",
                status -> "left".equals(stateOf(status, dead)) && normalMembers(status).equals(new TreeSet<>(remaining)));
        writer.awaitMore(50);
        assertThat("writes during the replacement, of " + writer.writes(), writer.stop(), is(empty()));

        nodes.readBack(remaining);
        nodes.awaitOnExactlyThree(remaining);
    }

    /**
     * After the test before, two of the three metadata voters joined the cluster (joiner-4 took
     * node-0's vote, replacer-7 node-1's). Every node is SIGKILLed at once, as in a power cut, and
     * started again with the command it was started with. A member answers a join only with a
     * majority of the voters behind it, which here needs the joined nodes: on the code before,
     * they asked until they gave up, and the cluster never came back. Now they start from their
     * data directories; the group elects a leader, writes succeed, every key reads back and is
     * on exactly three nodes.
     */
    @Test
    @Order(8)
    void theWholeClusterKilledAtOnceComesBackWhenMostVotersJoined() throws Exception {
        MembershipNodes.Joiner member = nodes.running("joiner-4");
        MembershipNodes.Joiner replacement = nodes.running("replacer-7");
        for (MembershipNodes.Joiner joined : List.of(member, replacement)) {
            nodes.awaitStatus(joined, joined.name() + " votes", MembershipIT::votes);
        }
        nodes.cluster().kill(2);
        member.process().kill();
        replacement.process().kill();
        nodes.awaitExit(member);
        nodes.awaitExit(replacement);

        nodes.cluster().restart(2);
        String survivor = nodes.cluster().url(2);
        MembershipNodes.Joiner memberAgain = nodes.restart(member, survivor);
        MembershipNodes.Joiner replacementAgain = nodes.restartReplacement(replacement, nodes.cluster().url(1), survivor);
        List<String> all = List.of(survivor, memberAgain.url(), replacementAgain.url());
        nodes.awaitStatus(survivor, null, "a metadata leader among the three",
                status -> status.contains("\"metadata\":{") && new HashSet<>(all).contains(MembershipNodes.leaderUrl(status)));
        for (MembershipNodes.Joiner joined : List.of(memberAgain, replacementAgain)) {
            assertThat(joined.printed(), containsString("this node joined the cluster before (normal at epoch"));
            nodes.awaitStatus(joined, joined.name() + " votes again", MembershipIT::votes);
        }

        BackgroundWriter writer = nodes.startWriter("w8-", new int[] {2});
        writer.awaitMore(50);
        assertThat("writes after the restart, of " + writer.writes(), writer.stop(), is(empty()));
        nodes.readBack(all);
        nodes.awaitOnExactlyThree(all);
    }

    /** Whether the node's status says its metadata server is a voter (a follower or the leader). */
    private static boolean votes(String status) {
        return status.contains("\"role\":\"follower\"") || status.contains("\"role\":\"leader\"");
    }

    /** {@code ringkv decommission} in this JVM, waiting up to two minutes for the node to leave. */
    private static MembershipNodes.Cli decommission(String node) throws Exception {
        return nodes.cli("decommission", "--node", node, "--timeout", "PT120S");
    }

    /** A writer through the initial nodes (the joined ones come and go), new keys under {@code PREFIX + name}. */
    private static BackgroundWriter startWriter(String name) {
        return nodes.startWriter(name, INITIAL);
    }

    /** Whether the kernel schedules sessions as groups (autogroup), which a joining node's CPU share relies on. */
    private static boolean ownSessionsGrouped() throws Exception {
        Path enabled = Path.of("/proc/sys/kernel/sched_autogroup_enabled");
        return Files.isReadable(enabled) && Files.readString(enabled).strip().equals("1");
    }

    /** The node process's autogroup line, e.g. {@code /autogroup-94 nice 19}. */
    private static String autogroupOf(MembershipNodes.Joiner joiner) throws Exception {
        return Files.readString(Path.of("/proc", Long.toString(joiner.process().pid()), "autogroup")).strip();
    }

    /** Waits (bounded) until the node has printed {@code text}. */
    private static void awaitPrinted(MembershipNodes.Joiner joiner, String text) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!joiner.printed().contains(text)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the node did not print \"" + text + "\" within " + WAIT + ":\n" + joiner.printed());
            }
            Thread.sleep(50);
        }
    }

    private static int status(String node) throws Exception {
        return nodes.send(node, "GET", "/v0/status").statusCode();
    }
}
