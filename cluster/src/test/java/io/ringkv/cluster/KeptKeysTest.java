package io.ringkv.cluster;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import io.ringkv.store.InMemoryStorageEngine;
import io.ringkv.store.RangeCursor;
import io.ringkv.store.Record;
import io.ringkv.store.StorageEngine;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class KeptKeysTest {

    @Test
    void aFollowUpReadsTheRememberedKeysAsTheyStandNowPassingOverOnesGone() throws Exception {
        StorageEngine engine = new InMemoryStorageEngine();
        KeptKeys kept = new KeptKeys();
        for (String key : List.of("a", "b", "c")) {
            engine.apply(utf8(key), Record.value(1, utf8(key)));
            kept.add(utf8(key));
        }
        engine.apply(utf8("b"), Record.value(2, utf8("newer")));
        engine.purge(utf8("c"), engine.get(utf8("c")).orElseThrow());

        List<String> read = new ArrayList<>();
        try (RangeCursor cursor = kept.cursor(engine)) {
            while (cursor.next()) {
                read.add(new String(cursor.key(), StandardCharsets.UTF_8) + "=" + new String(cursor.record().value(),
                        StandardCharsets.UTF_8));
            }
        }

        assertThat(read, is(List.of("a=a", "b=newer")));
        assertThat(kept.count(), is(3L));
        assertThat(kept.overflowed(), is(false));
    }

    @Test
    void moreKeysThanItRemembersOverflowSoTheFollowUpReadsTheWholeStore() {
        KeptKeys many = new KeptKeys();
        for (int i = 0; i <= KeptKeys.MAX; i++) {
            many.add(utf8("k" + i));
        }
        assertThat(many.overflowed(), is(true));
        assertThat(many.count(), is(KeptKeys.MAX + 1L));

        KeptKeys large = new KeptKeys();
        large.add(new byte[(int) (KeptKeys.BYTES_MAX / 2)]);
        large.add(new byte[(int) (KeptKeys.BYTES_MAX / 2)]);
        assertThat("two halves fit", large.overflowed(), is(false));
        large.add(new byte[1]);
        assertThat("one byte more does not", large.overflowed(), is(true));
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
