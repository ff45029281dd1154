package io.ringkv.node.metrics;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.ringkv.cluster.AntiEntropy;
import io.ringkv.cluster.Cluster;
import io.ringkv.cluster.ClusterNode;
import io.ringkv.cluster.HintedHandoff;
import io.ringkv.cluster.PeerBatches;
import io.ringkv.cluster.PeerHealth;
import io.ringkv.cluster.TombstoneCollector;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The cluster's background work and view of its peers, read once per scrape: hints queued per
 * target and their fate, anti-entropy rounds and progress, tombstone collection, each peer up or not.
 *
 * <p>Threading: stateless; {@link #collect} on the scraping thread.
 */
final class ClusterCollector implements MultiCollector {

    private final Cluster cluster;

    ClusterCollector(Cluster cluster) {
        this.cluster = cluster;
    }

    @Override
    public MetricSnapshots collect() {
        HintedHandoff hints = cluster.hintedHandoff();
        Map<String, Long> queued = new LinkedHashMap<>();
        for (ClusterNode peer : cluster.topology().others()) {
            queued.put(peer.id(), 0L);
        }
        queued.putAll(hints.pending());
        Map<String, Integer> up = new LinkedHashMap<>();
        for (PeerHealth.PeerStatus peer : cluster.peerHealth().peers()) {
            up.put(peer.id(), peer.state() == PeerHealth.State.UP ? 1 : 0);
        }
        Map<String, Long> dropped = new LinkedHashMap<>();
        hints.droppedByReason().forEach((reason, count) -> dropped.put(reason.label(), count));
        AntiEntropy.Status antiEntropy = cluster.antiEntropy().status();
        Map<String, Long> writeBatches = new LinkedHashMap<>();
        Map<String, Long> writesBatched = new LinkedHashMap<>();
        Map<String, Long> readBatches = new LinkedHashMap<>();
        Map<String, Long> readsBatched = new LinkedHashMap<>();
        for (PeerBatches batches : cluster.peerBatches()) {
            writeBatches.put(batches.peer(), batches.writes().batches());
            writesBatched.put(batches.peer(), batches.writes().calls());
            readBatches.put(batches.peer(), batches.reads().batches());
            readsBatched.put(batches.peer(), batches.reads().calls());
        }
        TombstoneCollector tombstones = cluster.tombstones();
        Map<String, Long> sweeps = new LinkedHashMap<>();
        sweeps.put("done", tombstones.sweepsDone());
        sweeps.put("skipped", tombstones.sweepsSkipped());
        Map<String, Long> rejectedAnswers = new LinkedHashMap<>();
        for (ClusterNode peer : cluster.topology().others()) {
            rejectedAnswers.put(peer.id(), 0L);
        }
        rejectedAnswers.putAll(cluster.rejectedAnswers());
        io.ringkv.cluster.meta.MetadataGroup metadata = cluster.metadata().orElse(null);
        io.ringkv.cluster.EpochGate epochs = cluster.epochGate();
        Map<String, Long> catchUps = new LinkedHashMap<>();
        catchUps.put("request", epochs.catchUpsFromRequests());
        catchUps.put("answer", epochs.catchUpsFromAnswers());
        Map<String, Long> epochRefusals = new LinkedHashMap<>();
        epochs.refusals().forEach((reason, count) -> epochRefusals.put(reason.label(), count));
        Map<String, Long> membersByState = new LinkedHashMap<>();
        for (io.ringkv.cluster.meta.MemberState state : io.ringkv.cluster.meta.MemberState.values()) {
            membersByState.put(state.label(), 0L);
        }
        cluster.knownMetadata().current().members().forEach(member -> membersByState.merge(member.state().label(), 1L, Long::sum));
        io.ringkv.cluster.member.MembershipProgress own = cluster.membershipProgress();
        io.ringkv.cluster.CleanupStatus cleanup = cluster.cleanupStatus();
        Map<String, Long> cleanupRecords = new LinkedHashMap<>();
        cleanupRecords.put("scanned", cleanup.scanned());
        cleanupRecords.put("not_owned", cleanup.notOwned());
        cleanupRecords.put("dropped", cleanup.dropped());
        cleanupRecords.put("held_by_owners", cleanup.heldByOwners());
        cleanupRecords.put("kept", cleanup.kept());
        cleanupRecords.put("handed_off", cleanup.handedOff());
        Map<String, Long> moved = new LinkedHashMap<>();
        moved.put("records", own.records());
        moved.put("bytes", own.bytes());
        return new Families()
                .gauge("ringkv_metadata_members", "Members of the cluster metadata this node knows, by state (joining, "
                        + "normal, leaving, left)", "state", membersByState)
                .gauge("ringkv_membership_moved", "This node's own join or decommission: records and key-and-value bytes "
                        + "handed over so far (to it by the owners while it joins, by it while it leaves; 0 without one)",
                        "unit", moved)
                .gauge("ringkv_membership_seconds_left", "This node's own join or decommission: estimated seconds until "
                        + "its hand-over has read every record, at its pace so far (0 once read; -1 while unknown, or without a step)",
                        own.secondsLeft())
                .gauge("ringkv_membership_in_progress", "1 while this node's own join or decommission runs",
                        own.step().equals("none") || own.phase().equals("done") || own.phase().equals("left")
                                || own.phase().equals("aborted") ? 0 : 1)
                .gauge("ringkv_cleanup_running", "1 while a cleanup runs on this node: ringkv cleanup, or its part of a "
                        + "join's, leave's or replacement's hand-over", cleanup.running() ? 1 : 0)
                .counter("ringkv_cleanup_runs", "Cleanup runs finished on this node since it started", cleanup.runsCompleted())
                .gauge("ringkv_cleanup_records", "The cleanup run in progress, or the last one: records read (scanned), "
                        + "not owned here, of those dropped after their owners took them, dropped with every owner holding "
                        + "them already (held_by_owners, none sent), kept here; and records kept here that it sent to new "
                        + "owners (handed_off)", "outcome", cleanupRecords)
                .gauge("ringkv_metadata_epoch", "Epoch of the newest cluster metadata this node knows: applied from its "
                        + "replica of the log, or read from the leader while catching up (0 before the group formed it)",
                        cluster.knownMetadata().epoch())
                .counter("ringkv_metadata_catch_ups", "Catch-ups with the cluster metadata (reads through its leader) "
                        + "started because a peer's request (request) or answer (answer) named a newer epoch", "trigger", catchUps)
                .counter("ringkv_metadata_epoch_waits", "Anti-entropy comparisons from a node ahead answered once this node "
                        + "had caught up to their epoch", epochs.caughtUp())
                .counter("ringkv_metadata_epoch_refusals", "Internal requests refused for their metadata epoch: behind "
                        + "(503, this node did not catch up in time), busy (503, too many waiting), malformed (400), "
                        + "beyond_cluster (400, above the metadata leader's epoch)", "reason", epochRefusals)
                .gauge("ringkv_metadata_leader", "1 while this node leads the cluster metadata's Raft group",
                        metadata != null && metadata.isLeader() ? 1 : 0)
                .gauge("ringkv_peer_up", "1 while the peer answers this node's calls and probes, 0 when down or not yet seen",
                        "peer", up)
                .gauge("ringkv_hints_queued", "Hinted writes waiting for their target replica", "target", queued)
                .counter("ringkv_replica_write_batches", "Requests that carried batches of replica writes to the peer "
                        + "(none with --internode-batches 0)", "peer", writeBatches)
                .counter("ringkv_replica_writes_batched", "Replica writes those batches carried: over the batches, the mean "
                        + "batch size", "peer", writesBatched)
                .counter("ringkv_replica_read_batches", "Requests that carried batches of replica reads to the peer "
                        + "(none with --internode-batches 0)", "peer", readBatches)
                .counter("ringkv_replica_reads_batched", "Replica reads those batches carried: over the batches, the mean "
                        + "batch size", "peer", readsBatched)
                .counter("ringkv_internal_answers_rejected", "Answers from the peer refused for want of a valid proof of the "
                        + "cluster secret (changed on the way, or another secret); each failed its call", "peer", rejectedAnswers)
                .counter("ringkv_hints_stored", "Hints stored for replicas that missed a write", hints.storedCount())
                .counter("ringkv_hints_replayed", "Hints their target took on replay", hints.replayedCount())
                .counter("ringkv_hints_dropped", "Hints dropped, and misses not hinted, by reason (count_bound, byte_bound: "
                        + "the per-target bounds; age; refused: the target refused the record; storage_error; not_owner: "
                        + "the target no longer owns the key, whose owners hold the write); left to anti-entropy", "reason", dropped)
                .counter("ringkv_hints_corrupt", "Stored hints that did not decode, skipped and deleted since the store "
                        + "opened; left to anti-entropy", hints.corruptCount())
                .counter("ringkv_anti_entropy_rounds", "Anti-entropy rounds finished", antiEntropy.roundsCompleted())
                .gauge("ringkv_anti_entropy_running", "1 while an anti-entropy round runs", antiEntropy.running() ? 1 : 0)
                .gauge("ringkv_anti_entropy_last_round_seconds", "Duration of the last finished round",
                        antiEntropy.lastRoundMillis() / 1e3)
                .gauge("ringkv_anti_entropy_buckets_differing", "Digest buckets found different in the last round, all peers",
                        antiEntropy.bucketsDiffering())
                .gauge("ringkv_anti_entropy_peers_failed", "Peers that could not be compared in the last round",
                        antiEntropy.peersFailed())
                .counter("ringkv_anti_entropy_records_pushed", "Records sent to peers that lacked them or held older ones",
                        antiEntropy.recordsPushed())
                .counter("ringkv_anti_entropy_buckets_without_scan",
                        "Differing buckets that sending the keys lately changed in them brought level, with no scan of the store",
                        antiEntropy.bucketsWithoutScan())
                .counter("ringkv_tombstones_collected", "Tombstones older than the grace period, and records expired for "
                        + "longer than it, deleted from this node's store", tombstones.collected())
                .counter("ringkv_paxos_states_collected", "Compare-and-set states (a key's Paxos promise and acceptance) "
                        + "last promised before the grace period, deleted with the tombstones", tombstones.alsoCollected())
                .counter("ringkv_tombstone_sweeps", "Sweeps of the store for tombstones to collect: done, or skipped while "
                        + "this node refuses writes for its clock (behind, ahead or not confirmed by its peers)", "outcome", sweeps)
                .build();
    }
}
