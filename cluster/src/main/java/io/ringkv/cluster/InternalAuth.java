package io.ringkv.cluster;

import io.ringkv.http.Headers;
import io.ringkv.http.server.Request;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;

/**
 * Authentication of node-to-node requests with the {@link ClusterSecret}: the sender proves it
 * knows the secret without sending it, and the proof covers everything the receiver acts on.
 * Answers carry proofs too ({@link AnswerAuth}, made with the same key through {@link #answers()}).
 *
 * <h2>The proof</h2>
 * {@code X-Ringkv-Auth} = base64url(HMAC-SHA256(secret, canonical)), where canonical is
 * <pre>
 *   ringkv-internal-v2 LF
 *   METHOD LF
 *   path[?query] LF              the request target exactly as sent
 *   name:value LF ...            every X-Ringkv-* field but X-Ringkv-Auth, names lower-cased, sorted
 *   hex(SHA-256(body))
 * </pre>
 * The signed fields include {@code X-Ringkv-Node} (the sender), {@code X-Ringkv-To} (the receiver,
 * its node id as the cluster knows it), {@code X-Ringkv-Topology} (the sender's
 * {@link ClusterNodes#fingerprint()}), {@code X-Ringkv-Auth-Time} (the sender's epoch millis),
 * {@code X-Ringkv-Nonce} (random per request, so that no two requests share a proof and an answer
 * made for one cannot pass for the answer to another), the sender's cluster metadata epoch
 * ({@link InternalProtocol#EPOCH_HEADER}, which {@link ReplicaClient} adds) and the record's
 * timestamp and tombstone fields, so none can be changed in transit.
 *
 * <h2>Checks, in order</h2>
 * A missing or wrong proof, or a time more than {@link #WINDOW_MILLIS} from the receiver's clock,
 * is {@link Check#FORBIDDEN} (403). Only then is the topology compared: a peer that proved the
 * secret but routes with another node list is {@link Check#TOPOLOGY_MISMATCH} (409). A request
 * addressed to another node is {@link Check#MISDIRECTED} (403), so a request captured on its way to
 * one node cannot be replayed to another. Replays to the same node inside the window are possible;
 * every internal write is idempotent (last-write-wins by the record's own timestamp), so a replay
 * re-applies the same version and changes nothing.
 *
 * <p>{@link #checkHead} makes the checks that need no body (fields present and well-formed, time,
 * receiver) at the request's head, so the server refuses a stranger before reading its body;
 * {@link #check} makes them all once the body is in.
 *
 * <p>Thread-safe; the Macs are per thread ({@link ProofKey}), and so is the SHA-256 digest.
 */
public final class InternalAuth {

    public static final String AUTH_HEADER = "X-Ringkv-Auth";
    public static final String NODE_HEADER = "X-Ringkv-Node";
    /** The node the request is meant for: its id, as in the cluster list. */
    public static final String TO_HEADER = "X-Ringkv-To";
    public static final String NONCE_HEADER = "X-Ringkv-Nonce";
    public static final String TOPOLOGY_HEADER = "X-Ringkv-Topology";
    public static final String TIME_HEADER = "X-Ringkv-Auth-Time";
    /** How far a request's time may be from the receiver's clock. */
    public static final long WINDOW_MILLIS = 30_000;

    private static final String PREFIX = "x-ringkv-";
    private static final String VERSION = "ringkv-internal-v2";

    /** What {@link #check} found. */
    public enum Check { OK, FORBIDDEN, TOPOLOGY_MISMATCH, MISDIRECTED }

    private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(InternalAuth::newSha256);

    private final ProofKey key;
    private final AnswerAuth answers;
    private final String self;
    private final String topology;
    private final LongSupplier wallMillis;

    /**
     * @param self       this node's id: sent as {@link #NODE_HEADER}, and the only {@link #TO_HEADER}
     *                   it accepts
     * @param topology   this node's {@link ClusterNodes#fingerprint()}
     * @param wallMillis the wall clock ({@code System::currentTimeMillis} outside tests)
     */
    public InternalAuth(ClusterSecret secret, String self, String topology, LongSupplier wallMillis) {
        this.key = new ProofKey(secret);
        this.answers = new AnswerAuth(key);
        this.self = self;
        this.topology = topology;
        this.wallMillis = wallMillis;
    }

    /** Proofs of answers, with the same secret. */
    public AnswerAuth answers() {
        return answers;
    }

    public String topology() {
        return topology;
    }

    /**
     * The fields a request must carry: the given {@code X-Ringkv-*} fields (e.g. the record's) plus
     * sender, receiver, topology, time, nonce and the proof over all of them, method, target and
     * body. The proof is also what the answer's proof names ({@link #proofOf}).
     *
     * @param receiver the id of the node the request goes to, as in the cluster list
     * @param fields   {@code X-Ringkv-*} fields of the request, without the ones this adds
     */
    public Map<String, String> sign(String receiver, String method, String target, Map<String, String> fields, byte[] body) {
        Map<String, String> signed = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        signed.putAll(fields);
        signed.put(NODE_HEADER, self);
        signed.put(TO_HEADER, receiver);
        // Unique, not secret: it only has to keep two requests from sharing a proof.
        signed.put(NONCE_HEADER, HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong()));
        signed.put(TOPOLOGY_HEADER, topology);
        signed.put(TIME_HEADER, Long.toString(wallMillis.getAsLong()));
        signed.put(AUTH_HEADER, proof(method, target, lowerCased(signed), body));
        return signed;
    }

    /**
     * What a request's head alone shows, before its body is read: {@link Check#FORBIDDEN} for a
     * missing, repeated or malformed proof field or a time outside the window,
     * {@link Check#MISDIRECTED} for a request addressed to another node, {@link Check#OK} when
     * only the proof itself (which covers the body) is left to check. The topology is not judged
     * here: a mismatch is answered 409 with a proof of the answer, which only a verified request
     * gets, and the fingerprint is no secret (the status shows it), so it would stop nobody.
     * Cheap (no MAC, no hashing): it runs on an event loop.
     */
    public Check checkHead(Headers headers) {
        String given = headers.first(AUTH_HEADER).orElse(null);
        String time = headers.first(TIME_HEADER).orElse(null);
        if (given == null || time == null || !namesEveryField(headers)) {
            return Check.FORBIDDEN;
        }
        if (!ProofKey.wellFormed(given) || headers.all(AUTH_HEADER).size() != 1) {
            return Check.FORBIDDEN;
        }
        for (String name : headers.names()) {
            if (name.toLowerCase(Locale.ROOT).startsWith(PREFIX) && headers.all(name).size() != 1) {
                return Check.FORBIDDEN; // a repeated field would make the signed text ambiguous
            }
        }
        if (!fresh(time)) {
            return Check.FORBIDDEN;
        }
        return self.equals(headers.first(TO_HEADER).orElseThrow()) ? Check.OK : Check.MISDIRECTED;
    }

    /** Checks a received request; see the class comment for the order. */
    public Check check(Request request) {
        Headers headers = request.headers();
        String given = headers.first(AUTH_HEADER).orElse(null);
        String time = headers.first(TIME_HEADER).orElse(null);
        if (given == null || time == null || !namesEveryField(headers)) {
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
        if (!ProofKey.matches(proof(request.method(), target, fields, request.body()), given)) {
            return Check.FORBIDDEN;
        }
        if (!fresh(time)) {
            return Check.FORBIDDEN;
        }
        if (!topology.equals(fields.get(TOPOLOGY_HEADER.toLowerCase(Locale.ROOT)))) {
            return Check.TOPOLOGY_MISMATCH;
        }
        return self.equals(fields.get(TO_HEADER.toLowerCase(Locale.ROOT))) ? Check.OK : Check.MISDIRECTED;
    }

    private static boolean namesEveryField(Headers headers) {
        return headers.first(NODE_HEADER).isPresent() && headers.first(TOPOLOGY_HEADER).isPresent()
                && headers.first(TO_HEADER).isPresent() && headers.first(NONCE_HEADER).isPresent();
    }

    /** Whether a request's time field is a number within {@link #WINDOW_MILLIS} of this node's clock. */
    private boolean fresh(String time) {
        try {
            return Math.abs(wallMillis.getAsLong() - Long.parseLong(time)) <= WINDOW_MILLIS;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /** This node's id, the receiver it accepts. */
    public String self() {
        return self;
    }

    /** The proof among the fields {@link #sign} made; null when there is none. */
    public static String proofOf(Map<String, String> signed) {
        return signed.get(AUTH_HEADER);
    }

    /** A received request's proof, which its answer's proof names. */
    public static String proofOf(Request request) {
        return request.headers().first(AUTH_HEADER).orElse(null);
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
        // digest leaves the digest reset for the thread's next request.
        return ProofKey.encode(key.mac().doFinal(canonical.toString().getBytes(StandardCharsets.UTF_8)));
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
