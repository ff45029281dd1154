package io.ringkv.node.access;

import io.ringkv.ops.BearerToken;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The token file of {@code serve --auth-file}: one token, or one client certificate, per line,
 * <pre>
 *   NAME  SCOPES  sha256:HEX  [prefix=KEY-PREFIX]  [expires=INSTANT]
 *   NAME  SCOPES  cert:IDENTITY  [prefix=KEY-PREFIX]  [expires=INSTANT]
 * </pre>
 * fields separated by spaces or tabs; blank lines and lines starting with {@code #} are ignored.
 * NAME is 1 to 64 letters, digits, {@code .}, {@code _} or {@code -}, unique in the file; SCOPES
 * is a comma-separated list of {@code read}, {@code write}, {@code admin}; HEX is the SHA-256 of
 * the token in 64 hex digits ({@link BearerToken#sha256}); KEY-PREFIX, percent-encoded
 * ({@link KeyPrefix}), limits the token to keys that start with it, and cannot go with
 * {@code admin} (whose pages are not about keys); INSTANT, in UTC ({@code 2027-03-01T00:00:00Z},
 * {@link Instant#parse}), is when the line stops granting anything. IDENTITY, 1 to 255 characters without spaces,
 * names a client certificate (with {@code serve --tls-client-auth}) by its subject CN or one of
 * its subject alternative names ({@link CertificateIdentity}); an identity is on one line at
 * most. A file with a line that breaks a rule is
 * refused whole, with the line's number: half a file of tokens is never used.
 *
 * <p>Writes ({@link #add}, {@link #replace}) rewrite the file through a temporary file renamed
 * over it, so a node reloading at that moment reads the old file or the new one, never half of
 * one. Stateless; concurrent writers of one file are not coordinated (the last rename wins).
 */
public final class TokenFile {
    static final String HEADER = """
            # ringkv access tokens (ringkv serve --auth-file). One token per line:
            #   NAME  SCOPES  sha256:HEX  [prefix=KEY-PREFIX]  [expires=INSTANT]
            # SCOPES: read, write, admin (comma-separated). HEX: SHA-256 of the token; the token itself is
            # never stored. KEY-PREFIX (percent-encoded) limits a token to keys starting with it.
            # INSTANT (UTC, e.g. 2027-03-01T00:00:00Z): from then on the token is refused (401).
            # A client certificate (serve --tls-client-auth): NAME  SCOPES  cert:CN-OR-SUBJECT-ALT-NAME  [prefix=...]
            # Add tokens with 'ringkv token'; remove one by deleting its line. Then: kill -HUP <node pid>.
            """;
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");
    private static final String HASH_PREFIX = "sha256:";
    private static final String CERT_PREFIX = "cert:";
    private static final Pattern IDENTITY = Pattern.compile("\\S{1,255}");
    private static final String KEY_PREFIX_FIELD = "prefix=";
    private static final String EXPIRES_FIELD = "expires=";
    private static final Pattern FIELD_SEPARATOR = Pattern.compile("[ \t]+");

    private TokenFile() {
    }

    /** The file's token lines, as {@link #readEntries} reads them. */
    public static List<StoredToken> read(Path file) throws TokenFileException {
        return readEntries(file).tokens();
    }

    /** Reads and checks the whole file; the exception's message names the file, and the line when one is wrong. */
    public static AccessEntries readEntries(Path file) throws TokenFileException {
        return parseEntries(text(file), file.toString());
    }

    /** As {@link #read}, from the file's text; {@code source} names it in messages. */
    static List<StoredToken> parse(String text, String source) throws TokenFileException {
        return parseEntries(text, source).tokens();
    }

    /** As {@link #readEntries}, from the file's text; {@code source} names it in messages. */
    static AccessEntries parseEntries(String text, String source) throws TokenFileException {
        List<StoredToken> tokens = new ArrayList<>();
        List<StoredCertificate> certificates = new ArrayList<>();
        Map<String, Integer> lineOfName = new HashMap<>();
        Map<String, Integer> lineOfHash = new HashMap<>();
        Map<String, Integer> lineOfIdentity = new HashMap<>();
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            int number = i + 1;
            String line = lines[i].strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            Record entry;
            try {
                entry = parseLine(line, number);
            } catch (IllegalArgumentException e) {
                throw new TokenFileException(source + " line " + number + ": " + e.getMessage());
            }
            Grant grant = entry instanceof StoredToken t ? t.grant() : ((StoredCertificate) entry).grant();
            Integer sameName = lineOfName.putIfAbsent(grant.name(), number);
            if (sameName != null) {
                throw new TokenFileException(source + " line " + number + ": the name '" + grant.name()
                        + "' is already used on line " + sameName + "; names must be unique");
            }
            if (entry instanceof StoredCertificate certificate) {
                Integer sameIdentity = lineOfIdentity.putIfAbsent(certificate.identity(), number);
                if (sameIdentity != null) {
                    throw new TokenFileException(source + " line " + number + ": the certificate identity '"
                            + certificate.identity() + "' is already on line " + sameIdentity
                            + "; an identity must have one line, or the node could not tell which grant it has");
                }
                certificates.add(certificate);
                continue;
            }
            StoredToken token = (StoredToken) entry;
            Integer sameHash = lineOfHash.putIfAbsent(HexFormat.of().formatHex(token.sha256()), number);
            if (sameHash != null) {
                throw new TokenFileException(source + " line " + number + ": the same token hash is on line " + sameHash
                        + "; a token must have one line, or the node could not tell which grant it has");
            }
            tokens.add(token);
        }
        return new AccessEntries(tokens, certificates);
    }

    /** A {@link StoredToken} or a {@link StoredCertificate}. */
    private static Record parseLine(String line, int number) {
        String[] fields = FIELD_SEPARATOR.split(line);
        if (fields.length < 3 || fields.length > 5) {
            throw new IllegalArgumentException("expected NAME SCOPES sha256:HEX|cert:IDENTITY [prefix=KEY-PREFIX] [expires=INSTANT], found "
                    + fields.length
                    + (fields.length == 1 ? " field" : " fields"));
        }
        String name = fields[0];
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("name '" + name + "' must be 1 to 64 letters, digits, '.', '_' or '-'");
        }
        Set<AccessScope> scopes = AccessScope.parseList(fields[1]);
        String identity = fields[2].startsWith(CERT_PREFIX) ? identity(fields[2]) : null;
        byte[] hash = identity == null ? hash(fields[2]) : null;
        KeyPrefix prefix = null;
        Instant expiresAt = null;
        for (int i = 3; i < fields.length; i++) {
            String field = fields[i];
            if (field.startsWith(KEY_PREFIX_FIELD) && prefix == null) {
                prefix = KeyPrefix.parse(field.substring(KEY_PREFIX_FIELD.length()));
            } else if (field.startsWith(EXPIRES_FIELD) && expiresAt == null) {
                expiresAt = expiry(field.substring(EXPIRES_FIELD.length()));
            } else {
                throw new IllegalArgumentException("after the third field come prefix=KEY-PREFIX and expires=INSTANT, each at most "
                        + "once, found '" + abbreviated(field) + "'");
            }
        }
        if (prefix != null && scopes.contains(AccessScope.ADMIN)) {
            throw new IllegalArgumentException("token '" + name + "' has both a key prefix and the admin scope; admin "
                    + "pages (metrics, dashboard) cover every key, so give admin to a token without a prefix");
        }
        Grant grant = new Grant(name, scopes, prefix, expiresAt);
        return identity == null ? new StoredToken(grant, hash, number) : new StoredCertificate(grant, identity, number);
    }

    private static Instant expiry(String text) {
        try {
            return Instant.parse(text);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("expires= must be an instant in UTC, e.g. expires=2027-03-01T00:00:00Z, found '"
                    + abbreviated(text) + "'");
        }
    }

    private static String identity(String field) {
        String identity = field.substring(CERT_PREFIX.length());
        if (!IDENTITY.matcher(identity).matches()) {
            throw new IllegalArgumentException("cert: must be followed by a certificate's subject CN or subject alternative "
                    + "name, 1 to 255 characters without spaces");
        }
        return identity;
    }

    private static byte[] hash(String field) {
        if (!field.startsWith(HASH_PREFIX)) {
            throw new IllegalArgumentException("the third field must be sha256:HEX (the token's SHA-256) or cert:IDENTITY, found '"
                    + abbreviated(field) + "'; the file holds hashes, never tokens");
        }
        String hex = field.substring(HASH_PREFIX.length());
        if (hex.length() != 64 || !hex.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
            throw new IllegalArgumentException("sha256: must be followed by 64 hex digits, found " + hex.length()
                    + " characters");
        }
        return HexFormat.of().parseHex(hex);
    }

    /** A field that may be a pasted token is not echoed into logs whole. */
    private static String abbreviated(String field) {
        return field.length() <= 8 ? field : field.substring(0, 8) + "...";
    }

    /** The line for a token, as {@link #read} reads it back. */
    static String line(Grant grant, byte[] sha256) {
        return grant.name() + "  " + AccessScope.format(grant.scopes()) + "  " + HASH_PREFIX + HexFormat.of().formatHex(sha256)
                + (grant.prefix() == null ? "" : "  " + KEY_PREFIX_FIELD + grant.prefix().encoded())
                + (grant.expiresAt() == null ? "" : "  " + EXPIRES_FIELD + grant.expiresAt());
    }

    /**
     * Adds a token's line; creates the file (owner-only, with a comment on the format) when it is
     * missing. Refuses a file that does not read, and a name the file already has.
     */
    public static void add(Path file, Grant grant, byte[] sha256) throws TokenFileException {
        write(file, grant, sha256, false);
    }

    /** As {@link #add}, replacing the line of a token with the same name, if there is one. */
    public static void replace(Path file, Grant grant, byte[] sha256) throws TokenFileException {
        write(file, grant, sha256, true);
    }

    private static void write(Path file, Grant grant, byte[] sha256, boolean replacing) throws TokenFileException {
        boolean exists = Files.exists(file);
        String text = exists ? text(file) : HEADER;
        List<StoredToken> tokens = parse(text, file.toString());
        List<String> lines = new ArrayList<>(List.of(text.split("\n", -1)));
        if (lines.getLast().isEmpty()) {
            lines.removeLast(); // the newline that ends the last line
        }
        for (StoredToken token : tokens.reversed()) {
            if (token.grant().name().equals(grant.name())) {
                if (!replacing) {
                    throw new TokenFileException(file + " line " + token.line() + ": a token named '" + grant.name()
                            + "' is already there; choose another name, or delete that line first");
                }
                lines.remove(token.line() - 1);
            }
        }
        lines.add(line(grant, sha256));
        String updated = String.join("\n", lines) + "\n";
        parse(updated, file.toString()); // e.g. the same hash twice
        store(file, updated, exists);
    }

    private static void store(Path file, String text, boolean exists) throws TokenFileException {
        Path absolute = file.toAbsolutePath();
        try {
            Set<PosixFilePermission> permissions = exists && supportsPosix(absolute)
                    ? Files.getPosixFilePermissions(absolute) : PosixFilePermissions.fromString("rw-------");
            Files.createDirectories(absolute.getParent());
            Path temporary = supportsPosix(absolute.getParent())
                    ? Files.createTempFile(absolute.getParent(), ".tokens", ".tmp", PosixFilePermissions.asFileAttribute(permissions))
                    : Files.createTempFile(absolute.getParent(), ".tokens", ".tmp");
            try {
                Files.writeString(temporary, text, StandardCharsets.UTF_8);
                try {
                    Files.move(temporary, absolute, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(temporary, absolute, StandardCopyOption.REPLACE_EXISTING);
                }
            } finally {
                Files.deleteIfExists(temporary);
            }
        } catch (IOException e) {
            throw new TokenFileException("cannot write " + file + ": " + e, e);
        }
    }

    private static boolean supportsPosix(Path path) {
        return Files.getFileAttributeView(path, PosixFileAttributeView.class) != null;
    }

    private static String text(Path file) throws TokenFileException {
        try {
            return StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(Files.readAllBytes(file))).toString();
        } catch (NoSuchFileException e) {
            throw new TokenFileException(file + ": no such file (make one with: ringkv token --auth-file " + file
                    + " --name NAME --scopes read,write)", e);
        } catch (CharacterCodingException e) {
            throw new TokenFileException(file + ": not UTF-8 text", e);
        } catch (IOException e) {
            throw new TokenFileException("cannot read " + file + ": " + e, e);
        }
    }
}
