package io.ringkv.cluster.meta;

import java.nio.file.Path;
import java.time.Duration;

/**
 * How a node runs its part of the metadata group.
 *
 * @param directory        where Ratis keeps the log, its own metadata and the snapshots ({@code DATA/meta})
 * @param voters           members that vote, 3 or 5 (fewer when the cluster is smaller); the others
 *                         follow the log as listeners
 * @param electionTimeoutMin a follower that heard no leader for a random time between these two
 * @param electionTimeoutMax starts an election; the leader's heartbeats come at half the minimum
 * @param callTimeout      one Raft call to a peer, until its answer's head arrives
 */
public record MetadataSettings(Path directory, int voters, Duration electionTimeoutMin, Duration electionTimeoutMax,
                               Duration callTimeout) {

    /** Voters unless told otherwise. */
    public static final int DEFAULT_VOTERS = 3;
    /**
     * Long enough that a node's pause (GC, a loaded machine) does not start an election, short
     * enough that losing the leader costs about two seconds of metadata changes, never data requests.
     */
    public static final Duration DEFAULT_ELECTION_TIMEOUT_MIN = Duration.ofMillis(1000);
    public static final Duration DEFAULT_ELECTION_TIMEOUT_MAX = Duration.ofMillis(2000);
    public static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofSeconds(3);

    public MetadataSettings {
        if (voters != 3 && voters != 5) {
            throw new IllegalArgumentException("the metadata group has 3 or 5 voters, got " + voters);
        }
        if (!electionTimeoutMin.isPositive() || electionTimeoutMax.compareTo(electionTimeoutMin) <= 0) {
            throw new IllegalArgumentException("election timeouts must be positive and max > min, got "
                    + electionTimeoutMin + " and " + electionTimeoutMax);
        }
    }

    public static MetadataSettings defaults(Path directory) {
        return new MetadataSettings(directory, DEFAULT_VOTERS, DEFAULT_ELECTION_TIMEOUT_MIN, DEFAULT_ELECTION_TIMEOUT_MAX,
                DEFAULT_CALL_TIMEOUT);
    }

    public MetadataSettings withVoters(int count) {
        return new MetadataSettings(directory, count, electionTimeoutMin, electionTimeoutMax, callTimeout);
    }
}
