package io.ringkv.cluster;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ringkv.store.HybridLogicalClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TtlTest {

    @Test
    void parsesWholeSecondsFromOneToTheMaximum() {
        assertThat(Ttl.parse("1"), is(new Ttl(1)));
        assertThat(Ttl.parse("86400"), is(new Ttl(86_400)));
        assertThat(Ttl.parse(Long.toString(Ttl.SECONDS_MAX)), is(new Ttl(Ttl.SECONDS_MAX)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "0", "-1", "+5", "1.5", "1e3", " 5", "5s", "315360001", "99999999999999999999", "٣"})
    void anythingElseIsRefusedWithAMessageNamingTheParameterAndTheRange(String text) {
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> Ttl.parse(text));
        assertThat(refused.getMessage(), containsString("ttl"));
        assertThat(refused.getMessage(), containsString("1 to " + Ttl.SECONDS_MAX));
    }

    @Test
    void theExpiryIsTheTimestampsMillisPlusTheTtl() {
        long timestamp = HybridLogicalClock.timestampOf(1_700_000_000_000L, 7, 3);
        assertThat(new Ttl(2).expiresAtMillis(timestamp), is(1_700_000_002_000L));
    }

    @Test
    void aTtlOutOfRangeCannotBeMade() {
        assertThrows(IllegalArgumentException.class, () -> new Ttl(0));
        assertThrows(IllegalArgumentException.class, () -> new Ttl(Ttl.SECONDS_MAX + 1));
    }
}
