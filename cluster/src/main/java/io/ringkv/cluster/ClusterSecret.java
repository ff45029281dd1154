package io.ringkv.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * The secret every node of a cluster shares, keying the HMAC that authenticates internal requests
 * ({@link InternalAuth}). It is the text of a file or of an environment variable, surrounding
 * whitespace removed, used as UTF-8 bytes; at least {@value #BYTES_MIN} of them. It never
 * travels: requests carry a proof computed with it.
 *
 * <p>Immutable; {@link #toString()} does not reveal it.
 */
public final class ClusterSecret {
    /** A secret shorter than this is refused: 16 bytes of random base64 text is 96 bits. */
    public static final int BYTES_MIN = 16;
    /** The environment variable {@code serve} reads when no secret file is given. */
    public static final String ENVIRONMENT_VARIABLE = "RINGKV_CLUSTER_SECRET";
    /** How to make one, for error messages. */
    public static final String HOW_TO_MAKE_ONE = "head -c 32 /dev/urandom | base64 > cluster.secret";

    private final byte[] key;

    private ClusterSecret(byte[] key) {
        this.key = key;
    }

    /** @throws IllegalArgumentException for a secret shorter than {@link #BYTES_MIN} bytes */
    public static ClusterSecret of(String text) {
        byte[] key = text.strip().getBytes(StandardCharsets.UTF_8);
        if (key.length < BYTES_MIN) {
            throw new IllegalArgumentException("a cluster secret needs at least " + BYTES_MIN + " bytes, got "
                    + key.length + "; make one with: " + HOW_TO_MAKE_ONE);
        }
        return new ClusterSecret(key);
    }

    /** @throws IOException when the file cannot be read; IllegalArgumentException when it holds too short a secret */
    public static ClusterSecret fromFile(Path file) throws IOException {
        return of(Files.readString(file, StandardCharsets.UTF_8));
    }

    /** 32 random bytes as base64 text: what {@code ringkv up} writes. */
    public static String generateText() {
        byte[] random = new byte[32];
        new SecureRandom().nextBytes(random);
        return Base64.getEncoder().encodeToString(random);
    }

    byte[] key() {
        return key.clone();
    }

    @Override
    public String toString() {
        return "ClusterSecret{" + key.length + " bytes}";
    }
}
