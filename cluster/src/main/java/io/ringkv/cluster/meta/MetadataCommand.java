package io.ringkv.cluster.meta;

import java.util.List;

/**
 * A change of the cluster metadata, as the Raft log carries it ({@link MetadataCodec}). Each one
 * that applies raises the epoch by one ({@link ClusterMetadata#apply}).
 */
public sealed interface MetadataCommand {

    /** Forms the metadata of a new cluster: its first entry, refused once there is metadata. */
    record Initialize(List<Member> members, int replicationFactor) implements MetadataCommand {
        public Initialize {
            members = List.copyOf(members);
        }
    }

    /** Adds a member that is not one yet. */
    record AddMember(Member member) implements MetadataCommand {
    }

    /** Moves a member to another state. */
    record SetMemberState(String id, MemberState state) implements MetadataCommand {
    }

    /** Sets the replication factor, which placement and the default `replicas` follow once applied. */
    record SetReplicationFactor(int replicationFactor) implements MetadataCommand {
    }
}
