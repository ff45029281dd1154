package io.ringkv.cluster;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * A small file of a node's data directory written whole or not at all, and on disk before it is
 * used: a temporary file beside it, forced, then one atomic rename. A crash leaves the old
 * content or the new one, never a part. Stateless; blocks its caller for the write and the force.
 */
public final class FileReplacement {

    private FileReplacement() {
    }

    /** Replaces {@code file}'s content with {@code bytes}; makes its directory if need be. */
    public static void write(Path file, byte[] bytes) throws IOException {
        Path directory = file.toAbsolutePath().getParent();
        Files.createDirectories(directory);
        Path temporary = Files.createTempFile(directory, "." + file.getFileName(), ".tmp");
        try {
            Files.write(temporary, bytes);
            try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.WRITE)) {
                channel.force(true);
            }
            Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(temporary);
        }
    }
}
