package io.ringkv.node.access;

import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tokens a node accepts: those of its token file as last read successfully. A reload reads
 * the whole file and swaps the set in one step, so a request is checked against the old set or
 * the new one, never a mix; a file that does not read on reload changes nothing and is logged.
 *
 * <p>Threading: {@link #find} from any thread, without locking (one volatile read);
 * {@link #reload} from any thread (a signal handler's), serialized.
 */
public final class TokenRegistry {
    private static final Logger log = LoggerFactory.getLogger(TokenRegistry.class);

    private final Path file;
    private volatile List<StoredToken> tokens;

    private TokenRegistry(Path file, List<StoredToken> tokens) {
        this.file = file;
        this.tokens = tokens;
    }

    /** Reads {@code file}; fails, with the file and line in the message, when it is not a valid token file. */
    public static TokenRegistry load(Path file) throws TokenFileException {
        return new TokenRegistry(file, TokenFile.read(file));
    }

    /**
     * The grant of {@code token}, if it is one of the file's. Every stored hash is compared, each
     * in constant time ({@link MessageDigest#isEqual}) and without stopping at a match, so the
     * time taken says nothing about which bytes of which hash matched.
     */
    public Optional<Grant> find(String token) {
        byte[] hash = BearerToken.sha256(token);
        Grant found = null;
        for (StoredToken stored : tokens) {
            if (stored.matches(hash) && found == null) {
                found = stored.grant();
            }
        }
        return Optional.ofNullable(found);
    }

    /**
     * Reads the file again and, if it is valid, uses its tokens from now on; otherwise keeps the
     * current ones and logs why.
     *
     * @return whether the new file is in use
     */
    public synchronized boolean reload() {
        List<StoredToken> read;
        try {
            read = TokenFile.read(file);
        } catch (TokenFileException e) {
            log.error("token file not reloaded, the {} token(s) read before stay in use: {}", tokens.size(), e.getMessage());
            return false;
        }
        List<StoredToken> before = tokens;
        tokens = read;
        log.info("token file {} reloaded: {} token(s) (before: {})", file, read.size(), before.size());
        return true;
    }

    /** How many tokens are in use. */
    public int size() {
        return tokens.size();
    }

    public Path file() {
        return file;
    }
}
