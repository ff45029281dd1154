package io.ringkv.http.client;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** Finds external programs (nghttpd, curl) for the interop tests. */
final class Executables {
    private Executables() {
    }

    /** The executable {@code name} in a directory of the PATH, if any. */
    static Optional<Path> onPath(String name) {
        String path = System.getenv().getOrDefault("PATH", "");
        for (String directory : path.split(File.pathSeparator)) {
            if (directory.isEmpty()) {
                continue;
            }
            Path candidate = Path.of(directory, name);
            if (Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }
}
