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
 *   ringkv-internal-v3 LF
 *   METHOD LF
 *   path[?query] LF              the request target exactly as sent
 *   name:value LF ...            every X-Ringkv-* field but X-Ringkv-Auth, names lower-cased, sorted
 * </pre>
 * The body enters through one of those fields, {@link #BODY_HEADER}: base64url(SHA-256(body)).
 * So the whole proof can be checked at the request's head, before a byte of the body is read,
 * and the body is then held to the digest the proof covers. (Up to v2 the digest was the last line of
 * the signed text itself, so a stranger who filled in well-formed fields, all public, had a body up
 * to the route's limit read before its {@code 403}.)
 * The signed fields include {@code X-Ringkv-Node} (the sender), {@code X-Ringkv-To} (the receiver,
 * its node id as the cluster knows it), {@code X-Ringkv-Topology} (the sender's
 * {@link ClusterNodes#fingerprint()}), {@code X-Ringkv-Auth-Time} (the sender's epoch millis),
 * {@code X-Ringkv-Nonce} (random per request, so that no two requests share a proof and an answer
 * made for one cannot pass for the answer to another), the body's digest, the sender's cluster metadata epoch
 * ({@link InternalProtocol#EPOCH_HEADER}, which {@link ReplicaClient} adds) and the record's
 * timestamp and tombstone fields, so none can be changed in transit.
 *
 * <h2>Checks, in order</h2>
 * A missing or wrong proof or a time more than {@link #WINDOW_MILLIS} from the receiver's clock is
 * {@link Check#FORBIDDEN} (403). A request addressed to another node is {@link Check#MISDIRECTED}
 * (403), so a request captured on its way to one node cannot be replayed to another. A body other
 * than the one whose digest the proof covers is {@link Check#FORBIDDEN}. Only then is the topology
 * compared: a peer that proved the secret but routes with another node list is
 * {@link Check#TOPOLOGY_MISMATCH} (409). Replays to the same node inside the window are possible;
 * every internal write is idempotent (last-write-wins by the record's own timestamp), so a replay
 * re-applies the same version and changes nothing.
 *
 * <p>{@link #checkHead} makes every check but the body's digest and the topology at the request's
 * head, so the server refuses a stranger, forged fields and all, before reading its body;
 * {@link #check} makes them all once the body is in, or only those left when the head's were
 * passed ({@link #checkBody}).
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
    /** base64url(SHA-256(body)), without padding: how the proof covers the body. */
    public static final String BODY_HEADER = "X-Ringkv-Body-Sha256";
    /** How far a request's time may be from the receiver's clock. */
    public static final long WINDOW_MILLIS = 30_000;

    private static final String PREFIX = "x-ringkv-";
    private static final String AUTH_LOWER = AUTH_HEADER.toLowerCase(Locale.ROOT);
    private static final String VERSION = "ringkv-internal-v3";

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
        signed.put(BODY_HEADER, bodyDigest(body));
        signed.put(AUTH_HEADER, proof(method, target, lowerCased(signed)));
        return signed;
    }

    /**
     * What a request's head alone shows, before its body is read: {@link Check#FORBIDDEN} for a
     * missing, repeated or malformed proof field, a proof that does not match, or a time outside
     * the window; {@link Check#MISDIRECTED} for a request addressed to another node; {@link Check#OK}
     * when only the body's digest ({@link #checkBody}) and the topology are left to check. The
     * topology is not judged here: a mismatch is answered 409 with a proof of the answer, made once
     * the whole request passed. One MAC over a few hundred bytes, no I/O: it runs on an event loop.
     *
     * @param target the request target as received: path, and {@code ?query} unless the query is empty
     */
    public Check checkHead(String method, String target, Headers headers) {
        String given = headers.first(AUTH_HEADER).orElse(null);
        String time = headers.first(TIME_HEADER).orElse(null);
        String digest = headers.first(BODY_HEADER).orElse(null);
        if (given == null || time == null || digest == null || !namesEveryField(headers)) {
            return Check.FORBIDDEN;
        }
        if (!ProofKey.wellFormed(given) || !ProofKey.wellFormed(digest)) {
            return Check.FORBIDDEN;
        }
        Map<String, String> fields = new TreeMap<>();
        for (String name : headers.names()) {
            String lower = name.toLowerCase(Locale.ROOT);
            if (lower.startsWith(PREFIX)) {
                List<String> values = headers.all(name);
                if (values.size() != 1) {
                    return Check.FORBIDDEN; // a repeated field would make the signed text ambiguous
                }
                if (!lower.equals(AUTH_LOWER)) {
                    fields.put(lower, values.getFirst());
                }
            }
        }
        if (!ProofKey.matches(proof(method, target, fields), given) || !fresh(time)) {
            return Check.FORBIDDEN;
        }
        return self.equals(headers.first(TO_HEADER).orElseThrow()) ? Check.OK : Check.MISDIRECTED;
    }

    /** Checks a received request; see the class comment for the order. */
    public Check check(Request request) {
        Check head = checkHead(request.method(), target(request), request.headers());
        return head == Check.OK ? checkBody(request) : head;
    }

    /**
     * The checks {@link #checkHead} leaves, for a request whose head passed it: the body is the
     * one the proof's digest names ({@link Check#FORBIDDEN} if not), then the topology. Call it
     * only after {@link #checkHead} said {@link Check#OK} for this very request.
     */
    public Check checkBody(Request request) {
        String digest = request.headers().first(BODY_HEADER).orElse(null);
        if (!ProofKey.matches(bodyDigest(request.body()), digest)) {
            return Check.FORBIDDEN;
        }
        return topology.equals(request.headers().first(TOPOLOGY_HEADER).orElse(null)) ? Check.OK : Check.TOPOLOGY_MISMATCH;
    }

    /** The target as the proof names it: the path, then {@code ?query} unless the query is empty. */
    public static String target(String path, String query) {
        return query.isEmpty() ? path : path + "?" + query;
    }

    private static String target(Request request) {
        return target(request.path(), request.query());
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

    /** @param fields lower-cased names, sorted (a TreeMap), without the proof itself; the body's digest among them */
    private String proof(String method, String target, Map<String, String> fields) {
        StringBuilder canonical = new StringBuilder(320).append(VERSION).append('\n')
                .append(method).append('\n').append(target).append('\n');
        fields.forEach((name, value) -> canonical.append(name).append(':').append(value).append('\n'));
        return ProofKey.encode(key.mac().doFinal(canonical.toString().getBytes(StandardCharsets.UTF_8)));
    }

    /** {@link #BODY_HEADER}'s value for {@code body}. */
    static String bodyDigest(byte[] body) {
        // digest leaves the digest reset for the thread's next request.
        return ProofKey.encode(SHA256.get().digest(body));
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
