package io.ringkv.store;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each key's compare-and-set state: kept across a reopen, and apart from the data. */
class RocksDbPaxosStateLogTest {
    @TempDir
    Path dir;

    private static byte[] key(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aStateSurvivesAReopenAndStaysOutOfTheData() throws Exception {
        Record accepted = Record.expiring(90, key("proposed"), 5_000);
        try (RocksDbStorageEngine engine = RocksDbStorageEngine.open(dir)) {
            assertThat(engine.paxos().get(key("k")), is(PaxosState.EMPTY));
            engine.paxos().put(key("k"), new PaxosState(100, 0, null));
            engine.paxos().put(key("k"), new PaxosState(120, 110, accepted));
            engine.paxos().put(key("t"), new PaxosState(7, 7, Record.tombstone(7)));
        }
        try (RocksDbStorageEngine engine = RocksDbStorageEngine.open(dir)) {
            PaxosState state = engine.paxos().get(key("k"));
            assertThat(state.promised(), is(120L));
            assertThat(state.acceptedBallot(), is(110L));
            assertThat(state.accepted(), is(accepted));
            assertThat(engine.paxos().get(key("t")).accepted(), is(Record.tombstone(7)));
            assertThat("the data never sees it", engine.get(key("k")), is(Optional.empty()));
            try (RangeCursor all = engine.range(new byte[0], null)) {
                assertThat(all.next(), is(false));
            }
        }
    }

    @Test
    void aStateThatDoesNotHoldTogetherIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new PaxosState(5, 6, Record.tombstone(6)));
        assertThrows(IllegalArgumentException.class, () -> new PaxosState(5, 5, null));
        assertThrows(IllegalArgumentException.class, () -> new PaxosState(5, 0, Record.tombstone(1)));
        assertThrows(CorruptRecordException.class, () -> PaxosState.decode(new byte[] {1, 0, 0}));
        assertThrows(CorruptRecordException.class, () -> PaxosState.decode(new byte[] {9, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
    }
}
