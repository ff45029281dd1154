package io.ringkv.ops;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.regex.Pattern;

/**
 * Access tokens themselves: made from 256 random bits, and stored only as their SHA-256.
 *
 * <p>Why one SHA-256 and no slow hash (bcrypt, scrypt, Argon2): a slow hash protects passwords,
 * which people choose from a small space an attacker can enumerate from a stolen file. These
 * tokens are 32 bytes from {@link SecureRandom}: finding one from its hash means searching 2^256
 * values, which no number of fast hashes makes feasible, so a slow hash would add nothing but
 * its cost, paid on every request.
 *
 * <p>Stateless; thread-safe.
 */
public final class BearerToken {
    /** Marks ringkv's tokens, so that secret scanners and people can tell one in a log or a repository. */
    static final String PREFIX = "rkv_";
    private static final int RANDOM_BYTES = 32;
    /** RFC 6750 §2.1: {@code b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="}. */
    private static final Pattern B64TOKEN = Pattern.compile("[A-Za-z0-9\\-._~+/]+=*");
    private static final SecureRandom RANDOM = new SecureRandom();

    private BearerToken() {
    }

    /** A new token: {@code rkv_} and 43 base64url characters (256 random bits). */
    public static String generate() {
        byte[] random = new byte[RANDOM_BYTES];
        RANDOM.nextBytes(random);
        return PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(random);
    }

    /** The SHA-256 of the token's bytes, as the token file keeps it. */
    public static byte[] sha256(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every Java platform", e);
        }
    }

    /** Whether {@code token} has the syntax RFC 6750 allows in an {@code Authorization: Bearer} field. */
    public static boolean wellFormed(String token) {
        return B64TOKEN.matcher(token).matches();
    }
}
