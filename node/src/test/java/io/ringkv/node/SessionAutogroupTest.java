package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link SessionAutogroup} on a {@code /proc} tree the test writes. */
class SessionAutogroupTest {
    private static final long PID = 4242;
    private static final String AT_0 = "/autogroup-77 nice 0\n";

    @TempDir
    Path root;
    private FakeProc fake;

    @BeforeEach
    void fakeProc() {
        fake = new FakeProc(root);
    }

    @Test
    void aSessionLeaderAloneInItsSessionMayChangeItsGroup() throws Exception {
        fake.autogroupsEnabled("1").process(PID, "java", PID, PID, AT_0).process(1, "init", 0, 1, null)
                .process(300, "bash", 1, 300, null);
        SessionAutogroup group = fake.group(PID);

        assertThat(group.refusal(), is(nullValue()));
        assertThat(group.nice(), is(0));
        group.setNice(19);
        assertThat(fake.autogroupFile(PID), is("19"));
    }

    @Test
    void aProcessThatSharesItsSessionLeavesTheGroupAlone() throws Exception {
        fake.autogroupsEnabled("1").process(300, "bash", 1, 300, AT_0).process(PID, "java", 300, 300, AT_0);

        assertThat(fake.group(PID).refusal(), containsString("shares its session 300"));
    }

    @Test
    void anotherProcessInTheLeadersSessionIsNamed() throws Exception {
        fake.autogroupsEnabled("1").process(PID, "java", 1, PID, AT_0).process(5000, "child", PID, PID, null);

        assertThat(fake.group(PID).refusal(), containsString("process 5000"));
    }

    @Test
    void aKernelThatDoesNotGroupSessionsIsSaidSo() throws Exception {
        fake.autogroupsEnabled("0").process(PID, "java", 1, PID, AT_0);

        assertThat(fake.group(PID).refusal(), containsString("sched_autogroup_enabled is 0"));
    }

    @Test
    void aKernelWithoutAutogroupsIsSaidSo() throws Exception {
        fake.process(PID, "java", 1, PID, null);

        assertThat(fake.group(PID).refusal(), containsString("does not group sessions"));
    }

    @Test
    void aCommandNameWithSpacesAndParenthesesIsReadPastItsLastParenthesis() throws Exception {
        // Read up to its first ')', the other process's name would put it in session 4242.
        fake.autogroupsEnabled("1").process(PID, "a) (b c", 1, PID, AT_0).process(5000, "x ) 1 2 4242", 1, 9, null);

        assertThat(fake.group(PID).refusal(), is(nullValue()));
    }

    @Test
    void aProcessInAnotherCpuCgroupOfVersionOneIsSaidSo() throws Exception {
        fake.autogroupsEnabled("1").process(PID, "java", 1, PID, AT_0)
                .cgroups(PID, "4:memory:/x\n3:cpu,cpuacct:/system.slice/ringkv.service\n0::/\n");

        assertThat(fake.group(PID).refusal(), containsString("CPU cgroup /system.slice/ringkv.service"));
    }

    @Test
    void theRootCpuCgroupOfVersionOneCounts() throws Exception {
        fake.autogroupsEnabled("1").process(PID, "java", 1, PID, AT_0).cgroups(PID, "4:memory:/x\n1:cpu:/\n0::/\n");

        assertThat(fake.group(PID).refusal(), is(nullValue()));
    }

    @Test
    void aVersionTwoCgroupCountsOnlyWhereTheRootHandsOutTheCpuController() throws Exception {
        fake.autogroupsEnabled("1").process(PID, "java", 1, PID, AT_0).cgroups(PID, "0::/user.slice/session-3.scope\n")
                .subtreeControl("memory pids");
        assertThat(fake.group(PID).refusal(), is(nullValue()));

        fake.subtreeControl("cpuset cpu io memory pids");
        assertThat(fake.group(PID).refusal(), containsString("CPU cgroup /user.slice/session-3.scope"));
    }

    @Test
    void aGroupLineOfAnotherShapeIsAnError() throws Exception {
        fake.autogroupsEnabled("1").process(PID, "java", 1, PID, "nice: zero\n");

        IOException e = assertThrows(IOException.class, () -> fake.group(PID).nice());
        assertThat(e.getMessage(), containsString("nice: zero"));
    }

    @Test
    void aNegativeNiceIsRead() throws Exception {
        fake.autogroupsEnabled("1").process(PID, "java", 1, PID, "/autogroup-77 nice -5\n");

        assertThat(fake.group(PID).nice(), is(-5));
    }
}
