package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link JoinCpuShare} on a {@code /proc} tree the test writes ({@link FakeProc}). */
class JoinCpuShareTest {
    private static final long PID = 4242;

    @TempDir
    Path root;
    private FakeProc fake;

    @BeforeEach
    void fakeProc() throws Exception {
        fake = new FakeProc(root).autogroupsEnabled("1");
    }

    @Test
    void aNodeAloneInItsSessionJoinsAtNice19AndGetsItsValueBack() throws Exception {
        fake.process(PID, "java", 1, PID, "/autogroup-77 nice 0\n");

        Optional<JoinCpuShare> share = JoinCpuShare.lower(fake.group(PID));
        assertThat(fake.autogroupFile(PID), is("19"));
        share.orElseThrow().restoreWhenOver(Optional.empty());
        assertThat(fake.autogroupFile(PID), is("0"));
    }

    @Test
    void aValueSetBeforeBetween0And19IsTheOneRestored() throws Exception {
        fake.process(PID, "java", 1, PID, "/autogroup-77 nice 5\n");

        JoinCpuShare share = JoinCpuShare.lower(fake.group(PID)).orElseThrow();
        assertThat(fake.autogroupFile(PID), is("19"));
        share.restore();
        assertThat(fake.autogroupFile(PID), is("5"));
    }

    @Test
    void aSharedSessionIsLeftAsItIs() throws Exception {
        fake.process(300, "bash", 1, 300, "/autogroup-5 nice 0\n").process(PID, "java", 300, 300, "/autogroup-5 nice 0\n");

        assertThat(JoinCpuShare.lower(fake.group(PID)).isPresent(), is(false));
        assertThat(fake.autogroupFile(PID), is("/autogroup-5 nice 0\n"));
    }

    @Test
    void aNegativeValueIsLeftAsItIsForNoUnprivilegedProcessCouldSetItBack() throws Exception {
        fake.process(PID, "java", 1, PID, "/autogroup-77 nice -5\n");

        assertThat(JoinCpuShare.lower(fake.group(PID)).isPresent(), is(false));
        assertThat(fake.autogroupFile(PID), is("/autogroup-77 nice -5\n"));
    }

    @Test
    void aGroupAtNice19AlreadyIsLeftAsItIs() throws Exception {
        fake.process(PID, "java", 1, PID, "/autogroup-77 nice 19\n");

        assertThat(JoinCpuShare.lower(fake.group(PID)).isPresent(), is(false));
        assertThat(fake.autogroupFile(PID), is("/autogroup-77 nice 19\n"));
    }
}
