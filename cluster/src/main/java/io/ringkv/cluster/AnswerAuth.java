package io.ringkv.cluster;

import io.ringkv.http.Headers;
import io.ringkv.http.server.Response;
import io.ringkv.http.server.ResponseBody;
import java.io.InputStream;
import java.net.http.HttpHeaders;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import javax.crypto.Mac;

/**
 * Proofs on the answers of the internal plane, so that a host on the path, without the cluster
 * secret, cannot change a replica's answer (a value, its timestamp, a status) into one the
 * coordinator would return and read repair would spread.
 *
 * <h2>The proof of an answer</h2>
 * {@link InternalAuth#AUTH_HEADER} on the answer = base64url(HMAC-SHA256(secret, canonical)), where
 * canonical is
 * <pre>
 *   ringkv-answer-v1 LF
 *   proof of the request LF      its X-Ringkv-Auth, so the answer belongs to that request alone
 *   status LF                    e.g. 200
 *   name:value LF ...            every X-Ringkv-* field of the answer but X-Ringkv-Auth, lower-cased, sorted
 *   "fixed" LF body              the whole body, fed to the MAC as it is (no copy, no second digest)
 *   | "segmented" LF             a streamed body, whose segments carry their own proofs
 * </pre>
 * Field lines hold a {@code :}, "fixed" and "segmented" do not, and no line holds a LF, so the
 * text before the body reads one way only. The first line keeps an answer's proof from ever
 * passing for a request's, or for a segment's.
 *
 * <h2>Streamed answers</h2>
 * Ranges and versions are consumed as they arrive (a merge sends a client's range on while the
 * peers' streams still flow), so one proof at the end would come after the records were used.
 * Their body is instead a sequence of segments, {@link SignedSegmentSource} on the server and
 * {@link VerifiedSegmentStream} on the client:
 * <pre>
 *   segment = length:int32 payload mac:32 bytes     the last one has length 0 and ends the body
 *   mac     = HMAC-SHA256(secret, "ringkv-segment-v1" LF proof of the request LF index LF length LF payload)
 * </pre>
 * A segment's bytes reach the reader only once its MAC matched. The index (0, 1, ...) keeps
 * segments from being dropped, repeated or reordered, the request's proof from being moved to
 * another answer, and the final empty segment from the body being cut short unnoticed. A segment
 * is one chunk of the server's stream (about 32 KiB of records), so the cost is one MAC per
 * chunk, over bytes the MAC reads once.
 *
 * <p>Thread-safe; see {@link ProofKey}.
 */
public final class AnswerAuth {

    private static final String PREFIX = "x-ringkv-";
    private static final String AUTH_FIELD = InternalAuth.AUTH_HEADER.toLowerCase(Locale.ROOT);
    private static final String VERSION = "ringkv-answer-v1";
    private static final String SEGMENT_VERSION = "ringkv-segment-v1";

    private final ProofKey key;

    AnswerAuth(ProofKey key) {
        this.key = key;
    }

    /**
     * The answer to the request whose proof is {@code requestProof}, with its own proof; a
     * streamed body becomes a sequence of signed segments.
     *
     * @throws IllegalStateException when the answer repeats an {@code X-Ringkv-*} field (a bug here)
     */
    public Response sign(String requestProof, Response answer) {
        Map<String, String> fields = fieldsOf(answer.headers());
        if (fields == null) {
            throw new IllegalStateException("an internal answer repeats an X-Ringkv-* field: " + answer.headers());
        }
        return switch (answer.body()) {
            case ResponseBody.Streamed streamed -> new Response(answer.status(), answer.headers(),
                    ResponseBody.streamed(new SignedSegmentSource(this, requestProof, streamed.source())))
                    .withHeader(InternalAuth.AUTH_HEADER, proof(requestProof, answer.status(), fields, null));
            case ResponseBody.Fixed fixed -> answer.withHeader(InternalAuth.AUTH_HEADER,
                    proof(requestProof, answer.status(), fields, fixed.bytes()));
            case ResponseBody.Empty empty -> answer.withHeader(InternalAuth.AUTH_HEADER,
                    proof(requestProof, answer.status(), fields, new byte[0]));
        };
    }

    /** Whether an answer with a whole body carries the proof the request's sender expects. */
    public boolean verifies(String requestProof, int status, HttpHeaders headers, byte[] body) {
        return verifies(requestProof, status, headers, body, false);
    }

    /** Whether the head of a streamed answer carries its proof; its segments are checked as they are read. */
    public boolean verifiesSegmentedHead(String requestProof, int status, HttpHeaders headers) {
        return verifies(requestProof, status, headers, null, true);
    }

    /** As {@link #verifies(String, int, HttpHeaders, byte[])}, for fields as the peer transport gives them. */
    public boolean verifies(String requestProof, int status, Headers fields, byte[] body) {
        return verifies(requestProof, status, fields.all(InternalAuth.AUTH_HEADER), fieldsOf(fields), body, false);
    }

    /** As {@link #verifiesSegmentedHead(String, int, HttpHeaders)}, for fields as the peer transport gives them. */
    public boolean verifiesSegmentedHead(String requestProof, int status, Headers fields) {
        return verifies(requestProof, status, fields.all(InternalAuth.AUTH_HEADER), fieldsOf(fields), null, true);
    }

    /**
     * The payload of a segmented body, each segment released only once its MAC matched.
     *
     * @param node             the peer, for errors
     * @param segmentBytesMax  a longer segment is refused unread
     * @param rejections       told of a segment that fails its proof
     */
    InputStream segments(ClusterNode node, String requestProof, InputStream body, int segmentBytesMax,
                         RejectedAnswers rejections) {
        return new VerifiedSegmentStream(this, node, requestProof, body, segmentBytesMax, rejections);
    }

    private boolean verifies(String requestProof, int status, HttpHeaders headers, byte[] body, boolean segmented) {
        return verifies(requestProof, status, headers.allValues(InternalAuth.AUTH_HEADER), fieldsOf(headers), body, segmented);
    }

    /** @param fields the answer's X-Ringkv-* fields but the proof; null when one is repeated */
    private boolean verifies(String requestProof, int status, List<String> given, Map<String, String> fields, byte[] body,
                             boolean segmented) {
        if (given.size() != 1 || fields == null || requestProof == null) {
            return false;
        }
        return ProofKey.matches(proof(requestProof, status, fields, segmented ? null : body), given.getFirst());
    }

    /** @param body null for a segmented body */
    private String proof(String requestProof, int status, Map<String, String> fields, byte[] body) {
        StringBuilder head = new StringBuilder(160).append(VERSION).append('\n').append(requestProof).append('\n')
                .append(status).append('\n');
        fields.forEach((name, value) -> head.append(name).append(':').append(value).append('\n'));
        head.append(body == null ? "segmented" : "fixed").append('\n');
        Mac mac = key.mac();
        mac.update(head.toString().getBytes(StandardCharsets.UTF_8));
        if (body != null) {
            mac.update(body);
        }
        return ProofKey.encode(mac.doFinal());
    }

    /** The MAC of one segment; reads {@code payload} from its position to its limit without moving them. */
    byte[] segmentMac(String requestProof, long index, ByteBuffer payload) {
        String head = SEGMENT_VERSION + '\n' + requestProof + '\n' + index + '\n' + payload.remaining() + '\n';
        Mac mac = key.mac();
        mac.update(head.getBytes(StandardCharsets.UTF_8));
        mac.update(payload.duplicate());
        return mac.doFinal();
    }

    /** The answer's X-Ringkv-* fields but the proof, lower-cased and sorted; null when one is repeated. */
    private static Map<String, String> fieldsOf(Headers headers) {
        Map<String, String> fields = new TreeMap<>();
        for (int i = 0; i < headers.size(); i++) {
            String name = headers.name(i).toLowerCase(Locale.ROOT);
            if (name.startsWith(PREFIX) && !name.equals(AUTH_FIELD) && fields.put(name, headers.value(i)) != null) {
                return null;
            }
        }
        return fields;
    }

    private static Map<String, String> fieldsOf(HttpHeaders headers) {
        Map<String, String> fields = new TreeMap<>();
        for (Map.Entry<String, List<String>> field : headers.map().entrySet()) {
            String name = field.getKey().toLowerCase(Locale.ROOT);
            if (!name.startsWith(PREFIX) || name.equals(AUTH_FIELD)) {
                continue;
            }
            // A field twice (in either spelling) would make the signed text ambiguous.
            if (field.getValue().size() != 1 || fields.put(name, field.getValue().getFirst()) != null) {
                return null;
            }
        }
        return fields;
    }
}
