package io.ringkv.node;

import io.ringkv.cluster.ClusterNode;
import io.ringkv.cluster.meta.ClusterMetadata;
import io.ringkv.cluster.meta.Member;
import io.ringkv.cluster.meta.MemberState;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * What a node started with {@code --join} keeps so that it starts again without asking: the
 * cluster's fingerprint, in {@value #NAME} of its metadata directory, beside the last metadata it
 * knew ({@code LastKnownMetadataFile}). A node whose directory holds both, the metadata naming it
 * {@code joining}, {@code normal} or {@code leaving} at its own address, starts from them as a
 * node of the initial list starts from its stored group: its Raft server from its own log, the
 * metadata brought up to date by the group or by its members once they answer.
 *
 * <p>Before, every start of such a node asked a member named by {@code --join}, and a member
 * answers only with a majority of the metadata voters behind it. Once joined nodes held most of
 * the votes (after two replacements of three voters), a cluster stopped as a whole could not come
 * back: the joined voters waited for a majority that needed them, and gave up after a minute.
 *
 * <p>Stateless; blocks the starting thread (small files).
 */
final class JoinedBefore {
    static final String NAME = "joined-cluster";
    /** A fingerprint as {@code ClusterNodes} makes it: 16 lowercase hex digits. */
    private static final Pattern FINGERPRINT = Pattern.compile("[0-9a-f]{16}");

    private JoinedBefore() {
    }

    /**
     * Records the fingerprint of the cluster this node just joined, in {@code metaDirectory}.
     *
     * @throws NodeStartException when the file cannot be written (the node would not start again without asking)
     */
    static void record(Path metaDirectory, String fingerprint) throws NodeStartException {
        if (!FINGERPRINT.matcher(fingerprint).matches()) {
            throw new NodeStartException("the cluster's fingerprint " + io.ringkv.http.LogText.escape(fingerprint)
                    + " is not 16 lowercase hex digits");
        }
        Path file = metaDirectory.resolve(NAME);
        try {
            io.ringkv.cluster.FileReplacement.write(file, (fingerprint + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new NodeStartException("cannot record the cluster this node joined in " + file.toAbsolutePath() + ": "
                    + e.getMessage(), e);
        }
    }

    /**
     * What this node starts from when it joined before: the stored fingerprint and {@code lastKnown},
     * when that names {@code self} as a member at its own address that has not left; empty when it
     * did not join before (no file), or left, so that it asks to join.
     *
     * @throws NodeStartException when the file is there but unreadable or malformed: the directory
     *                             was tampered with, and asking the cluster might pass over it
     */
    static Optional<JoinRequest.Joined> read(Path metaDirectory, ClusterNode self, ClusterMetadata lastKnown)
            throws NodeStartException {
        Path file = metaDirectory.resolve(NAME);
        String fingerprint;
        try {
            fingerprint = Files.readString(file, StandardCharsets.UTF_8).strip();
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new NodeStartException("cannot read " + file.toAbsolutePath() + " (" + e.getMessage() + "); remove it to "
                    + "ask the cluster named by --join again", e);
        }
        if (!FINGERPRINT.matcher(fingerprint).matches()) {
            throw new NodeStartException(file.toAbsolutePath() + " does not hold a cluster fingerprint (16 lowercase hex "
                    + "digits); remove it to ask the cluster named by --join again");
        }
        if (lastKnown == null) {
            return Optional.empty();
        }
        return lastKnown.member(Member.idOf(self))
                .filter(member -> member.url().equals(self.id()))
                .filter(member -> member.state() == MemberState.JOINING || member.state() == MemberState.NORMAL
                        || member.state() == MemberState.LEAVING)
                .map(member -> new JoinRequest.Joined(fingerprint, lastKnown, member, true));
    }
}
