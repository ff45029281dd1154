package io.ringkv.node.access;

import io.ringkv.ops.BearerToken;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tokens and client certificates a node accepts: those of its token file as last read successfully. A reload reads
 * the whole file and swaps the set in one step, so a request is checked against the old set or
 * the new one, never a mix; a file that does not read on reload changes nothing and is logged.
 *
 * <p>Threading: {@link #find} from any thread, without locking (one volatile read);
 * {@link #reload} from any thread (a signal handler's), serialized.
 */
public final class TokenRegistry {
    private static final Logger log = LoggerFactory.getLogger(TokenRegistry.class);

    private final Path file;
    private volatile AccessEntries entries;
    private final LongAdder lookups = new LongAdder();

    private TokenRegistry(Path file, AccessEntries entries) {
        this.file = file;
        this.entries = entries;
    }

    /** Reads {@code file}; fails, with the file and line in the message, when it is not a valid token file. */
    public static TokenRegistry load(Path file) throws TokenFileException {
        AccessEntries entries = TokenFile.readEntries(file);
        warnOfExpired(file, entries);
        return new TokenRegistry(file, entries);
    }

    /** Lines already past their {@code expires=} grant nothing; an operator reading the log learns which. */
    private static void warnOfExpired(Path file, AccessEntries entries) {
        Instant now = Instant.now();
        List<String> expired = entries.grants().stream().filter(grant -> grant.expiredAt(now)).map(Grant::name).toList();
        if (!expired.isEmpty()) {
            log.warn("token file {}: {} line(s) past their expires= and refused: {}", file, expired.size(), String.join(", ", expired));
        }
    }

    /**
     * The grant of {@code token}, if it is one of the file's. Every stored hash is compared, each
     * in constant time ({@link MessageDigest#isEqual}) and without stopping at a match, so the
     * time taken says nothing about which bytes of which hash matched.
     */
    public Optional<Grant> find(String token) {
        lookups.increment();
        byte[] hash = BearerToken.sha256(token);
        Grant found = null;
        for (StoredToken stored : entries.tokens()) {
            if (stored.matches(hash) && found == null) {
                found = stored.grant();
            }
        }
        return Optional.ofNullable(found);
    }

    /** As {@link #findCertificate} for the leaf of {@code chain}; empty for an empty chain. */
    public Optional<Grant> findCertificateOf(List<X509Certificate> chain) {
        return chain.isEmpty() ? Optional.empty() : findCertificate(chain.getFirst());
    }

    /**
     * The grant of a client certificate the TLS handshake verified: that of the {@code cert:} line
     * naming its subject CN or one of its subject alternative names; the first such line of the
     * file when it has several names that are named. Names are public, so no constant-time compare.
     */
    public Optional<Grant> findCertificate(X509Certificate certificate) {
        List<StoredCertificate> certificates = entries.certificates();
        if (certificates.isEmpty()) {
            return Optional.empty();
        }
        List<String> names = CertificateIdentity.names(certificate);
        for (StoredCertificate stored : certificates) {
            if (names.contains(stored.identity())) {
                return Optional.of(stored.grant());
            }
        }
        return Optional.empty();
    }

    /**
     * Reads the file again and, if it is valid, uses its tokens from now on; otherwise keeps the
     * current ones and logs why.
     *
     * @return whether the new file is in use
     */
    public synchronized boolean reload() {
        AccessEntries read;
        try {
            read = TokenFile.readEntries(file);
        } catch (TokenFileException e) {
            log.error("token file not reloaded, the {} entries read before stay in use: {}", entries.size(), e.getMessage());
            return false;
        }
        AccessEntries before = entries;
        entries = read;
        warnOfExpired(file, read);
        log.info("token file {} reloaded: {} token(s) and {} certificate(s) (before: {} and {})", file, read.tokens().size(),
                read.certificates().size(), before.tokens().size(), before.certificates().size());
        return true;
    }

    /** Token lookups ({@link #find}) since start: each hashes the token and compares it with every stored hash. */
    public long lookups() {
        return lookups.sum();
    }

    /** The lines in use: those of the file as last read successfully. */
    public AccessEntries entries() {
        return entries;
    }

    /** How many entries (tokens and certificates) are in use. */
    public int size() {
        return entries.size();
    }

    public Path file() {
        return file;
    }
}
