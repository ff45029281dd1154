package io.ringkv.cluster;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.lessThanOrEqualTo;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The pace on a clock that moves only when the pacer sleeps (scanning itself takes no time). */
class ScanPacerTest {

    @Test
    void aScanTakesAsLongAsItsRecordsAtTheRateMinusOneBurst() throws Exception {
        AtomicLong now = new AtomicLong(1_000_000_000L);
        ScanPacer pacer = new ScanPacer(1_000, now::get, now::addAndGet);
        for (int i = 0; i < 1_000 / ScanPacer.BATCH; i++) {
            pacer.scanned(ScanPacer.BATCH);
        }
        long scanned = (1_000 / ScanPacer.BATCH) * ScanPacer.BATCH; // 960 records: 960 ms at 1,000/s
        long elapsed = now.get() - 1_000_000_000L;
        assertThat(elapsed, allOf(greaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(scanned - 10)),
                lessThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(scanned))));
    }

    @Test
    void twoScannersShareOneRate() throws Exception {
        AtomicLong now = new AtomicLong(0);
        ScanPacer pacer = new ScanPacer(1_000, now::get, now::addAndGet);
        // Two scanners taking turns (as a node's own scan and a peer's digest would): their 2 x 640
        // records take the time of 1,280 at the one rate, not of 640.
        for (int i = 0; i < 10; i++) {
            pacer.scanned(ScanPacer.BATCH);
            pacer.scanned(ScanPacer.BATCH);
        }
        assertThat(now.get(), greaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(1_280 - 10)));
    }
}
