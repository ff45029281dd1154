package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import io.ringkv.store.HybridLogicalClock;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class RecordVersionTest {
    private static final long NOV_6_1994 = Instant.parse("1994-11-06T08:49:37.250Z").toEpochMilli();

    @Test
    void theTagIsTheTimestampQuotedAndTellsEveryWriteApart() {
        long timestamp = HybridLogicalClock.timestampOf(NOV_6_1994, 3, 2);
        assertThat(new RecordVersion(timestamp).entityTag(), is("\"" + Long.toHexString(timestamp) + "\""));
        long sameMillisecondOtherNode = HybridLogicalClock.timestampOf(NOV_6_1994, 3, 5);
        assertThat(new RecordVersion(sameMillisecondOtherNode).entityTag(), is(not(new RecordVersion(timestamp).entityTag())));
    }

    @Test
    void lastModifiedIsTheImfFixdateOfThePhysicalTimeInWholeSeconds() {
        long timestamp = HybridLogicalClock.timestampOf(NOV_6_1994, 7, 1);
        assertThat(new RecordVersion(timestamp).lastModified(NOV_6_1994 + 60_000), is("Sun, 06 Nov 1994 08:49:37 GMT"));
    }

    @Test
    void lastModifiedIsNeverLaterThanTheAnswer() {
        long aheadOfThisNode = HybridLogicalClock.timestampOf(NOV_6_1994 + 5_000, 0, 1);
        assertThat(new RecordVersion(aheadOfThisNode).lastModified(NOV_6_1994), is("Sun, 06 Nov 1994 08:49:37 GMT"));
    }
}
