package io.ringkv.http.hpack;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import org.junit.jupiter.api.Test;

class NameUsesTest {

    @Test
    void idsAreDenseStableAndCapped() {
        NameUses uses = new NameUses();
        for (int i = 0; i < NameUses.NAMES_TRACKED_MAX; i++) {
            assertThat(uses.idOf("x-name-" + i), equalTo(i));
        }
        for (int i = 0; i < NameUses.NAMES_TRACKED_MAX; i++) {
            assertThat("after growth", uses.idOf(new String("x-name-" + i)), equalTo(i));
        }
        assertThat(uses.idOf("one-too-many"), equalTo(NameUses.UNTRACKED));
        assertThat(uses.worthIndexing(NameUses.UNTRACKED), equalTo(true));
    }

    /** Past the probe, a name hit less than once in eight insertions is indexed one time in 64. */
    @Test
    void aRarelyReusedNameIsProbedNotIndexed() {
        NameUses uses = new NameUses();
        int id = uses.idOf("x-signature");
        int indexed = 0;
        for (int i = 1; i <= 1_000; i++) {
            boolean worth = uses.worthIndexing(id);
            if (i <= NameUses.PROBE_INSERTIONS) {
                assertThat("probe insertion " + i, worth, equalTo(true));
            } else if (worth) {
                indexed++;
            }
        }
        assertThat(indexed, equalTo((1_000 - NameUses.PROBE_INSERTIONS) / NameUses.PROBE_EVERY));
    }

    @Test
    void aReusedNameStaysIndexed() {
        NameUses uses = new NameUses();
        int id = uses.idOf("x-route");
        for (int i = 0; i < 5_000; i++) {
            assertThat(uses.worthIndexing(id), equalTo(true));
            uses.hit(id);
        }
        // Hits without insertions must not overflow into "rarely reused".
        for (int i = 0; i < 300_000_000; i++) {
            uses.hit(id);
        }
        assertThat(uses.worthIndexing(id), equalTo(true));
    }
}
