package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ringkv.store.Record;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class ExpiresInTest {
    private static final Record EXPIRING = Record.expiring(1, new byte[0], 10_000);

    @Test
    void wholeSecondsRoundedUpSoAReadableValueShowsAtLeastOne() {
        assertThat(ExpiresIn.seconds(EXPIRING, 9_999), is(OptionalLong.of(1)));
        assertThat(ExpiresIn.seconds(EXPIRING, 9_000), is(OptionalLong.of(1)));
        assertThat(ExpiresIn.seconds(EXPIRING, 8_999), is(OptionalLong.of(2)));
        assertThat(ExpiresIn.seconds(EXPIRING, 8_000), is(OptionalLong.of(2)));
    }

    @Test
    void aRecordWithoutExpiryHasNone() {
        assertThat(ExpiresIn.seconds(Record.value(1, new byte[0]), 5), is(OptionalLong.empty()));
    }

    @Test
    void anExpiredRecordHasNoTimeLeftToShow() {
        assertThrows(IllegalArgumentException.class, () -> ExpiresIn.seconds(EXPIRING, 10_000));
    }
}
