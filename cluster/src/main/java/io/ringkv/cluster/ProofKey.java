package io.ringkv.cluster;

import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * HMAC-SHA256 keyed with the {@link ClusterSecret}: the one key behind the proofs of requests
 * ({@link InternalAuth}) and of answers ({@link AnswerAuth}), which keep them apart by the first
 * line of what they sign.
 *
 * <p>Thread-safe. Each thread keeps its own {@link Mac}, keyed once, instead of looking one up in
 * the security providers and keying it for every request, which showed in node profiles under PUT
 * load. The threads that sign or check are the bounded handler pools and event loops.
 */
final class ProofKey {

    static final int MAC_BYTES = 32;
    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

    private final SecretKeySpec key;
    private final ThreadLocal<Mac> macs;

    ProofKey(ClusterSecret secret) {
        this.key = new SecretKeySpec(secret.key(), "HmacSHA256");
        this.macs = ThreadLocal.withInitial(this::newMac);
    }

    /**
     * This thread's Mac, reset: a proof left half-computed by an exception must not leak into the
     * next one. Use it to the end ({@code doFinal}) before asking for it again on the same thread.
     */
    Mac mac() {
        Mac mac = macs.get();
        mac.reset();
        return mac;
    }

    /** A proof as it travels in a header: base64url without padding. */
    static String encode(byte[] mac) {
        return ENCODER.encodeToString(mac);
    }

    /** Whether {@code given} can be a proof at all: the base64url text of {@link #MAC_BYTES} bytes, no padding. */
    static boolean wellFormed(String given) {
        if (given.length() != (MAC_BYTES * 4 + 2) / 3) {
            return false;
        }
        for (int i = 0; i < given.length(); i++) {
            char c = given.charAt(i);
            if (!(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_')) {
                return false;
            }
        }
        return true;
    }

    /** Compares a received proof with the expected one in time independent of where they differ. */
    static boolean matches(String expected, String given) {
        return given != null && MessageDigest.isEqual(expected.getBytes(java.nio.charset.StandardCharsets.US_ASCII),
                given.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    }

    private Mac newMac() {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            return mac;
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("HmacSHA256 is required of every Java platform", e);
        }
    }
}
