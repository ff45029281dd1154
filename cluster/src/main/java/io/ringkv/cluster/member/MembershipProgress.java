package io.ringkv.cluster.member;

/**
 * How far this node's own membership step got (its join, or its decommission), for its status
 * page and metrics. Immutable.
 *
 * @param step         {@code join} or {@code decommission}; {@code none} when there is none
 * @param phase        what it does now, in words (e.g. {@code streaming}, {@code draining}, {@code done})
 * @param epoch        the metadata epoch the step started at
 * @param records      records handed over so far (by the sources of a join, by this node when it leaves)
 * @param bytes        their key and value bytes
 * @param scanned      records the hand-over runs read so far
 * @param toScan       about how many records they read in all (their stores' estimates)
 * @param secondsLeft  estimated seconds until they have read them, at the pace so far; -1 while
 *                     unknown ({@link ScanEstimate})
 * @param startedMillis wall-clock start of the step, epoch millis
 * @param lastError    the last failure, retried since, or null
 */
public record MembershipProgress(String step, String phase, long epoch, long records, long bytes, long scanned,
                                 long toScan, long secondsLeft, long startedMillis, String lastError) {

    public static final MembershipProgress NONE = started("none", "none", 0, 0);

    /** A step begun at {@code startedMillis}, nothing moved yet. */
    static MembershipProgress started(String step, String phase, long epoch, long startedMillis) {
        return new MembershipProgress(step, phase, epoch, 0, 0, 0, 0, -1, startedMillis, null);
    }

    MembershipProgress phase(String next) {
        return new MembershipProgress(step, next, epoch, records, bytes, scanned, toScan, secondsLeft, startedMillis, lastError);
    }

    MembershipProgress moved(long recordsNow, long bytesNow, long scannedNow, long toScanNow, long secondsLeftNow) {
        return new MembershipProgress(step, phase, epoch, recordsNow, bytesNow, scannedNow, toScanNow, secondsLeftNow,
                startedMillis, lastError);
    }

    MembershipProgress failed(String why) {
        return new MembershipProgress(step, phase, epoch, records, bytes, scanned, toScan, secondsLeft, startedMillis, why);
    }

    /** Bytes per second since the step started, at {@code nowMillis}. */
    public long bytesPerSecond(long nowMillis) {
        long elapsed = Math.max(1, nowMillis - startedMillis);
        return bytes * 1000 / elapsed;
    }

    /** One JSON object with the fields above and the rate at {@code nowMillis}. */
    public String toJson(long nowMillis) {
        StringBuilder json = new StringBuilder(200).append("{\"step\":\"").append(step).append("\",\"phase\":\"")
                .append(escape(phase)).append("\",\"epoch\":").append(epoch).append(",\"records\":").append(records)
                .append(",\"bytes\":").append(bytes).append(",\"scanned\":").append(scanned)
                .append(",\"toScan\":").append(toScan).append(",\"secondsLeft\":").append(secondsLeft)
                .append(",\"bytesPerSecond\":").append(startedMillis == 0 ? 0 : bytesPerSecond(nowMillis))
                .append(",\"startedMillis\":").append(startedMillis);
        if (lastError != null) {
            json.append(",\"lastError\":\"").append(escape(lastError)).append('"');
        }
        return json.append('}').toString();
    }

    private static String escape(String text) {
        return text.replace("\\", "\\\\").replace("\"", "\\\"").replaceAll("[\\x00-\\x1f]", " ");
    }
}
