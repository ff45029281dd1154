package io.ringkv.cluster.meta;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The newest cluster metadata this node knew, in {@code DATA/meta/last-known-metadata}, in
 * {@link MetadataSnapshotFile}'s form (checksummed, replaced whole). A node started again routes
 * by it from its first request: before, it routed by its {@code --cluster} list until its member
 * of the metadata group had loaded its log (a second or more), and a write or a read repair
 * through it then reached nodes that no longer own the key, while a node that joined since was
 * left out.
 */
public final class LastKnownMetadataFile {

    public static final String NAME = "last-known-metadata";

    private LastKnownMetadataFile() {
    }

    /**
     * The metadata stored under {@code directory}; empty when there is none.
     *
     * @throws IOException when it cannot be read or does not check ({@link CorruptMetadataException})
     */
    public static Optional<ClusterMetadata> read(Path directory) throws IOException {
        Path file = directory.resolve(NAME);
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        return Optional.of(MetadataSnapshotFile.read(file));
    }

    /** Replaces what is stored under {@code directory} with {@code metadata}, forced to disk. */
    public static void write(Path directory, ClusterMetadata metadata) throws IOException {
        Files.createDirectories(directory);
        MetadataSnapshotFile.write(directory.resolve(NAME), metadata);
    }
}
