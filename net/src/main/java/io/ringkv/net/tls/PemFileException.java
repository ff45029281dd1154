package io.ringkv.net.tls;

import java.nio.file.Path;
import java.security.GeneralSecurityException;

/**
 * A PEM file that cannot be used: unreadable, not PEM, holding no certificate or key of a kind
 * we read, or a key that does not belong to its certificate. The message names the file and says
 * what to do, so a command line can print it as it is.
 */
public final class PemFileException extends GeneralSecurityException {
    private final transient Path file;

    public PemFileException(Path file, String problem) {
        super(file + ": " + problem);
        this.file = file;
    }

    public PemFileException(Path file, String problem, Throwable cause) {
        super(file + ": " + problem, cause);
        this.file = file;
    }

    /** The file at fault. */
    public Path file() {
        return file;
    }
}
