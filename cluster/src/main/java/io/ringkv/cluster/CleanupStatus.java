package io.ringkv.cluster;

/**
 * What a {@link Cleanup} run did, as far as it got: immutable, each step makes a new one.
 *
 * @param running        whether the run is in progress
 * @param runsCompleted  runs finished on this node since start, this one included once it is over
 * @param scanned        records read
 * @param notOwned       records read that this node does not own
 * @param dropped        of those, purged here after every owner took them
 * @param kept           of those, kept: an owner refused the record or could not be reached, or it
 *                       changed while the run handed it over
 * @param bytesDropped   key and value bytes purged
 * @param ownersFailed   owners that could not be reached during the run
 * @param lastRunMillis  how long the run took, once over (0 before)
 * @param error          why the run stopped early, or null
 * @param handedOff      records this node keeps (it owns them now or after the join or leave in
 *                       progress) that it sent to their new owners
 * @param bytesHandedOff key and value bytes of those
 * @param toScan         about how many records the run reads in all (the store's own estimate at
 *                       its start; 0 when it keeps none), for an estimate of the time left
 * @param heldByOwners   of the records dropped, those that every owner already held at that version
 *                       or a newer one when asked ({@code POST /internal/v0/versions}), so none was sent
 */
public record CleanupStatus(boolean running, long runsCompleted, long scanned, long notOwned, long dropped, long kept,
                            long bytesDropped, int ownersFailed, long lastRunMillis, String error, long handedOff,
                            long bytesHandedOff, long toScan, long heldByOwners) {

    /** No run yet. */
    static final CleanupStatus NONE = new CleanupStatus(false, 0, 0, 0, 0, 0, 0, 0, 0, null, 0, 0, 0, 0);

    static CleanupStatus started(long runsCompletedBefore) {
        return new CleanupStatus(true, runsCompletedBefore, 0, 0, 0, 0, 0, 0, 0, null, 0, 0, 0, 0);
    }

    CleanupStatus scanned(long records) {
        return new CleanupStatus(running, runsCompleted, scanned + records, notOwned, dropped, kept, bytesDropped,
                ownersFailed, lastRunMillis, error, handedOff, bytesHandedOff, toScan, heldByOwners);
    }

    /** About {@code records} to read in all: the store's estimate when the run starts. */
    CleanupStatus toScan(long records) {
        return new CleanupStatus(running, runsCompleted, scanned, notOwned, dropped, kept, bytesDropped,
                ownersFailed, lastRunMillis, error, handedOff, bytesHandedOff, records, heldByOwners);
    }

    CleanupStatus notOwned(long records) {
        return new CleanupStatus(running, runsCompleted, scanned, notOwned + records, dropped, kept, bytesDropped,
                ownersFailed, lastRunMillis, error, handedOff, bytesHandedOff, toScan, heldByOwners);
    }

    CleanupStatus dropped(long records, long bytes) {
        return new CleanupStatus(running, runsCompleted, scanned, notOwned, dropped + records, kept, bytesDropped + bytes,
                ownersFailed, lastRunMillis, error, handedOff, bytesHandedOff, toScan, heldByOwners);
    }

    CleanupStatus kept(long records) {
        return new CleanupStatus(running, runsCompleted, scanned, notOwned, dropped, kept + records, bytesDropped,
                ownersFailed, lastRunMillis, error, handedOff, bytesHandedOff, toScan, heldByOwners);
    }

    /** Records this node keeps (it owns them, now or after the change in progress) sent to their new owners. */
    CleanupStatus handedOff(long records, long bytes) {
        return new CleanupStatus(running, runsCompleted, scanned, notOwned, dropped, kept, bytesDropped,
                ownersFailed, lastRunMillis, error, handedOff + records, bytesHandedOff + bytes, toScan, heldByOwners);
    }

    /** Records dropped that no owner had to be sent: each held that version or a newer one already. */
    CleanupStatus heldByOwners(long records) {
        return new CleanupStatus(running, runsCompleted, scanned, notOwned, dropped, kept, bytesDropped,
                ownersFailed, lastRunMillis, error, handedOff, bytesHandedOff, toScan, heldByOwners + records);
    }

    CleanupStatus ownerFailed() {
        return new CleanupStatus(running, runsCompleted, scanned, notOwned, dropped, kept, bytesDropped,
                ownersFailed + 1, lastRunMillis, error, handedOff, bytesHandedOff, toScan, heldByOwners);
    }

    CleanupStatus failed(String why) {
        return new CleanupStatus(running, runsCompleted, scanned, notOwned, dropped, kept, bytesDropped,
                ownersFailed, lastRunMillis, why, handedOff, bytesHandedOff, toScan, heldByOwners);
    }

    /** The run is over: counted, with its duration. */
    CleanupStatus finished(long millis) {
        return new CleanupStatus(false, runsCompleted + 1, scanned, notOwned, dropped, kept, bytesDropped,
                ownersFailed, millis, error, handedOff, bytesHandedOff, toScan, heldByOwners);
    }

    /** One JSON object: the fields above by name, {@code error} only when there is one. */
    public String toJson() {
        StringBuilder json = new StringBuilder(240).append("{\"running\":").append(running)
                .append(",\"runsCompleted\":").append(runsCompleted).append(",\"scanned\":").append(scanned)
                .append(",\"notOwned\":").append(notOwned).append(",\"dropped\":").append(dropped)
                .append(",\"kept\":").append(kept).append(",\"bytesDropped\":").append(bytesDropped)
                .append(",\"handedOff\":").append(handedOff).append(",\"bytesHandedOff\":").append(bytesHandedOff)
                .append(",\"ownersFailed\":").append(ownersFailed).append(",\"lastRunMillis\":").append(lastRunMillis)
                .append(",\"toScan\":").append(toScan).append(",\"heldByOwners\":").append(heldByOwners);
        if (error != null) {
            json.append(",\"error\":\"").append(error.replace("\\", "\\\\").replace("\"", "\\\"")
                    .replaceAll("[\\x00-\\x1f]", " ")).append('"');
        }
        return json.append('}').toString();
    }
}
