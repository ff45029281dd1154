package io.ringkv.cluster;

import io.ringkv.http.Headers;
import io.ringkv.http.server.Request;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Authentication of node-to-node requests with the {@link ClusterSecret}: the sender proves it
 * knows the secret without sending it, and the proof covers everything the receiver acts on.
 *
 * <h2>The proof</h2>
 * {@code X-Ringkv-Auth} = base64url(HMAC-SHA256(secret, canonical)), where canonical is
 * <pre>
 *   ringkv-internal-v1 LF
 *   METHOD LF
 *   path[?query] LF              the request target exactly as sent
 *   name:value LF ...            every X-Ringkv-* field but X-Ringkv-Auth, names lower-cased, sorted
 *   hex(SHA-256(body))
 * </pre>
 * The signed fields include {@code X-Ringkv-Node} (the sender), {@code X-Ringkv-Topology} (the
 * sender's {@link ClusterNodes#fingerprint()}) and {@code X-Ringkv-Auth-Time} (the sender's epoch
 * millis), and the record's timestamp and tombstone fields, so none can be changed in transit.
 *
 * <h2>Checks, in order</h2>
 * A missing or wrong proof, or a time more than {@link #WINDOW_MILLIS} from the receiver's clock,
 * is {@link Check#FORBIDDEN} (403). Only then is the topology compared: a peer that proved the
 * secret but routes with another node list is {@link Check#TOPOLOGY_MISMATCH} (409). Replays
 * inside the window are possible; every internal write is idempotent (last-write-wins by the
 * record's own timestamp), so a replay re-applies the same version and changes nothing.
 *
 * <p>Thread-safe. Each thread that signs or checks keeps its own {@link Mac} (keyed once) and
 * SHA-256 digest instead of looking them up in the security providers and keying a new
 * {@code Mac} for every request, which showed in node profiles under PUT load. Threads that do
 * this are the bounded handler pools and event loops.
 */
public final class InternalAuth {

    public static final String AUTH_HEADER = "X-Ringkv-Auth";
    public static final String NODE_HEADER = "X-Ringkv-Node";
    public static final String TOPOLOGY_HEADER = "X-Ringkv-Topology";
    public static final String TIME_HEADER = "X-Ringkv-Auth-Time";
    /** How far a request's time may be from the receiver's clock. */
    public static final long WINDOW_MILLIS = 30_000;

    private static final String PREFIX = "x-ringkv-";
    private static final String VERSION = "ringkv-internal-v1";
    private static final Base64.Encoder PROOF_ENCODER = Base64.getUrlEncoder().withoutPadding();

    /** What {@link #check} found. */
    public enum Check { OK, FORBIDDEN, TOPOLOGY_MISMATCH }

    private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(InternalAuth::newSha256);

    private final SecretKeySpec key;
    private final ThreadLocal<Mac> macs;
    private final String self;
    private final String topology;
    private final LongSupplier wallMillis;

    /**
     * @param self       this node's id, sent as {@link #NODE_HEADER}
     * @param topology   this node's {@link ClusterNodes#fingerprint()}
     * @param wallMillis the wall clock ({@code System::currentTimeMillis} outside tests)
     */
    public InternalAuth(ClusterSecret secret, String self, String topology, LongSupplier wallMillis) {
        this.key = new SecretKeySpec(secret.key(), "HmacSHA256");
        this.macs = ThreadLocal.withInitial(this::newMac);
        this.self = self;
        this.topology = topology;
        this.wallMillis = wallMillis;
    }

    public String topology() {
        return topology;
    }

    /**
     * The fields a request must carry: the given {@code X-Ringkv-*} fields (e.g. the record's) plus
     * sender, topology, time and the proof over all of them, method, target and body.
     *
     * @param fields {@code X-Ringkv-*} fields of the request, without the ones this adds
     */
    public Map<String, String> sign(String method, String target, Map<String, String> fields, byte[] body) {
        Map<String, String> signed = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        signed.putAll(fields);
        signed.put(NODE_HEADER, self);
        signed.put(TOPOLOGY_HEADER, topology);
        signed.put(TIME_HEADER, Long.toString(wallMillis.getAsLong()));
        signed.put(AUTH_HEADER, proof(method, target, lowerCased(signed), body));
        return signed;
    }

    /** Checks a received request; see the class comment for the order. */
    public Check check(Request request) {
        Headers headers = request.headers();
        String given = headers.first(AUTH_HEADER).orElse(null);
        String time = headers.first(TIME_HEADER).orElse(null);
        if (given == null || time == null || headers.first(NODE_HEADER).isEmpty() || headers.first(TOPOLOGY_HEADER).isEmpty()) {
            return Check.FORBIDDEN;
        }
        Map<String, String> fields = new TreeMap<>();
        for (String name : headers.names()) {
            String lower = name.toLowerCase(Locale.ROOT);
            if (lower.startsWith(PREFIX) && !lower.equals(AUTH_HEADER.toLowerCase(Locale.ROOT))) {
                List<String> values = headers.all(name);
                if (values.size() != 1) {
                    return Check.FORBIDDEN; // a repeated field would make the signed text ambiguous
                }
                fields.put(lower, values.getFirst());
            }
        }
        String target = request.query().isEmpty() ? request.path() : request.path() + "?" + request.query();
        byte[] expected = proof(request.method(), target, fields, request.body()).getBytes(StandardCharsets.US_ASCII);
        if (!MessageDigest.isEqual(expected, given.getBytes(StandardCharsets.US_ASCII))) {
            return Check.FORBIDDEN;
        }
        long sentMillis;
        try {
            sentMillis = Long.parseLong(time);
        } catch (NumberFormatException e) {
            return Check.FORBIDDEN;
        }
        if (Math.abs(wallMillis.getAsLong() - sentMillis) > WINDOW_MILLIS) {
            return Check.FORBIDDEN;
        }
        return topology.equals(fields.get(TOPOLOGY_HEADER.toLowerCase(Locale.ROOT))) ? Check.OK : Check.TOPOLOGY_MISMATCH;
    }

    private static Map<String, String> lowerCased(Map<String, String> fields) {
        Map<String, String> lower = new TreeMap<>();
        fields.forEach((name, value) -> {
            if (!name.equalsIgnoreCase(AUTH_HEADER)) {
                lower.put(name.toLowerCase(Locale.ROOT), value);
            }
        });
        return lower;
    }

    /** @param fields lower-cased names, sorted (a TreeMap), without the proof itself */
    private String proof(String method, String target, Map<String, String> fields, byte[] body) {
        StringBuilder canonical = new StringBuilder(256).append(VERSION).append('\n')
                .append(method).append('\n').append(target).append('\n');
        fields.forEach((name, value) -> canonical.append(name).append(':').append(value).append('\n'));
        canonical.append(HexFormat.of().formatHex(SHA256.get().digest(body)));
        // doFinal and digest leave the Mac and the digest reset for the thread's next request.
        return PROOF_ENCODER.encodeToString(macs.get().doFinal(canonical.toString().getBytes(StandardCharsets.UTF_8)));
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

    private static MessageDigest newSha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every Java platform", e);
        }
    }

    /** For logs: which fields a request carried, never their values or the body. */
    static List<String> describe(Request request) {
        List<String> names = new ArrayList<>();
        for (String name : request.headers().names()) {
            if (name.toLowerCase(Locale.ROOT).startsWith(PREFIX)) {
                names.add(name);
            }
        }
        return names;
    }
}
