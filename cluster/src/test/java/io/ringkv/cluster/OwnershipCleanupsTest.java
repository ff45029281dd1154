package io.ringkv.cluster;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;

import io.ringkv.cluster.meta.ClusterMetadata;
import io.ringkv.cluster.meta.Member;
import io.ringkv.cluster.meta.MemberState;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * When a node runs a cleanup by itself: a member other than itself became normal, or the factor
 * went down, since its last cleanup that left nothing behind; and after a restart, what that
 * cleanup settled is read back from its file. No clock, no threads: the metadata is offered as
 * {@link KnownMetadata} would, and a run that completes is told as the cleanup would.
 */
class OwnershipCleanupsTest {
    private static final String A = "http://127.0.0.1:7001";
    private static final String B = "http://127.0.0.1:7002";
    private static final String C = "http://127.0.0.1:7003";
    private static final String D = "http://127.0.0.1:7004";
    private static final String SELF = A;

    @TempDir
    Path dir;

    private final AtomicInteger runs = new AtomicInteger();

    private OwnershipCleanups fresh(Path file) {
        OwnershipCleanups cleanups = new OwnershipCleanups(id(SELF), runs::incrementAndGet);
        cleanups.attach(file);
        return cleanups;
    }

    @Test
    void aJoinThatCompletesStartsOneRunAndItsEndIsStored() throws Exception {
        Path file = dir.resolve(SettledOwnershipFile.NAME);
        OwnershipCleanups cleanups = fresh(file);
        cleanups.follow(metadata(3, 3, members(A, B, C)));
        assertThat("the first metadata is settled as it is", runs.get(), is(0));
        assertThat(SettledOwnershipFile.read(file).orElseThrow().normal(), is(ids(A, B, C)));

        cleanups.follow(metadata(4, 3, members(A, B, C).plus(D, MemberState.JOINING)));
        assertThat("a member joining takes nothing yet", runs.get(), is(0));
        cleanups.follow(metadata(5, 3, members(A, B, C, D)));
        assertThat("the join is over: one run", runs.get(), is(1));
        cleanups.follow(metadata(6, 3, members(A, B, C, D)));
        assertThat("the same owners at a later epoch: no second run", runs.get(), is(1));

        cleanups.settled(view(5, A, B, C, D), 3);
        assertThat(SettledOwnershipFile.read(file).orElseThrow(), is(new SettledOwnership(5, 3, ids(A, B, C, D))));
        cleanups.follow(metadata(7, 3, members(A, B, C, D)));
        assertThat(runs.get(), is(1));
    }

    @Test
    void aNodeKilledBeforeItsRunEndedRunsItAgainWhenStarted() {
        Path file = dir.resolve(SettledOwnershipFile.NAME);
        OwnershipCleanups before = fresh(file);
        before.follow(metadata(3, 3, members(A, B, C)));
        before.follow(metadata(5, 3, members(A, B, C, D)));
        assertThat(runs.get(), is(1)); // and the process dies before the run ends

        OwnershipCleanups restarted = fresh(file);
        restarted.follow(metadata(5, 3, members(A, B, C, D)));
        assertThat("started again, the run is due", runs.get(), is(2));
    }

    @Test
    void theMetadataKnownBeforeTheFileIsAttachedIsJudgedAgainstTheFile() throws Exception {
        Path file = dir.resolve(SettledOwnershipFile.NAME);
        SettledOwnershipFile.write(file, new SettledOwnership(3, 3, ids(A, B, C)));
        OwnershipCleanups cleanups = new OwnershipCleanups(id(SELF), runs::incrementAndGet);
        cleanups.follow(metadata(5, 3, members(A, B, C, D))); // a node that joined offers the join's answer first
        assertThat("in memory alone it is settled as it is", runs.get(), is(0));

        cleanups.attach(file);
        assertThat("the file says a member became normal since", runs.get(), is(1));
    }

    @Test
    void thisNodeBecomingNormalTakesNothingFromIt() {
        OwnershipCleanups joining = new OwnershipCleanups(id(D), runs::incrementAndGet);
        joining.attach(dir.resolve(SettledOwnershipFile.NAME));
        joining.follow(metadata(4, 3, members(A, B, C).plus(D, MemberState.JOINING)));
        joining.follow(metadata(5, 3, members(A, B, C, D)));
        assertThat(runs.get(), is(0));
    }

    @Test
    void aReplacementAndALowerFactorEachStartARunAndAHigherOneDoesNot() {
        OwnershipCleanups cleanups = fresh(dir.resolve(SettledOwnershipFile.NAME));
        cleanups.follow(metadata(3, 3, members(A, B, C)));
        cleanups.follow(metadata(4, 3, members(A, B).plus(C, MemberState.LEFT).plus(D, MemberState.NORMAL)));
        assertThat("the replacement is normal", runs.get(), is(1));
        cleanups.settled(view(4, A, B, D), 3);

        cleanups.follow(metadata(5, 2, members(A, B).plus(C, MemberState.LEFT).plus(D, MemberState.NORMAL)));
        assertThat("factor 3 to 2", runs.get(), is(2));
        cleanups.settled(view(5, A, B, D), 2);
        cleanups.follow(metadata(6, 3, members(A, B).plus(C, MemberState.LEFT).plus(D, MemberState.NORMAL)));
        assertThat("factor 2 to 3 gives keys, takes none", runs.get(), is(2));
    }

    @Test
    void aLeaveRolledBackStartsARunEvenAfterARestartAndALeaveDoneDoesNot() throws Exception {
        Path file = dir.resolve(SettledOwnershipFile.NAME);
        OwnershipCleanups cleanups = fresh(file);
        cleanups.follow(metadata(3, 3, members(A, B, C, D)));
        cleanups.follow(metadata(4, 3, members(A, B, C).plus(D, MemberState.LEAVING)));
        assertThat("a leave that starts takes nothing from this node", runs.get(), is(0));
        assertThat("its hand-over may send copies here", SettledOwnershipFile.read(file).orElseThrow().normal(),
                is(ids(A, B, C)));

        OwnershipCleanups restarted = fresh(file); // killed while D left
        restarted.follow(metadata(5, 3, members(A, B, C, D)));
        assertThat("D's leave rolled back (ringkv abort): what it handed here goes back", runs.get(), is(1));

        restarted.settled(view(5, A, B, C, D), 3);
        restarted.follow(metadata(6, 3, members(A, B, C).plus(D, MemberState.LEAVING)));
        restarted.follow(metadata(7, 3, members(A, B, C).plus(D, MemberState.LEFT)));
        assertThat("a leave that completes gave this node keys and took none", runs.get(), is(1));
    }

    @Test
    void aLeaveRolledBackAfterTheJoinOfTheSameMemberStartsARunOfItsOwn() {
        OwnershipCleanups cleanups = fresh(dir.resolve(SettledOwnershipFile.NAME));
        cleanups.follow(metadata(3, 3, members(A, B, C)));
        cleanups.follow(metadata(5, 3, members(A, B, C, D)));
        assertThat("D joined", runs.get(), is(1)); // its run has not ended when D starts to leave
        cleanups.follow(metadata(6, 3, members(A, B, C).plus(D, MemberState.LEAVING)));
        cleanups.follow(metadata(7, 3, members(A, B, C, D)));
        assertThat("the same owners as the run asked for at the join, but copies came since", runs.get(), is(2));

        cleanups.settled(view(7, A, B, C, D), 3);
        cleanups.follow(metadata(8, 3, members(A, B, C).plus(D, MemberState.LEAVING)));
        cleanups.follow(metadata(9, 3, members(A, B, C, D)));
        assertThat("and after a run that settled", runs.get(), is(3));
    }

    @Test
    void aRunThatStartedBeforeALeaveDoesNotSettleTheCopiesTheLeaveSent() {
        OwnershipCleanups cleanups = fresh(dir.resolve(SettledOwnershipFile.NAME));
        cleanups.follow(metadata(3, 3, members(A, B, C, D)));
        cleanups.follow(metadata(6, 3, members(A, B, C).plus(D, MemberState.LEAVING)));
        cleanups.settled(view(5, A, B, C, D), 3); // a run under epoch 5 ends after the leave began
        cleanups.follow(metadata(7, 3, members(A, B, C, D)));
        assertThat("the leave rolled back still calls for a run", runs.get(), is(1));
    }

    @Test
    void aRunUnderAnOlderViewDoesNotOverwriteANewerSettlement() throws Exception {
        Path file = dir.resolve(SettledOwnershipFile.NAME);
        OwnershipCleanups cleanups = fresh(file);
        cleanups.follow(metadata(3, 3, members(A, B, C)));
        cleanups.settled(view(7, A, B, C, D), 3);
        cleanups.settled(view(4, A, B, C), 3);
        assertThat(SettledOwnershipFile.read(file).orElseThrow().epoch(), is(7L));
    }

    @Test
    void aFileThatCannotBeReadMeansARunOnceThisNodeIsNormal() throws Exception {
        Path file = dir.resolve(SettledOwnershipFile.NAME);
        Files.writeString(file, "ringkv settled ownership 1\nepoch twelve\nreplication-factor 3\n", StandardCharsets.UTF_8);
        OwnershipCleanups cleanups = fresh(file);
        cleanups.follow(metadata(5, 3, members(A, B, C)));
        assertThat(runs.get(), is(1));
        cleanups.follow(metadata(6, 3, members(A, B, C)));
        assertThat("asked for once", runs.get(), is(1));
    }

    @Test
    void theFileRefusesWhatItDidNotWrite() throws Exception {
        Path file = dir.resolve(SettledOwnershipFile.NAME);
        for (String text : List.of("", "something else\nepoch 1\nreplication-factor 3\n",
                "ringkv settled ownership 1\nepoch 1\nreplication-factor 0\n",
                "ringkv settled ownership 1\nepoch -1\nreplication-factor 3\n",
                "ringkv settled ownership 1\nepoch 1\nreplication-factor 3\nnormal \n",
                "ringkv settled ownership 1\nepoch 1\nreplication-factor 3\nmember n1\n")) {
            Files.writeString(file, text, StandardCharsets.UTF_8);
            java.io.IOException refused = org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class,
                    () -> SettledOwnershipFile.read(file), text);
            assertThat(refused.getMessage(), containsString(file.toString()));
        }
        Files.write(file, new byte[128 * 1024]);
        org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class, () -> SettledOwnershipFile.read(file));

        SettledOwnership odd = new SettledOwnership(9, 2, Set.of("n1", "id with spaces,\nand a newline"));
        SettledOwnershipFile.write(file, odd);
        assertThat(SettledOwnershipFile.read(file).orElseThrow(), is(odd));
        assertThat(SettledOwnershipFile.read(dir.resolve("absent")).isPresent(), is(false));
    }

    // --- metadata

    private static String id(String url) {
        return Member.idOf(ClusterNode.parse(url));
    }

    private static Set<String> ids(String... urls) {
        return Set.of(java.util.Arrays.stream(urls).map(OwnershipCleanupsTest::id).toArray(String[]::new));
    }

    private static MembershipView view(long epoch, String... normal) {
        List<Member> members = new ArrayList<>();
        for (int i = 0; i < normal.length; i++) {
            members.add(new Member(id(normal[i]), normal[i], MemberState.NORMAL, i, null));
        }
        return MembershipView.of(new ClusterMetadata(epoch, Math.min(3, normal.length), members));
    }

    private static ClusterMetadata metadata(long epoch, int factor, Members members) {
        return new ClusterMetadata(epoch, factor, members.list);
    }

    private static Members members(String... normal) {
        Members members = new Members();
        for (String url : normal) {
            members.plus(url, MemberState.NORMAL);
        }
        return members;
    }

    /** Members in the order given, each with the next clock index. */
    private static final class Members {
        final List<Member> list = new ArrayList<>();

        Members plus(String url, MemberState state) {
            list.add(new Member(id(url), url, state, list.size(), null));
            return this;
        }
    }
}
