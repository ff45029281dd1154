package io.ringkv.store;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RecordTest {

    private static final byte[] V = "v".getBytes(StandardCharsets.UTF_8);

    @Test
    void aRecordWithoutTtlNeverExpires() {
        Record value = Record.value(1, V);
        assertThat(value.expires(), is(false));
        assertThat(value.expiredAt(Long.MAX_VALUE), is(false));
        assertThat(value.liveAt(Long.MAX_VALUE), is(true));
    }

    @Test
    void anExpiringRecordIsLiveBeforeItsExpiryAndNotFromItOn() {
        Record expiring = Record.expiring(1, V, 1_000);
        assertThat(expiring.liveAt(999), is(true));
        assertThat(expiring.liveAt(1_000), is(false));
        assertThat(expiring.expiredAt(1_000), is(true));
        assertThat(expiring.liveAt(5_000), is(false));
    }

    @Test
    void aTombstoneIsNeverLive() {
        assertThat(Record.tombstone(1).liveAt(0), is(false));
        assertThat(Record.tombstone(1).expires(), is(false));
    }

    @Test
    void aTombstoneCannotExpireAndAnExpiryIsPositive() {
        assertThrows(IllegalArgumentException.class, () -> new Record(1, true, new byte[0], 5));
        assertThrows(IllegalArgumentException.class, () -> Record.expiring(1, V, 0));
        assertThrows(IllegalArgumentException.class, () -> new Record(1, false, V, -1));
    }

    /** Expiry does not take part in last-write-wins beyond a tie: the newer timestamp wins, expired or not. */
    @Test
    void aNewerExpiredRecordStillWinsOverAnOlderValue() {
        assertThat(Record.expiring(2, V, 1).isNewerThan(Record.value(1, V)), is(true));
        assertThat(Record.value(3, V).isNewerThan(Record.expiring(2, V, 1)), is(true));
    }

    @Test
    void theExpiryTakesPartInEqualityAndBreaksAnExactTie() {
        Record a = Record.expiring(1, V, 10);
        Record b = Record.expiring(1, V, 20);
        assertThat(a.equals(b), is(false));
        assertThat(b.compareTo(a), greaterThan(0));
        assertThat(a.equals(Record.expiring(1, V, 10)), is(true));
        assertThat(a.hashCode(), is(Record.expiring(1, V, 10).hashCode()));
    }
}
