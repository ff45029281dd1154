package io.ringkv.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/** The secret file of a local cluster ({@code ringkv up}, {@code ringkv chaos}): made once, readable by the owner only. */
public final class ClusterSecretFile {
    public static final String NAME = "cluster.secret";

    private ClusterSecretFile() {
    }

    /** Keeps an existing file (so nodes restarted on the same data keep their secret), else writes a new random one. */
    public static Path create(Path file) throws IOException {
        if (Files.exists(file)) {
            return file;
        }
        Path parent = file.toAbsolutePath().getParent();
        Files.createDirectories(parent);
        Path temporary = Files.createTempFile(parent, ".secret", ".tmp",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(temporary, ClusterSecret.generateText() + "\n", StandardCharsets.UTF_8);
        return Files.move(temporary, file);
    }
}
