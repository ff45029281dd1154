package io.ringkv.http.h2;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class RecentStreamIdsTest {

    @Test
    void remembersTheLastIdsAddedAndForgetsTheOldestFirst() {
        RecentStreamIds ids = new RecentStreamIds(3);
        assertThat(ids.contains(1), equalTo(false));
        ids.add(1);
        ids.add(3);
        ids.add(5);
        assertThat(ids.contains(1) && ids.contains(3) && ids.contains(5), equalTo(true));
        ids.add(7);
        assertThat(ids.contains(1), equalTo(false));
        assertThat(ids.contains(3) && ids.contains(5) && ids.contains(7), equalTo(true));
        ids.add(9);
        ids.add(11);
        assertThat(ids.contains(3) || ids.contains(5), equalTo(false));
        assertThat(ids.contains(7) && ids.contains(9) && ids.contains(11), equalTo(true));
    }

    @Test
    void zeroIsNotRememberedBeforeItIsAdded() {
        // The ring starts zero-filled; only ids actually added count.
        RecentStreamIds ids = new RecentStreamIds(4);
        ids.add(2);
        assertThat(ids.contains(0), equalTo(false));
    }

    @Test
    void capacityMustBePositive() {
        assertThrows(IllegalArgumentException.class, () -> new RecentStreamIds(0));
    }
}
