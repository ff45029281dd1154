package io.ringkv.cluster.member;

/**
 * How long a membership step's hand-over has left: the records its runs still have to read, at
 * the pace they read since this estimate first saw them. The first sample only sets the start,
 * so the wait before the runs began does not count as slowness. A run started again reads from
 * the beginning, which makes the count go back: the estimate then says it does not know.
 *
 * <p>Threading: confined to the step's thread.
 */
final class ScanEstimate {
    private long firstMillis = -1;
    private long firstScanned;

    /**
     * @param nowMillis the time of this sample
     * @param scanned   records read so far by every run of the step
     * @param toScan    about how many they read in all
     * @return the seconds left, rounded up, or -1 while unknown (no pace yet, or no total)
     */
    long secondsLeft(long nowMillis, long scanned, long toScan) {
        if (firstMillis < 0) {
            firstMillis = nowMillis;
            firstScanned = scanned;
            return -1;
        }
        long read = scanned - firstScanned;
        long elapsed = nowMillis - firstMillis;
        if (toScan <= 0 || read <= 0 || elapsed <= 0) {
            return -1;
        }
        long left = Math.max(0, toScan - scanned);
        return (long) Math.ceil(left * (double) elapsed / read / 1_000.0);
    }
}
