package io.ringkv.node;

import io.ringkv.cluster.ClusterNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The address a node of a cluster was first started on, kept in {@value #NAME} in its data
 * directory, and checked at every later start.
 *
 * <p>A node's URL is its identity in the cluster: its Raft peer id, the member the metadata lists
 * (scheme included: the peers call that URL), the owner placement picks. A node started on its data
 * under another URL would be a stranger to its own metadata, and its peers would keep calling the
 * old one: every request through it would fail. So it refuses to start, and says what to do. That
 * includes turning TLS on: the metadata would still name every member {@code http://}.
 */
final class ClusterAddressFile {
    static final String NAME = "cluster-address";

    private ClusterAddressFile() {
    }

    /**
     * Records {@code self} in {@code dataDir} on the first start; later, refuses a start under
     * another address.
     *
     * @throws NodeStartException when the directory belongs to a node with another address, or the
     *                            file cannot be read or written
     */
    static void claim(Path dataDir, ClusterNode self) throws NodeStartException {
        Path file = dataDir.resolve(NAME);
        String address = self.id();
        try {
            if (Files.exists(file)) {
                String recorded = Files.readString(file, StandardCharsets.UTF_8).strip();
                if (!recorded.equals(address)) {
                    String why = ClusterNode.parse(recorded).placementKey().equals(self.placementKey())
                            ? ": the cluster metadata names its members with their scheme, so a cluster cannot turn TLS on or off "
                            + "in place. Start it as " + recorded + ", or start this one on a new --data"
                            : ": a node's URL is its identity in the cluster. Start it on its old host and port, or start this one "
                            + "on a new --data";
                    throw new NodeStartException(dataDir.toAbsolutePath() + " holds the data of the cluster member at " + recorded
                            + ", not " + address + why + " (to take the old member's place: --join URL --replace " + recorded + ")");
                }
                return;
            }
            io.ringkv.cluster.FileReplacement.write(file, (address + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new NodeStartException("cannot record this node's address in " + file.toAbsolutePath() + ": " + e.getMessage(), e);
        }
    }
}
