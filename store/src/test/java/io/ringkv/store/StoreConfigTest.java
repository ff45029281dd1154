package io.ringkv.store;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class StoreConfigTest {

    @Test
    void defaultsSurviveOnlyProcessCrashAndUseDocumentedSizes() {
        StoreConfig config = StoreConfig.defaults();
        assertThat(config.durability(), is(Durability.PROCESS_CRASH));
        assertThat(config.blockCacheBytes(), is(64L << 20));
        assertThat(config.writeBufferBytes(), is(64L << 20));
        assertThat(config.backgroundJobsMax(), is(2));
        assertThat(config.lockStripes(), is(1024));
    }

    @Test
    void withersChangeOneSettingEach() {
        StoreConfig config = StoreConfig.defaults().withDurability(Durability.POWER_LOSS).withLockStripes(8);
        assertThat(config.durability(), is(Durability.POWER_LOSS));
        assertThat(config.lockStripes(), is(8));
        assertThat(config.blockCacheBytes(), is(StoreConfig.DEFAULT_BLOCK_CACHE_BYTES));
    }

    @Test
    void rejectsLockStripesThatAreNotAPowerOfTwo() {
        assertThrows(IllegalArgumentException.class, () -> StoreConfig.defaults().withLockStripes(1000));
        assertThrows(IllegalArgumentException.class, () -> StoreConfig.defaults().withLockStripes(0));
        assertThrows(IllegalArgumentException.class,
                () -> StoreConfig.defaults().withLockStripes(StoreConfig.LOCK_STRIPES_MAX * 2));
    }

    @Test
    void rejectsNonsensicalSizes() {
        assertThrows(IllegalArgumentException.class, () -> StoreConfig.defaults().withBlockCacheBytes(-1));
        assertThrows(IllegalArgumentException.class, () -> StoreConfig.defaults().withWriteBufferBytes(1024));
        assertThrows(IllegalArgumentException.class, () -> StoreConfig.defaults().withBackgroundJobsMax(0));
        assertThrows(NullPointerException.class, () -> StoreConfig.defaults().withDurability(null));
    }
}
